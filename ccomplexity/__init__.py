"""ccomplexity: exact communication-complexity mathematics for sequence models.

This package never imports torch. See ``ccomplexity.lower_bounds`` for fooling sets, ranks and
protocol-tree search, ``ccomplexity.bounds`` for the theorem registry, and ``ccomplexity.protocol``
for certificates that ``ccx verify`` re-checks.

The names most code needs are exported here (``from ccomplexity import max_fooling_set``; see
docs/python-api.md); each is imported from its module on first use, so importing the package
stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Partition": "ccomplexity.problems",
    "TwoPartyProblem": "ccomplexity.problems",
    "from_matrix": "ccomplexity.problems",
    "string_problem": "ccomplexity.problems",
    "FoolingCheck": "ccomplexity.lower_bounds",
    "MaxFoolingSet": "ccomplexity.lower_bounds",
    "max_fooling_set": "ccomplexity.lower_bounds",
    "one_way_bits": "ccomplexity.lower_bounds",
    "verify_fooling_set": "ccomplexity.lower_bounds",
    "fooling_set_certificate": "ccomplexity.certificates",
    "write_certificate": "ccomplexity.certificates",
    "Verdict": "ccomplexity.verifier",
    "verify": "ccomplexity.verifier",
    "verify_file": "ccomplexity.verifier",
    "FoolingRequest": "ccomplexity.requests",
    "OneWayRequest": "ccomplexity.requests",
    "KgSplitRequest": "ccomplexity.requests",
    "kg_split": "ccomplexity.requests",
    "RankRequest": "ccomplexity.requests",
    "ExactRequest": "ccomplexity.requests",
    "rank": "ccomplexity.requests",
    "exact": "ccomplexity.requests",
    "fooling_set": "ccomplexity.requests",
    "one_way": "ccomplexity.requests",
    "load_plugin": "ccomplexity.plugins",
}
"""Exported name -> the module that defines it."""

if TYPE_CHECKING:
    from ccomplexity.certificates import fooling_set_certificate, write_certificate
    from ccomplexity.lower_bounds import (
        FoolingCheck,
        MaxFoolingSet,
        max_fooling_set,
        one_way_bits,
        verify_fooling_set,
    )
    from ccomplexity.plugins import load_file as load_plugin
    from ccomplexity.problems import Partition, TwoPartyProblem, from_matrix, string_problem
    from ccomplexity.requests import (
        ExactRequest,
        FoolingRequest,
        KgSplitRequest,
        OneWayRequest,
        RankRequest,
        exact,
        fooling_set,
        kg_split,
        one_way,
        rank,
    )
    from ccomplexity.verifier import Verdict, verify, verify_file


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = importlib.import_module(_EXPORTS[name])
        return getattr(module, "load_file" if name == "load_plugin" else name)
    raise AttributeError(f"module 'ccomplexity' has no attribute {name!r}")


__all__ = [
    "__version__",
    "ExactRequest",
    "FoolingCheck",
    "FoolingRequest",
    "KgSplitRequest",
    "MaxFoolingSet",
    "OneWayRequest",
    "Partition",
    "RankRequest",
    "TwoPartyProblem",
    "Verdict",
    "exact",
    "fooling_set",
    "fooling_set_certificate",
    "from_matrix",
    "kg_split",
    "load_plugin",
    "max_fooling_set",
    "one_way",
    "one_way_bits",
    "rank",
    "string_problem",
    "verify",
    "verify_file",
    "verify_fooling_set",
    "write_certificate",
]
