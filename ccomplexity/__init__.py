"""ccomplexity: exact communication-complexity mathematics for sequence models.

This package never imports torch. See ``ccomplexity.lower_bounds`` for fooling sets, ranks and
protocol-tree search, ``ccomplexity.bounds`` for the theorem registry, and ``ccomplexity.protocol``
for certificates that ``ccx verify`` re-checks.
"""

__version__ = "0.1.0"
