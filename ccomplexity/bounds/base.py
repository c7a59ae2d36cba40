"""The :class:`Bound` type: one statement of a paper with a bound, and its exact evaluation.

Each bound carries the statement in words, its citation and formula, and evaluates it:
``value(**params)`` is the formula's right-hand side (required width, required bits, code width),
``outputs(**params)`` any further named quantities the statement gives (loops, widths, parameter
counts), and for lower bounds on models ``max_length(m, p, H)`` / ``min_width(N, p, H)`` invert
the inequality: the largest length N not ruled out for width m, precision p bits and H heads, and
the smallest width m not ruled out at length N. Inversions are exact: linear bounds compare
integers (m >= N/p is violated iff N > m p), and bounds with log2 N are searched over N (they are
monotone) with an exact comparison of a log2 N against an integer.

Parameters are named once in :data:`PARAMS` with their validator; a paper module adds its own
with :func:`define_param`. Conventions: logs are base 2; widths, precisions, heads and lengths are
integers >= 1; tasks that split the input into halves need even N, and their ``max_length`` is the
largest even N not ruled out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from numbers import Real
from typing import Any

from ccomplexity.errors import InputError, check_int
from ccomplexity.integers import log2_exact

KINDS = ("lower", "upper", "fact")

Allows = Callable[[int, int, int, int], bool]
"""(length N, width m, precision p, heads H) -> True when the bound does not rule the model out."""


# -- parameters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A named parameter of the statements: how to validate it, and what it means."""

    name: str
    check: Callable[[object], Any]
    help: str


PARAMS: dict[str, Param] = {}
"""Every parameter any registered statement takes, by name (CLI flag ``--name``)."""

MAX_PARAM_DIGITS = 64
"""Integer parameters have at most this many decimal digits (bounds are exact on any such N)."""


def define_param(name: str, check: Callable[[object], Any], help: str) -> Param:
    """Register parameter ``name`` (once; a paper module may share an existing one)."""
    if name in PARAMS:
        raise RuntimeError(f"parameter {name!r} defined twice")  # programming error
    PARAMS[name] = Param(name, check, help)
    return PARAMS[name]


def positive_int(what: str, least: int = 1) -> Callable[[object], int]:
    """A validator: an integer >= ``least`` of at most :data:`MAX_PARAM_DIGITS` digits."""

    def check(value: object) -> int:
        n = check_int(value, what, least)
        if abs(n) >= 10**MAX_PARAM_DIGITS:
            raise InputError(f"{what} must have at most {MAX_PARAM_DIGITS} digits")
        return n

    return check


def unit_interval(what: str) -> Callable[[object], float]:
    """A validator: a real number strictly between 0 and 1, not so small that it underflows."""

    def check(value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
            raise InputError(f"{what} must be a real number in (0, 1), got {value!r}")
        if value < 1e-6:
            raise InputError(f"{what} must be at least 1e-6 (the widths grow as 1/{what}^2)")
        return float(value)

    return check


for _name, _help in (
    ("length", "input length N"),
    ("width", "model width m (per head for attention)"),
    ("precision", "bits per number p"),
    ("heads", "attention heads H"),
    ("model_dim", "embedding width d"),
    ("states", "states of a minimal DFA"),
    ("size", "size of a fooling set"),
    ("alphabet", "alphabet size |Sigma|"),
    ("input_dim", "input vector dimension d'"),
    ("sparsity", "number of relevant bits k"),
    # shared by the papers beyond the separations one (names are global: reuse, do not redefine)
    ("vertices", "graph vertices |V|"),
    ("experts", "experts K of a mixture-of-experts layer"),
    ("examples", "examples n to memorise"),
    ("dim", "input dimension"),
    ("mlp_width", "MLP (GLU) hidden width d_FF, d'"),
    ("hops", "hops (p of p-hop, q of a path query)"),
    ("layers", "layers L"),
    ("loops", "loops L of a looped block"),
    ("entities", "entities E of a knowledge graph"),
    ("relations", "relations R of a knowledge graph"),
    ("permutations", "permutations m"),
    ("operands", "operands n of n-ary addition"),
):
    define_param(_name, positive_int(_name), _help)
define_param("frac", positive_int("frac", 0), "fractional bits of the p-bit grid")
define_param("gamma", unit_interval("gamma"), "margin gamma of near-orthogonal codes")


# -- exact arithmetic ---------------------------------------------------------------------------


def as_number(x: Fraction) -> int | float:
    """An exact rational as an int when integral, else the nearest float (JSON-ready)."""
    return int(x) if x.denominator == 1 else float(x)


def a_log2_at_least(a: int, n: int, r: int) -> bool:
    """Exactly decide a * log2(n) >= r for integers a >= 1, n >= 1, r.

    Powers of two are integer comparisons.  Otherwise n = 2^t o with o > 1 odd, so n^a is never
    a power of two and a log2 n != r: the float test is trusted outside a wide margin, and the
    rare near-ties are settled with Decimal logarithms carried to well past the gap.
    """
    if r <= 0:
        return True
    t = (n & -n).bit_length() - 1
    if n >> t == 1:
        return a * t >= r
    x = a * math.log2(n) - r
    if abs(x) > 1e-9 * max(1, abs(r)):
        return x > 0
    with localcontext() as ctx:
        ctx.prec = 60 + len(str(abs(r))) + len(str(a))
        return Decimal(a) * Decimal(n).ln() / Decimal(2).ln() > r


def log_allows(a: int, p: int, n: int, c: int) -> bool:
    """Exactly decide a (p + log2 n) >= n - c, i.e. a log2 n >= n - c - a p."""
    return a_log2_at_least(a, n, n - c - a * p)


def last_true(pred: Callable[[int], bool]) -> int:
    """Largest j >= 1 with pred(j), for pred true at 1 and monotone (true, then false forever)."""
    lo, hi = 1, 2
    while pred(hi):  # doubling: O(log answer) evaluations
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # invariant: pred(lo) true, pred(hi) false
        mid = (lo + hi) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return lo


def first_true(pred: Callable[[int], bool]) -> int:
    """Smallest m >= 1 with pred(m), for pred monotone (false, then true forever)."""
    if pred(1):
        return 1
    lo, hi = 1, 2
    while not pred(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # invariant: pred(lo) false, pred(hi) true
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi


def over_p_log(c: int, scale: int) -> Callable[..., float]:
    """(N - c) / (scale (p + log2 N)) as a float."""
    return lambda length, precision: (length - c) / (scale * (precision + log2_exact(length)))


# -- the bound ----------------------------------------------------------------------------------

DESCRIBE_KEYS = frozenset(
    ("id", "theorem", "paper", "name", "kind", "architecture", "task", "statement", "citation",
     "formula", "quantity", "derived", "aliases", "length_name", "inputs", "notes", "errata",
     "value", "min_width", "max_length", "width_rests_on", "evaluated")
)  # fmt: skip
"""The fields of :meth:`Bound.describe` (and ``theorem``, the CLI's name for ``id``): no output
of a statement may take one of these names, nor the name of one of its parameters."""


@dataclass(frozen=True)
class Bound:
    """One statement of a paper with a bound, and its evaluation.

    ``value_params`` are the required keywords of :meth:`value` (and of ``_outputs``),
    ``optional_params`` optional ones; ``quantity`` says what :meth:`value` returns.
    ``_outputs`` returns further named quantities (a dict) from the same parameters.
    ``length_name`` says what the length argument of :meth:`min_width` counts (N tokens for most;
    DFA states n for Lemma 4). ``derived`` marks an explicit form that the paper states only
    asymptotically; ``errata`` lists corrections to the paper this evaluation applies.
    """

    id: str
    name: str
    statement: str
    citation: str
    formula: str
    kind: str
    architecture: str
    task: str
    quantity: str
    value_params: tuple[str, ...]
    _value: Callable[..., int | float] | None = field(repr=False, compare=False)
    optional_params: tuple[str, ...] = ()
    _outputs: Callable[..., dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    _allows: Allows | None = field(default=None, repr=False, compare=False)
    _max_length: Callable[[int, int, int], int] | None = field(
        default=None, repr=False, compare=False
    )
    """Exact max_length(m, p, H) where the inequality is not monotone in N."""
    bounds_length: bool = False
    uses_heads: bool = False
    even_length: bool = False
    min_length: int = 1
    length_name: str = "N"
    derived: bool = False
    aliases: tuple[str, ...] = ()
    notes: str = ""
    errata: tuple[str, ...] = ()
    value_is_width: bool = False
    """The value is a width that suffices (a construction's): also reported as ``min_width``."""
    width_note: str = ""
    """What :meth:`min_width` / :meth:`max_length` rest on, when that is not the formula itself."""
    length_param: str = ""
    """The parameter that plays the length in the inequality (e.g. ``vertices``); default
    ``length`` (``states`` when ``length_name`` is not N)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(
                f"{self.id}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}"
            )
        if not (self.statement and self.citation and self.formula):
            raise InputError(f"{self.id}: statement, citation and formula are required")
        for name in self.value_params + self.optional_params:
            if name not in PARAMS:
                raise InputError(f"{self.id}: unknown value parameter {name!r}")
        if self.bounds_length and self._allows is None:
            raise InputError(f"{self.id}: bounds_length needs an inequality")
        if self._value is None and self._outputs is None:
            raise InputError(f"{self.id}: needs a value or outputs")

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def length_key(self) -> str:
        """The parameter name of the inequality's length (``--length``, ``--states``, ...)."""
        return self.length_param or ("length" if self.length_name == "N" else "states")

    @property
    def params(self) -> tuple[str, ...]:
        """Every parameter this statement takes: the formula's, then the model's (m, p, H)."""
        names = list(self.value_params + self.optional_params)
        if self._allows is not None:
            names += [self.length_key, "width", "precision"]
            if self.uses_heads:
                names.append("heads")
        return tuple(dict.fromkeys(names))

    # -- validation -------------------------------------------------------------------------
    def _length(self, length: object) -> int:
        n = check_int(length, f"{self.id}: length {self.length_name}", self.min_length)
        if self.even_length and n % 2:
            raise InputError(
                f"{self.id}: length N must be even (the input splits in halves), got {n}"
            )
        return n

    def _model(self, width: object, precision: object, heads: object) -> tuple[int, int, int]:
        m, p, h = (
            PARAMS["width"].check(width),
            PARAMS["precision"].check(precision),
            PARAMS["heads"].check(heads),
        )
        if h != 1 and not self.uses_heads:
            raise InputError(f"{self.id} is about {self.architecture}; heads must be 1, got {h}")
        return m, p, h

    def _checked(self, params: dict[str, object]) -> dict[str, Any]:
        unknown = sorted(set(params) - set(self.value_params) - set(self.optional_params))
        if unknown:
            expected = ", ".join(self.value_params + self.optional_params) or "none"
            raise InputError(f"{self.id}: unknown parameter {unknown[0]!r}; takes {expected}")
        missing = [k for k in self.value_params if k not in params]
        if missing:
            raise InputError(
                f"{self.id} needs {', '.join(self.value_params)}; missing {missing[0]}"
            )
        checked = {k: PARAMS[k].check(v) for k, v in params.items()}
        if "length" in checked:
            checked["length"] = self._length(checked["length"])
        return checked

    # -- evaluation -------------------------------------------------------------------------
    def allows(self, length: int, width: int, precision: int, heads: int = 1) -> bool | None:
        """Whether the raw inequality holds at (N, m, p, H), i.e. the model is not ruled out.

        None for statements that do not constrain a model (upper bounds, facts, protocols).
        """
        if self._allows is None:
            return None
        m, p, h = self._model(width, precision, heads)
        return self._allows(self._length(length), m, p, h)

    def max_length(self, width: int, precision: int, heads: int = 1) -> int | None:
        """Largest length N not ruled out for width m, precision p bits and H heads.

        Exact: the inequality is monotone in N, so doubling then bisection on the exact test
        finds the last N that satisfies it (the last even N for even-length tasks).  None when
        the statement does not bound length.
        """
        if not self.bounds_length:
            return None
        m, p, h = self._model(width, precision, heads)
        if self._max_length is not None:
            return self._max_length(m, p, h)
        allows = self._allows
        assert allows is not None
        step = 2 if self.even_length else 1
        return step * last_true(lambda j: allows(step * j, m, p, h))

    def min_width(self, length: int, precision: int, heads: int = 1) -> int | None:
        """Smallest width m >= 1 not ruled out at length N (Lemma 4: n DFA states), or None."""
        if self._allows is None:
            return None
        n = self._length(length)
        _, p, h = self._model(1, precision, heads)
        allows = self._allows
        return first_true(lambda m: allows(n, m, p, h))

    def value(self, **params: object) -> int | float:
        """The formula's value (see ``quantity``) at the given keyword parameters."""
        if self._value is None:
            raise InputError(f"{self.id} has no single value; see its outputs")
        return self._value(**self._checked(params))

    def outputs(self, **params: object) -> dict[str, Any]:
        """The further named quantities of the statement at the given parameters ({} if none)."""
        if self._outputs is None:
            return {}
        return self._outputs(**self._checked(params))

    def describe(self, **params: object) -> dict[str, object]:
        """JSON-ready description, evaluated wherever the given parameters allow.

        ``inputs`` echoes the given parameters; ``value`` and the outputs appear when every
        parameter they need is given, ``max_length`` when width and precision are,
        ``min_width`` when length (Lemma 4: states) and precision are. Parameters this
        statement does not take are an error. Outputs share no key with the inputs nor with
        these fields (:data:`DESCRIBE_KEYS`): a statement whose output would overwrite one is
        refused when evaluated, and the registry test evaluates every statement.
        """
        own = set(self.params)
        unknown = sorted(set(params) - own)
        if unknown:
            raise InputError(
                f"{self.id} takes no parameter {unknown[0]!r}; it takes {', '.join(self.params)}"
            )
        given = {k: v for k, v in params.items() if v is not None}
        out: dict[str, object] = {
            "id": self.id,
            "paper": self.paper,
            "name": self.name,
            "kind": self.kind,
            "architecture": self.architecture,
            "task": self.task,
            "statement": self.statement,
            "citation": self.citation,
            "formula": self.formula,
            "quantity": self.quantity,
            "derived": self.derived,
            "aliases": list(self.aliases),
            "length_name": self.length_name,
            "inputs": dict(given),
        }
        if self.notes:
            out["notes"] = self.notes
        if self.errata:
            out["errata"] = list(self.errata)
        formula_keys = set(self.value_params) | set(self.optional_params)
        evaluated = False
        if all(k in given for k in self.value_params):
            formula_params = {k: v for k, v in given.items() if k in formula_keys}
            if self._value is not None:
                out["value"] = self.value(**formula_params)
                if self.value_is_width:
                    out["min_width"] = out["value"]
            outputs = self.outputs(**formula_params)
            clash = sorted(set(outputs) & (DESCRIBE_KEYS | set(self.params)))
            if clash:  # programming error: the registry test evaluates every statement
                raise RuntimeError(f"{self.id}: output {clash[0]!r} names an input or a field")
            out.update(outputs)
            evaluated = True
        if self._allows is not None:
            heads = given.get("heads", 1)
            length = given.get(self.length_key)
            if self.bounds_length and "width" in given and "precision" in given:
                out["max_length"] = self.max_length(given["width"], given["precision"], heads)
                evaluated = True
            if length is not None and "precision" in given:
                out["min_width"] = self.min_width(length, given["precision"], heads)
                evaluated = True
            if self.width_note and ("max_length" in out or "min_width" in out):
                out["width_rests_on"] = self.width_note
        out["evaluated"] = evaluated
        return out

    def needs(self) -> str:
        """What to give for an evaluation, in words (for error messages and ``--list``)."""
        ways = []
        if self.value_params or self._value is not None or self._outputs is not None:
            options = (f"--{p.replace('_', '-')}" for p in self.value_params)
            ways.append(" ".join(options) or "nothing")
        if self.bounds_length:
            ways.append("--width --precision" + (" [--heads]" if self.uses_heads else ""))
        if self._allows is not None:
            ways.append(
                f"--{self.length_key} --precision" + (" [--heads]" if self.uses_heads else "")
            )
        return " | ".join(dict.fromkeys(ways))
