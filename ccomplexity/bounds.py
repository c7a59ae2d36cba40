"""Registry of every statement with a bound in Bhattamishra et al., "Separations in the
Representational Capabilities of Transformers and Recurrent Architectures" (spec Sec. 2).

Each :class:`Bound` carries the statement in words, its citation and formula, and evaluates it:
``value(**params)`` is the formula's right-hand side (required width, required bits, code width),
and for lower bounds on models ``max_length(m, p, H)`` / ``min_width(N, p, H)`` invert it:
the largest length N not ruled out for width m, precision p bits and H heads, and the smallest
width m not ruled out at length N.  Inversions are exact: linear bounds compare integers
(Thm 3: m >= N/p is violated iff N > m p, so max_length = m p), and bounds with log2 N are
searched over N (they are monotone) with an exact comparison of a (p + log2 N) against N - c.

Conventions: logs are base 2; widths, precisions, heads and lengths are integers >= 1; tasks
that split the input into halves (EQ/INEQ, Dyck with the odd/even split) need even N, and
their ``max_length`` is the largest even N not ruled out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from numbers import Real

from ccomplexity.codes import paper_k
from ccomplexity.errors import InputError, check_int

KINDS = ("lower", "upper", "fact")

Allows = Callable[[int, int, int, int], bool]
"""(length N, width m, precision p, heads H) -> True when the bound does not rule the model out."""


def _gamma(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
        raise InputError(f"gamma must be a real number in (0, 1), got {value!r}")
    return float(value)


def _num(x: Fraction) -> int | float:
    """An exact rational as an int when integral, else the nearest float (JSON-ready)."""
    return int(x) if x.denominator == 1 else float(x)


def _log2(n: int) -> int | float:
    """log2 n, exactly as an int for powers of two."""
    return n.bit_length() - 1 if n & (n - 1) == 0 else math.log2(n)


def _a_log2_at_least(a: int, n: int, r: int) -> bool:
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


def _log_allows(a: int, p: int, n: int, c: int) -> bool:
    """Exactly decide a (p + log2 n) >= n - c, i.e. a log2 n >= n - c - a p."""
    return _a_log2_at_least(a, n, n - c - a * p)


def _last_true(pred: Callable[[int], bool]) -> int:
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


def _first_true(pred: Callable[[int], bool]) -> int:
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


_PARAM_CHECKS: dict[str, Callable[[object], object]] = {
    "length": lambda v: check_int(v, "length"),
    "width": lambda v: check_int(v, "width"),
    "precision": lambda v: check_int(v, "precision"),
    "heads": lambda v: check_int(v, "heads"),
    "model_dim": lambda v: check_int(v, "model_dim"),
    "states": lambda v: check_int(v, "states"),
    "size": lambda v: check_int(v, "size"),
    "alphabet": lambda v: check_int(v, "alphabet"),
    "input_dim": lambda v: check_int(v, "input_dim"),
    "sparsity": lambda v: check_int(v, "sparsity"),
    "gamma": _gamma,
}


@dataclass(frozen=True)
class Bound:
    """One statement of the paper with a bound, and its evaluation.

    ``value_params`` are the required keywords of :meth:`value`, ``optional_params`` optional
    ones; ``quantity`` says what :meth:`value` returns.  ``length_name`` says what the length
    argument of :meth:`min_width` counts (N tokens for most; DFA states n for Lemma 4).
    ``derived`` marks an explicit form that the paper states only asymptotically.
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
    _value: Callable[..., int | float] = field(repr=False, compare=False)
    optional_params: tuple[str, ...] = ()
    _allows: Allows | None = field(default=None, repr=False, compare=False)
    bounds_length: bool = False
    uses_heads: bool = False
    even_length: bool = False
    min_length: int = 1
    length_name: str = "N"
    derived: bool = False
    aliases: tuple[str, ...] = ()
    notes: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(
                f"{self.id}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}"
            )
        if not (self.statement and self.citation and self.formula):
            raise InputError(f"{self.id}: statement, citation and formula are required")
        for name in self.value_params + self.optional_params:
            if name not in _PARAM_CHECKS:
                raise InputError(f"{self.id}: unknown value parameter {name!r}")
        if self.bounds_length and self._allows is None:
            raise InputError(f"{self.id}: bounds_length needs an inequality")

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
            check_int(width, "width"),
            check_int(precision, "precision"),
            check_int(heads, "heads"),
        )
        if h != 1 and not self.uses_heads:
            raise InputError(f"{self.id} is about {self.architecture}; heads must be 1, got {h}")
        return m, p, h

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
        allows = self._allows
        assert allows is not None
        step = 2 if self.even_length else 1
        return step * _last_true(lambda j: allows(step * j, m, p, h))

    def min_width(self, length: int, precision: int, heads: int = 1) -> int | None:
        """Smallest width m >= 1 not ruled out at length N (Lemma 4: n DFA states), or None."""
        if self._allows is None:
            return None
        n = self._length(length)
        _, p, h = self._model(1, precision, heads)
        allows = self._allows
        return _first_true(lambda m: allows(n, m, p, h))

    def value(self, **params: object) -> int | float:
        """The formula's value (see ``quantity``) at the given keyword parameters."""
        unknown = sorted(set(params) - set(self.value_params) - set(self.optional_params))
        if unknown:
            expected = ", ".join(self.value_params + self.optional_params) or "none"
            raise InputError(f"{self.id}.value: unknown parameter {unknown[0]!r}; takes {expected}")
        missing = [k for k in self.value_params if k not in params]
        if missing:
            raise InputError(
                f"{self.id}.value needs {', '.join(self.value_params)}; missing {missing[0]}"
            )
        checked = {k: _PARAM_CHECKS[k](v) for k, v in params.items()}
        if "length" in checked:
            checked["length"] = self._length(checked["length"])
        return self._value(**checked)

    def describe(
        self,
        *,
        width: int | None = None,
        precision: int | None = None,
        heads: int = 1,
        length: int | None = None,
        **params: object,
    ) -> dict[str, object]:
        """JSON-ready description, evaluated where the given parameters allow.

        ``value`` appears when every parameter it needs is given, ``max_length`` when width
        and precision are, ``min_width`` when length and precision are.
        """
        unknown = sorted(set(params) - set(_PARAM_CHECKS))
        if self.length_name != "N" and params.get("states") is not None:
            length = params["states"]  # Lemma 4: min_width is over DFA states n, not a length
        if unknown:
            raise InputError(f"unknown parameter {unknown[0]!r}; known: {', '.join(_PARAM_CHECKS)}")
        given = {"width": width, "precision": precision, "length": length, **params}
        given = {k: v for k, v in given.items() if v is not None}
        if self.uses_heads or heads != 1:
            given["heads"] = heads
        out: dict[str, object] = {
            "id": self.id,
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
            "parameters": dict(given),
        }
        if self.notes:
            out["notes"] = self.notes
        accepted = set(self.value_params) | set(self.optional_params)
        if all(k in given for k in self.value_params):
            out["value"] = self.value(**{k: v for k, v in given.items() if k in accepted})
        if self.bounds_length and width is not None and precision is not None:
            out["max_length"] = self.max_length(width, precision, heads)
        if self._allows is not None and length is not None and precision is not None:
            out["min_width"] = self.min_width(length, precision, heads)
        return out


# -- Theorem 4 protocol accounting --------------------------------------------------------------


def thm4_closed_form(m: int, p: int, n: int, h: int = 1) -> float:
    """Theorem 4's stated protocol length, 3 m (p + log2 N) H bits (Sec. 4, App. D)."""
    m, p, n, h = (
        check_int(m, "width m"),
        check_int(p, "precision p"),
        check_int(n, "length N"),
        check_int(h, "heads H"),
    )
    return 3 * m * (p + _log2(n)) * h


@dataclass(frozen=True)
class Thm4Bits:
    """Bits the Theorem 4 protocol sends, step by step (App. D; spec Sec. 3.5, erratum 1).

    Step 1 (``query``, once): Alice sends x_N, d p bits.  Per head: step 2 (``maximum``) both
    local maxima of the logits, 2p; step 3 (``normaliser``) the partial softmax sums Z_A, Z_B
    in [0, N], 2 (p + log2 N); step 4 (``values``) the partial sums U_A, U_B of m coordinates at
    2p bits each, 4 m p.  ``closed_form`` is the paper's 3 m (p + log2 N) H for comparison.
    log2 N is real-valued as in the paper; an actual bit string needs ceil(log2 N) there.
    """

    width: int
    model_dim: int
    precision: int
    length: int
    heads: int
    query: float
    maximum: float
    normaliser: float
    values: float
    total: float
    closed_form: float

    def breakdown(self) -> dict[str, float]:
        """Per-step bit counts (all heads) plus the total, JSON-ready."""
        return {
            "step1_query_dp": self.query,
            "step2_max_2p_per_head": self.maximum,
            "step3_normaliser_2(p+logN)_per_head": self.normaliser,
            "step4_values_4mp_per_head": self.values,
            "total": self.total,
        }


def thm4_itemised(m: int, d: int, p: int, n: int, h: int = 1) -> Thm4Bits:
    """What the Theorem 4 protocol actually sends: d p + H (2p + 2(p + log2 N) + 4 m p) bits.

    This exceeds the stated 3 m (p + log2 N) H when d ~ m and log2 N < 2p/3 (spec erratum 1):
    m = d = 64, p = 32, N = 400, H = 1 gives 10,385.3 bits against 7,803.3.  Both are
    O(m (p + log N) H), so the asymptotic consequences (Thm 5, Thm 12) are unaffected.
    Step 1 is counted once since x_N serves every head.
    """
    m, d = check_int(m, "width m"), check_int(d, "model dim d")
    p, n, h = check_int(p, "precision p"), check_int(n, "length N"), check_int(h, "heads H")
    query = float(d * p)
    maximum = float(2 * p * h)
    normaliser = float(2 * (p + _log2(n)) * h)
    values = float(4 * m * p * h)
    return Thm4Bits(
        width=m,
        model_dim=d,
        precision=p,
        length=n,
        heads=h,
        query=query,
        maximum=maximum,
        normaliser=normaliser,
        values=values,
        total=query + maximum + normaliser + values,
        closed_form=float(thm4_closed_form(m, p, n, h)),
    )


# -- value formulas -----------------------------------------------------------------------------

_COR81_GAMMA = 0.25  # Corollary 8.1: diagonal >= 3/4, off-diagonal <= 1/4


def _ceil_log2(s: int) -> int:
    return (s - 1).bit_length()  # ceil(log2 s) for s >= 1, exactly


def _thm1_value(length: int, alphabet: int | None = None) -> int:
    k = paper_k(length, _COR81_GAMMA)
    return k if alphabet is None else _ceil_log2(alphabet) + 2 * k


def _thm6_value(length: int) -> int:
    return 2 * paper_k(length, _COR81_GAMMA) + 3


def _thm7_value(length: int, gamma: float, input_dim: int | None = None) -> int:
    # T(1..2N) with |<T(i),T(j)> - delta_ij| <= gamma/100: Lemma 2 at 2N vectors and gamma/100
    k = paper_k(2 * length, gamma / 100)
    return k if input_dim is None else input_dim + 2 + 3 * k


def _thm13_value(length: int, sparsity: int) -> int:
    r = paper_k(length + 1, _COR81_GAMMA)  # codes T(0..N), T(0) for [BOS]
    return 1 + (sparsity + 1) * r


def _over_p_log(c: int, scale: int) -> Callable[..., float]:
    """(N - c) / (scale (p + log2 N)) as a float."""
    return lambda length, precision: (length - c) / (scale * (precision + _log2(length)))


# -- registry -----------------------------------------------------------------------------------

_BOUNDS: tuple[Bound, ...] = (
    Bound(
        id="separations.lemma2",
        name="Lemma 2 (near-orthogonal sign codes)",
        statement=(
            "For every N there are N vectors in k = O(log N / gamma^2) dimensions with entries "
            "±1/sqrt(k), <T_i,T_i> >= 1 - gamma and <T_i,T_j> <= gamma for i != j; the proof "
            "gives k = ceil(8 ln(2N) / gamma^2)."
        ),
        citation="App. B.3, Lemma 2",
        formula="k = ceil(8 ln(2N) / gamma^2)",
        kind="upper",
        architecture="codes",
        task="near-orthogonal vectors",
        quantity="code width k",
        value_params=("length", "gamma"),
        _value=lambda length, gamma: paper_k(length, gamma),
        notes="The exact Hoeffding constant would give k = 4 ln(2N)/gamma^2 (spec erratum 9).",
    ),
    Bound(
        id="separations.cor8_1",
        name="Corollary 8.1 (codes with margin 1/4)",
        statement=(
            "For every N there are N vectors in k = O(log N) dimensions with entries ±1/sqrt(k), "
            "<T(i),T(i)> >= 3/4 and <T(i),T(j)> <= 1/4 for i != j (Lemma 2 with gamma = 1/4)."
        ),
        citation="App. B.3, Corollary 8.1",
        formula="k = ceil(128 ln(2N))",
        kind="upper",
        architecture="codes",
        task="near-orthogonal vectors",
        quantity="code width k",
        value_params=("length",),
        _value=lambda length: paper_k(length, _COR81_GAMMA),
    ),
    Bound(
        id="separations.thm1",
        name="Theorem 1 (1-layer Transformer for Index Lookup)",
        statement=(
            "For every N there is a 1-layer Transformer of width m = O(log N) and precision "
            "p = O(log N) that solves Index Lookup on all inputs of length at most N."
        ),
        citation="Sec. 3, Theorem 1; App. C.2",
        formula="k = ceil(128 ln(2N)) (Cor 8.1); width = ceil(log2 |Sigma|) + 2k",
        kind="upper",
        architecture="transformer-1layer",
        task="IdxL",
        quantity="code width k, or the embedding width ceil(log2|Sigma|) + 2k given alphabet",
        value_params=("length",),
        optional_params=("alphabet",),
        _value=_thm1_value,
    ),
    Bound(
        id="separations.thm2",
        name="Theorem 2 (RNNs give one-way protocols)",
        statement=(
            "If an RNN whose hidden state has m units of p bits computes f on Sigma^N, then for "
            "every split K < N Alice (s_1..s_K) can send Bob (s_K+1..s_N) h_K, mp bits, one way."
        ),
        citation="Sec. 3, Theorem 2",
        formula="bits = m p (one-way, contiguous split)",
        kind="upper",
        architecture="rnn",
        task="any f: Sigma^N -> {0,1}",
        quantity="bits sent",
        value_params=("width", "precision"),
        _value=lambda width, precision: width * precision,
    ),
    Bound(
        id="separations.thm3",
        name="Theorem 3 (RNNs need width N/p for Index Lookup)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision that solves Index "
            "Lookup on all length-N sequences has m >= N/p."
        ),
        citation="Sec. 3, Theorem 3; App. C.1 (example m = 128, p = 64 in Sec. 6)",
        formula="m >= N / p  (mp >= N)",
        kind="lower",
        architecture="rnn",
        task="IdxL",
        quantity="required width m",
        value_params=("length", "precision"),
        _value=lambda length, precision: _num(Fraction(length, precision)),
        _allows=lambda n, m, p, h: m * p >= n,
        bounds_length=True,
        notes="N counts the symbols before the index token.",
    ),
    Bound(
        id="separations.thm4",
        name="Theorem 4 (1-layer Transformers give short protocols)",
        statement=(
            "For a 1-layer Transformer in TF^1_{m,p,H} on length-N inputs and any partition "
            "S_A, S_B of [N], Alice and Bob compute its output with 3m(p + log N)H bits."
        ),
        citation="Sec. 4, Theorem 4; App. D",
        formula=(
            "bits <= 3 m (p + log2 N) H; itemised: d p + H (2p + 2(p + log2 N) + 4 m p) "
            "(spec erratum 1)"
        ),
        kind="upper",
        architecture="transformer-1layer",
        task="any f computed by TF^1_{m,p,H}, any partition",
        quantity="bits sent (closed form; see thm4_itemised for the itemised count)",
        value_params=("width", "precision", "length"),
        optional_params=("heads",),
        _value=lambda width, precision, length, heads=1: thm4_closed_form(
            width, precision, length, heads
        ),
        uses_heads=True,
        notes="The itemised steps exceed the closed form when d ~ m and log N < 2p/3.",
    ),
    Bound(
        id="separations.lemma1",
        name="Lemma 1 (Dyck-(2,2) with the odd/even split)",
        statement=(
            "If Alice holds the odd and Bob the even positions of s in Sigma^N, deciding "
            "s in Dyck-(2,2) needs at least N - 1 bits (fooling set of all 2^(N-1) members)."
        ),
        citation="Sec. 4.1, Lemma 1; App. E",
        formula="D >= N - 1 bits",
        kind="lower",
        architecture="protocol",
        task="Dyck-(2,2), odd/even partition",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length - 1,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.thm5",
        name="Theorem 5 / 10 (1-layer Transformers on Dyck-(2,2))",
        statement=(
            "A 1-layer Transformer in TF^1_{m,p,H} deciding Dyck-(2,2) on length N has "
            "mH >= (N - 1) / (3(p + log N)) (Theorem 10 restates it with d for m)."
        ),
        citation="Sec. 4.1, Theorem 5; App. E, Theorem 10",
        formula="m H >= (N - 1) / (3 (p + log2 N))",
        kind="lower",
        architecture="transformer-1layer",
        task="Dyck-(2,2)",
        quantity="required m H",
        value_params=("length", "precision"),
        _value=_over_p_log(1, 3),
        _allows=lambda n, m, p, h: _log_allows(3 * m * h, p, n, 1),
        bounds_length=True,
        uses_heads=True,
        even_length=True,
        min_length=2,
        aliases=("separations.thm10",),
        notes="Lemma 1 + Theorem 4 (the paper's Sec. 4.1 says 'Lemmas 4 and 1', spec erratum 2).",
    ),
    Bound(
        id="separations.thm6",
        name="Theorem 6 (2-layer Transformer for Equality)",
        statement=(
            "For every N there is a 2-layer Transformer in TF^2_{m,p,2} with m = O(log N) and "
            "p = O(log N) computing EQ on {0,1}^N; its total size is O((log N)^3)."
        ),
        citation="Sec. 5.1, Theorem 6; App. F.2",
        formula="width d = 2k + 3, k = ceil(128 ln(2N)) (paper prints d = 2 + 2k)",
        kind="upper",
        architecture="transformer-2layer",
        task="EQ",
        quantity="embedding width 2k + 3",
        value_params=("length",),
        _value=_thm6_value,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.thm7",
        name="Theorem 7 (2-layer Transformer for Nearest Neighbour)",
        statement=(
            "For every N there is a 2-layer Transformer in TF^2_{m,p,2} with m = O(log N) and "
            "p = O(log N) solving NstNb on all length <= N inputs meeting the margin assumption."
        ),
        citation="Sec. 5.2, Theorem 7; App. G.2",
        formula="k = ceil(8 ln(4N) / (gamma/100)^2); width d = d' + 2 + 3k",
        kind="upper",
        architecture="transformer-2layer",
        task="NstNb",
        quantity="code width k, or the width d' + 2 + 3k given input_dim d'",
        value_params=("length", "gamma"),
        optional_params=("input_dim",),
        _value=_thm7_value,
        notes="k is O(log N) only for constant margin gamma (spec erratum 8).",
    ),
    Bound(
        id="separations.thm8",
        name="Theorem 8 (RNNs need width N/(2p) for Nearest Neighbour)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision that solves NstNb on "
            "all length-N inputs has m >= N/(2p) (via Disj on N/2 bits through MQAR)."
        ),
        citation="Sec. 5.2, Theorem 8; App. G.1",
        formula="m >= N / (2p)  (2mp >= N)",
        kind="lower",
        architecture="rnn",
        task="NstNb",
        quantity="required width m",
        value_params=("length", "precision"),
        _value=lambda length, precision: _num(Fraction(length, 2 * precision)),
        _allows=lambda n, m, p, h: 2 * m * p >= n,
        bounds_length=True,
    ),
    Bound(
        id="separations.prop9",
        name="Proposition 9 (RNNs need width N/p for associative recall)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision that solves single-"
            "query associative recall on N key-value pairs has m >= N/p."
        ),
        citation="App. C.1, Proposition 9 (proof says 'at most', spec erratum 3)",
        formula="m >= N / p  (mp >= N)",
        kind="lower",
        architecture="rnn",
        task="associative recall",
        quantity="required width m",
        value_params=("length", "precision"),
        _value=lambda length, precision: _num(Fraction(length, precision)),
        _allows=lambda n, m, p, h: m * p >= n,
        bounds_length=True,
        notes="N counts key-value pairs; the sequence x_1 y_1 .. x_N y_N x_q has 2N + 1 tokens.",
    ),
    Bound(
        id="separations.lemma4",
        name="Lemma 4 (RNNs as DFAs)",
        statement=(
            "If an RNN with a time-invariant update agrees with a DFA whose minimal form has n "
            "states on all of Sigma^*, its state size satisfies mp >= log n."
        ),
        citation="App. F.1, Lemma 4 (proof writes m < log n, spec erratum 4)",
        formula="m p >= log2 n  (2^(mp) >= n)",
        kind="lower",
        architecture="rnn",
        task="regular language with n-state minimal DFA",
        quantity="required state bits mp",
        value_params=("states",),
        _value=lambda states: _log2(states),
        _allows=lambda n, m, p, h: _ceil_log2(n) <= m * p,  # 2^(mp) >= n, in integers
        length_name="n (DFA states)",
        notes="Dyck-(2,2) has 7 live states (8 with the sink), spec erratum 10.",
    ),
    Bound(
        id="separations.thm11",
        name="Theorem 11 (RNNs on INEQ)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision computing INEQ on "
            "{0,1}^N has mp >= N/2 (EQ on N/2-bit halves, Fact 2)."
        ),
        citation="App. F.1, Theorem 11",
        formula="m p >= N / 2",
        kind="lower",
        architecture="rnn",
        task="INEQ",
        quantity="required state bits mp",
        value_params=("length",),
        _value=lambda length: length // 2,
        _allows=lambda n, m, p, h: 2 * m * p >= n,
        bounds_length=True,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.thm12",
        name="Theorem 12 (1-layer Transformers on INEQ), explicit form",
        statement=(
            "A 1-layer Transformer of width m, H heads and p-bit precision computing INEQ on "
            "{0,1}^N has mpH = Omega(N); explicitly mH >= N / (6(p + log N)) from Thm 4 + Fact 2."
        ),
        citation="App. F.1, Theorem 12 (explicit form derived, spec Sec. 2 note)",
        formula="m H >= N / (6 (p + log2 N))  (3m(p + log2 N)H >= N/2)",
        kind="lower",
        architecture="transformer-1layer",
        task="INEQ",
        quantity="required m H",
        value_params=("length", "precision"),
        _value=_over_p_log(0, 6),
        _allows=lambda n, m, p, h: _log_allows(6 * m * h, p, n, 0),
        bounds_length=True,
        uses_heads=True,
        even_length=True,
        min_length=2,
        derived=True,
        notes="The paper states only mpH = Omega(N); the constant is Theorem 4's 3m(p+logN)H.",
    ),
    Bound(
        id="separations.thm13",
        name="Theorem 13 (2-layer Transformers for thresholds of k-sparse features)",
        statement=(
            "For every N and h in Thres_{k,N} there is a 2-layer Transformer with k heads, width "
            "m = O(log N) and precision p = O(log N) equal to h on {0,1}^N."
        ),
        citation="App. F.3, Theorem 13",
        formula="width = 1 + (k + 1) r, r = ceil(128 ln(2(N + 1))) (codes T(0..N))",
        kind="upper",
        architecture="transformer-2layer",
        task="Thres_{k,N}",
        quantity="embedding width 1 + (k + 1) r",
        value_params=("length", "sparsity"),
        _value=_thm13_value,
    ),
    Bound(
        id="separations.lemma5",
        name="Lemma 5 (a 2-layer Transformer hard for every balanced partition)",
        statement=(
            "For every balanced partition S_A, S_B of [N] there is a 2-layer Transformer of "
            "width O(log N) and precision O(log N) whose output needs >= N/2 bits to compute."
        ),
        citation="App. F.4, Lemma 5",
        formula="D >= N / 2 bits",
        kind="lower",
        architecture="protocol",
        task="f_{S_A,S_B} (EQ of x_{S_A} and x_{S_B})",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length // 2,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.cor13_1",
        name="Corollary 13.1 (no Theorem-4-style protocol for 2-layer Transformers)",
        statement=(
            "A protocol computing every 2-layer Transformer over every partition with "
            "O(mpH g(N)) bits must have g(N) = Omega(N / (log N)^2)."
        ),
        citation="App. F.4, Corollary 13.1",
        formula="g(N) = Omega(N / (log2 N)^2)",
        kind="lower",
        architecture="protocol",
        task="simulating 2-layer Transformers",
        quantity="N / (log2 N)^2, the order of g(N) (constants hidden)",
        value_params=("length",),
        _value=lambda length: length / _log2(length) ** 2,
        min_length=2,
    ),
    Bound(
        id="separations.fact1",
        name="Fact 1 (Disjointness)",
        statement=(
            "Computing Disj(a, b) = max_i a_i b_i for a, b in {0,1}^N needs at least N bits "
            "deterministically; randomised complexity is Omega(N)."
        ),
        citation="App. B.1, Fact 1",
        formula="D(Disj_N) >= N bits",
        kind="fact",
        architecture="protocol",
        task="Disj",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length,
        notes="N is the length of each party's string.",
    ),
    Bound(
        id="separations.fact2",
        name="Fact 2 (Equality)",
        statement=(
            "Computing EQ(a, b) = [a = b] for a, b in {0,1}^N needs at least N bits "
            "deterministically (randomised O(log N))."
        ),
        citation="App. B.1, Fact 2",
        formula="D(EQ_N) >= N bits",
        kind="fact",
        architecture="protocol",
        task="EQ",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length,
        notes="N is the length of each party's string; INEQ on {0,1}^N is EQ on N/2 bits.",
    ),
    Bound(
        id="separations.fact3",
        name="Fact 3 (Index)",
        statement=(
            "With a in {0,1}^N for Alice and b in [N] for Bob, any one-way protocol from Alice "
            "to Bob computing a_b needs N bits (randomised one-way Omega(N))."
        ),
        citation="App. B.1, Fact 3",
        formula="D^{A->B}(Index_N) >= N bits",
        kind="fact",
        architecture="protocol",
        task="Index",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length,
        notes="Two-way, log N bits suffice (Bob sends b).",
    ),
    Bound(
        id="separations.fact4",
        name="Fact 4 (fooling sets)",
        statement="If f has a fooling set S (Definition 1), then C(f) >= log2 |S|.",
        citation="App. E, Definition 1 and Fact 4",
        formula="C(f) >= log2 |S|",
        kind="fact",
        architecture="protocol",
        task="any f with a fooling set",
        quantity="bits",
        value_params=("size",),
        _value=lambda size: _log2(size),
    ),
)


def _registry() -> tuple[dict[str, Bound], dict[str, str]]:
    by_id: dict[str, Bound] = {}
    alias: dict[str, str] = {}
    for b in _BOUNDS:
        for key in (b.id, *b.aliases):
            if key in by_id or key in alias:
                raise RuntimeError(f"duplicate theorem id {key!r}")  # programming error
        by_id[b.id] = b
        alias.update({a: b.id for a in b.aliases})
    return by_id, alias


_BY_ID, _ALIASES = _registry()


def ids() -> list[str]:
    """Every registered id, aliases included, sorted."""
    return sorted([*_BY_ID, *_ALIASES])


def get(theorem: str) -> Bound:
    """The bound with this id or alias; InputError naming the known ids otherwise."""
    key = _ALIASES.get(theorem, theorem) if isinstance(theorem, str) else None
    if key not in _BY_ID:
        raise InputError(f"unknown theorem {theorem!r}; known: {', '.join(ids())}")
    return _BY_ID[key]


def all_bounds() -> list[Bound]:
    """Every registered bound once (aliases are not repeated), in registry order."""
    return list(_BOUNDS)


def describe(theorem: str, **params: object) -> dict[str, object]:
    """JSON-ready description of bound ``theorem`` evaluated at ``params`` (see Bound.describe)."""
    return get(theorem).describe(**params)
