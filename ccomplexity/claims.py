"""The claims table: which bound constrains which task on which family of models, as data.

One row per link "bound B speaks about task T on models of family F", saying how B's parameters
are read from a model (m: its whole recurrent state in numbers, its width per head, or its width;
H: its heads or 1; p: the precision used) and naming what realises it: the hand-wired
construction (``ccx construct --task``) of an upper bound, the reduction (``ccx protocol reduce``)
that runs a lower bound's protocol on a model. Thresholds, the figures, the reductions and
``bits_used`` read this table; nothing else writes the link down. Adding a claim is one row.

Families are the model registry's (``models.FAMILIES``: ``recurrent``, ``attention``, ...); this
module names them as strings so that it never imports torch (a test checks them against the
registry). Tasks are the training tasks' names where one exists (``simulations.tasks``), else the
paper's problem (e.g. ``nearest-neighbour``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ccomplexity import bounds, plugins
from ccomplexity.errors import InputError

ROLES = ("lower", "upper")
M_READS = ("state_numel", "width/heads", "width")
"""How m is read from a model: the numbers of its whole recurrent state (Thm 2's message), the
width of one attention head (what Thm 4's protocol sends per head), or its width."""
H_READS = ("heads", "1")


@dataclass(frozen=True)
class Claim:
    """Bound ``bound_id`` constrains (``lower``) or is realised on (``upper``) ``task`` for models
    of ``family`` (with exactly ``layers`` layers, when given; ``held``: only models trained at
    p bits, which hold their protocol's numbers on a p-bit grid (True), only the others (False),
    or any (None))."""

    task: str
    family: str
    bound_id: str
    role: str
    m: str = "width"
    h: str = "1"
    layers: int | None = None
    construction: str | None = None
    reduction: str | None = None
    problem: str | None = None
    note: str = ""
    reads: Mapping[str, str] = field(default_factory=dict)
    """Further parameters read from a model (e.g. experts, loops), name -> model attribute."""
    held: bool | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise InputError(f"claim {self.bound_id}: role must be one of {ROLES}")
        if self.m not in M_READS or self.h not in H_READS:
            raise InputError(f"claim {self.bound_id}: m reads {M_READS}, H reads {H_READS}")
        bounds.get(self.bound_id)  # unknown ids fail at import

    @property
    def bound(self) -> bounds.Bound:
        return bounds.get(self.bound_id)

    def matches(
        self, task: str, family: str, layers: int | None = None, held: bool | None = None
    ) -> bool:
        """Whether this claim speaks about a model of ``family`` with ``layers`` on ``task``
        (``held``: whether it trained at p bits; None: either)."""
        if self.task != task or self.family != family:
            return False
        if self.held is not None and held is not None and self.held != held:
            return False
        return self.layers is None or layers is None or self.layers == layers

    def model_params(self, model: Mapping[str, Any], precision: int) -> dict[str, Any]:
        """m, p, H (and where m came from) of a model described by ``model``: its ``width``,
        ``heads`` (None when it has none) and ``state_numel`` (None when unknown)."""
        width, heads = model["width"], model.get("heads") or 1
        h = heads if self.h == "heads" else 1
        if self.m == "state_numel":
            if model.get("state_numel"):
                return {"m": model["state_numel"], "p": precision, "H": h, "m_is": "state_numel"}
            return {"m": width, "p": precision, "H": h, "m_is": "width (no state_numel stored)"}
        if self.m == "width/heads":
            if width % heads:
                raise InputError(f"width {width} is not a multiple of heads {heads}")
            return {"m": width // heads, "p": precision, "H": h, "m_is": "width / heads"}
        return {"m": width, "p": precision, "H": h, "m_is": "width"}

    def describe(self) -> dict[str, Any]:
        b = self.bound
        return {
            "task": self.task,
            "family": self.family,
            "layers": self.layers,
            "bound_id": self.bound_id,
            "role": self.role,
            "reads": {"m": self.m, "H": self.h, "p": "precision", **self.reads},
            "construction": self.construction,
            "reduction": self.reduction,
            "problem": self.problem,
            "held": self.held,
            "statement": b.name,
            "formula": b.formula,
            "note": self.note,
        }


EQUALITY_TASKS = ("eq-random", "eq-one", "eq-ncp")

CLAIMS: tuple[Claim, ...] = (
    # -- separations: index lookup (Thm 1 against Thm 3) -------------------------------------
    Claim("index-lookup", "recurrent", "separations.thm3", "lower", m="state_numel",
          reduction="index", problem="separations.fact3",
          note="Thm 2's message is the whole state; Index needs N one-way bits"),
    Claim("index-lookup", "attention", "separations.thm1", "upper", layers=1,
          construction="index-lookup", note="width ceil(log2 |Sigma|) + 2k with codes of width k"),
    # -- separations: Dyck-(2,2) (Thm 5 against a small DFA-RNN) ------------------------------
    Claim("dyck", "attention", "separations.thm5", "lower", m="width/heads", h="heads", layers=1,
          reduction="dyck", problem="separations.lemma1", held=False,
          note="the single-output Thm 4 protocol under the odd/even split, Lemma 1's fooling set"),
    Claim("dyck", "attention", "separations.thm5_held", "lower", m="width/heads", h="heads",
          layers=1, problem="separations.lemma1", held=True,
          note="trained at p bits: the single-output protocol of its held numbers, Lemma 1"),
    Claim("dyck", "recurrent", "separations.lemma4", "upper", m="state_numel",
          construction="dyck", reduction="dyck",
          note="the minimal DFA as a ReLU RNN: ceil(log2 8) = 3 state bits suffice"),
    # -- separations: equality (Thm 6 against Thm 11 and Thm 12) ------------------------------
    *(Claim(task, "recurrent", "separations.thm11", "lower", m="state_numel",
            reduction="equality", problem="separations.fact2",
            note="Thm 2 at the middle cut; EQ on N/2 bits needs N/2 bits")
      for task in EQUALITY_TASKS),
    *(Claim(task, "attention", "separations.thm12", "lower", m="width/heads", h="heads", layers=1,
            problem="separations.fact2", held=False,
            note="the single-output Thm 4 protocol at the middle cut")
      for task in EQUALITY_TASKS),
    *(Claim(task, "attention", "separations.thm12_held", "lower", m="width/heads", h="heads",
            layers=1, problem="separations.fact2", held=True,
            note="trained at p bits: the single-output protocol of its held numbers")
      for task in EQUALITY_TASKS),
    *(Claim(task, "attention", "separations.thm6", "upper", layers=2, construction="equality",
            note="two layers: attend i -> i - N/2, XOR, average")
      for task in EQUALITY_TASKS),
    # -- separations: nearest neighbour / disjointness (Thm 8) ---------------------------------
    Claim("nearest-neighbour", "recurrent", "separations.thm8", "lower", m="state_numel",
          reduction="disjointness", problem="separations.fact1",
          note="Disj on N/2 bits through MQAR; no training task (the reduction runs on tokens)"),
    # -- mixture of parrots: length-2 path (Thm 3.1 against Thm 3.2), memorisation (3.4, 3.5) --
    # The paper's class is models' concat-transformer, family "concat-attention": heads of full
    # width m concatenated, so m is the width and H the heads; "length" is |V| on length2-path
    # and the number of examples n on memorize.
    Claim("length2-path", "concat-attention", "parrots.thm3_1", "lower", m="width", h="heads",
          layers=1, reduction="length2-path", problem="separations.fact1",
          reads={"experts": "experts"}, held=False,
          note="one-way: Alice sends Z_A and L_A per head, H(m+1) numbers; any K (Bob routes)"),
    Claim("length2-path", "concat-attention", "parrots.thm3_1_exact", "lower", m="width",
          h="heads", layers=1, problem="separations.fact1", reads={"experts": "experts"},
          held=True, note="trained at p bits: Alice's exact sums, the message counted exactly"),
    Claim("length2-path", "concat-attention", "parrots.thm3_2", "upper", layers=1,
          construction="length2-path", note="width |V|, uniform attention, threshold psi"),
    Claim("length2-path", "concat-attention", "parrots.cor3_3", "lower", m="width", h="heads",
          layers=1, reads={"experts": "experts"},
          note="parameter-matched: m_s of K experts against Thm 3.1's width"),
    Claim("length2-path", "attention", "parrots.thm3_1", "lower", m="width/heads", h="heads",
          layers=1, reads={"experts": "experts"},
          note="the zoo transformer with or without experts: its query, positions and residual "
               "are public, so Lemma A.3's protocol applies with m = width / heads"),
    Claim("memorize", "concat-attention", "parrots.thm3_4", "upper", layers=1,
          construction="memorize", reads={"experts": "experts"},
          note="A.12: random router, one A.10 expert per router cell; A.11 for K = 1"),
    Claim("memorize", "concat-attention", "parrots.thm3_5", "lower", layers=1,
          note="counting: binds total parameters (dense or MoE), not active ones"),
    # -- layer looping (knowledge graphs): q-hop path queries, Thm 5.2 against Thm 5.1 ----------
    Claim("kg-path", "attention", "kg.thm_b19", "lower", reads={"layers": "layers"},
          note="parameters, not width: relation product models with L <= q layers under "
               "Assumption B.17; E, R and q are the task's"),
    Claim("kg-path", "attention", "kg.thm5_1", "upper", construction="kg-path",
          note="q stacked (substitute, lookup) blocks, each storing every triple"),
    # the looped family: one (substitute, lookup) block looped q times stores each triple once
    Claim("kg-path", "looped", "kg.prop_b13", "upper", construction="kg-path",
          reads={"loops": "loops"}, note="dense lookup, T (3b + 1) + 2 parameters for any q"),
    Claim("kg-path", "looped", "kg.thm5_3", "upper", construction="kg-path",
          reads={"loops": "loops", "experts": "experts"},
          note="lookup by sqrt(T) experts, top-1 by head range: O(sqrt T) active per row"),
    Claim("kg-path", "looped", "kg.lemma_b18", "lower", reads={"permutations": "relations"},
          note="any model: R permutations of E entities at log2 E bits per parameter; looping "
               "does not escape it (Thm B.19 counts layers, so it is not claimed here)"),
    # -- looped-reasoning: loops against n and p; family "looped" (a k-layer block looped L
    # times has depth kL, so no claim about one-layer transformers may match it) ------------
    Claim("group-composition", "looped", "looped.thm2_1", "upper", layers=1,
          construction="group-composition", reads={"loops": "loops", "group": "task option"},
          note="1-layer block, 2 heads, ceil(lg n) loops; Algorithm 2 (ccx looped rounds)"),
    Claim("group-composition", "recurrent", "looped.word_problem", "lower", m="state_numel",
          note="the state must tell the |G| running products apart: m p >= ceil(lg |G|)"),
    Claim("p-hop", "looped", "looped.cor2_3", "upper", layers=1,
          reads={"loops": "loops", "hops": "task option"},
          note="Thm 2.2 on Thm B.6 (R = 3); pointer doubling in floor(lg p) + 2 rounds"),
    Claim("p-hop", "attention", "looped.thmB_6", "upper",
          reads={"layers": "layers", "hops": "task option"},
          note="non-looped: floor(lg p) + 2 layers, at most 3 distinct"),
)  # fmt: skip


def claims(
    task: str | None = None,
    family: str | None = None,
    bound_id: str | None = None,
    role: str | None = None,
    reduction: str | None = None,
) -> list[Claim]:
    """The rows matching every given field, in table order; a family no claim speaks of is an
    InputError (a misspelt filter would otherwise match nothing, silently)."""
    families = list(dict.fromkeys(c.family for c in CLAIMS))
    if family is not None and family not in families:
        raise InputError(f"no claim on family {family!r}; families: {', '.join(families)}")
    return [
        c
        for c in CLAIMS
        if (task is None or c.task == task)
        and (family is None or c.family == family)
        and (bound_id is None or c.bound_id == bound_id or bound_id in c.bound.aliases)
        and (role is None or c.role == role)
        and (reduction is None or c.reduction == reduction)
    ]


def reduction_claim(
    reduction: str, family: str, task: str | None = None, layers: int | None = None
) -> Claim:
    """The row reduction ``reduction`` rests on for a model of ``family`` (trained on ``task``
    with ``layers`` layers, when known): its bound and the communication problem it runs.
    InputError names what the table offers when no row fits."""
    rows = claims(reduction=reduction, family=family)
    if not rows:
        offered = sorted({c.family for c in claims(reduction=reduction)})
        raise InputError(
            f"no claim rests on reduction {reduction!r} for {family} models; the table has it "
            f"for {', '.join(offered) or 'no family'}"
        )
    if task is not None and not (rows := [c for c in rows if c.task == task]):
        tasks = sorted({c.task for c in claims(reduction=reduction, family=family)})
        raise InputError(
            f"reduction {reduction!r} on {family} models speaks about {', '.join(tasks)}, "
            f"not a model trained on {task}"
        )
    fitting = [c for c in rows if c.matches(c.task, family, layers)]
    if not fitting:
        raise InputError(
            f"reduction {reduction!r} on {family} models needs {rows[0].layers} layer(s), "
            f"got {layers}"
        )
    return fitting[0]


def lower_bound_for(
    task: str, family: str, layers: int | None = None, held: bool = False
) -> Claim | None:
    """The lower-bound claim a (task, family, layers) model is drawn against (``held``: one
    trained at p bits), or None."""
    found = [c for c in CLAIMS if c.role == "lower" and c.matches(task, family, layers, held)]
    return found[0] if found else None


def tasks() -> list[str]:
    """Every task some claim speaks about, in table order."""
    return list(dict.fromkeys(c.task for c in CLAIMS))


plugins.declare("task", tasks())
