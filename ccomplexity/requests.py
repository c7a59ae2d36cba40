"""The lower-bound commands as library calls: one validated, keyword-only request each, so that
the Python API reaches everything ``ccx fooling`` and ``ccx cc oneway`` do (the CLI parses its
options into a request, makes this one call and prints the result).

- :class:`ProblemRequest` names a problem: a built-in one of :func:`ccomplexity.problems.make`
  with its options, or a plugin task (:mod:`ccomplexity.plugins`) with ``length`` and
  ``partition``.
- :func:`fooling_set` (Def. 1, Fact 4): the method the problem allows (the symbolic Dyck family
  of Lemma 1 at large N, the exhaustive Dyck set, the diagonal of EQ, the complementary pairs of
  DISJ, the maximum fooling set by clique search with ``exact``, or for a plugin task its greedy
  start), verified from the definition, with its certificate when asked.
- :func:`one_way` (Thm 2, Fact 3): the exact one-way complexity at one cut, or for a plugin
  task without a cut at every cut.
- :func:`rank` (log-rank: D(f) >= ceil(log2 rank over GF(q))) and :func:`exact` (D(f) by
  search over protocol trees, tiny matrices).
- :func:`kg_split` (Lemma B.18 of the KG-looping paper): a path query split after K relations,
  its one-way complexity (dense, or from the graph at any size) and its verified fooling set.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from ccomplexity import problems
from ccomplexity.errors import InputError

FOOLING_METHODS = ("auto", "exhaustive", "symbolic")
_OPTIONS = (
    "types", "depth", "length", "half", "alphabet", "partition", "file", "rows", "cols", "seed",
    "density",
)  # fmt: skip
_PLUGIN_OPTIONS = ("length", "partition")


@dataclass(frozen=True, kw_only=True)
class ProblemRequest:
    """A problem by name and options, as ``ccx fooling`` / ``ccx cc`` take them (None: not
    given). Built-in names take the options of :data:`ccomplexity.problems.PROBLEM_OPTIONS`;
    a plugin task takes ``length`` and ``partition`` (default ``prefix:N//2``)."""

    problem: str
    types: int | None = None
    depth: int | None = None
    length: int | None = None
    half: int | None = None
    alphabet: int | None = None
    partition: str | None = None
    file: str | None = None
    rows: int | None = None
    cols: int | None = None
    seed: int | None = None
    density: float | None = None
    plugin_options: ClassVar[tuple[str, ...]] = _PLUGIN_OPTIONS
    """The options a plugin task takes here (besides its name)."""

    @property
    def is_plugin(self) -> bool:
        return self.problem not in problems.PROBLEMS

    def options(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in _OPTIONS}

    def build(self) -> problems.TwoPartyProblem:
        """The two-party problem; InputError for unknown names and options it does not take."""
        if not self.is_plugin:
            return problems.make(self.problem, **self.options())
        from ccomplexity import plugin_problems, plugins

        if plugins.task_definition(self.problem) is None:
            raise InputError(
                f"unknown problem {self.problem!r}; choose one of {', '.join(problems.PROBLEMS)}"
                ", or a task of a loaded plugin (ccx --plugin FILE.py ...)"
            )
        given = {k: v for k, v in self.options().items() if v is not None}
        extra = sorted(set(given) - set(self.plugin_options))
        if extra:
            listed = ", ".join(f"--{k}" for k in extra)
            takes = ", ".join(f"--{k}" for k in self.plugin_options)
            raise InputError(f"plugin task {self.problem} takes {takes}, not {listed}")
        if self.length is None:
            raise InputError(f"plugin task {self.problem} needs --length")
        return plugin_problems.problem(self.problem, self.length, self.partition)


@dataclass(frozen=True, kw_only=True)
class FoolingRequest(ProblemRequest):
    """:func:`fooling_set`'s request: ``exact`` runs the maximum-fooling-set search (bounded by
    ``seconds`` or ``nodes``); ``method`` picks the Dyck construction (auto, exhaustive up to
    ``EXHAUSTIVE_LIMIT``, symbolic); ``certificate`` asks for the certificate."""

    exact: bool = False
    seconds: float | None = None
    nodes: int | None = None
    method: str = "auto"
    certificate: bool = False
    plugin_options: ClassVar[tuple[str, ...]] = (*_PLUGIN_OPTIONS, "seed")
    """A plugin task's fooling set takes ``seed`` too: the sampled greedy set's."""

    def __post_init__(self) -> None:
        if self.method not in FOOLING_METHODS:
            raise InputError(f"--method must be auto, exhaustive or symbolic, got {self.method!r}")
        if not self.exact and (self.seconds is not None or self.nodes is not None):
            raise InputError("--seconds and --nodes budget the --exact search only")
        if self.method != "auto" and (self.problem != "dyck" or self.exact):
            raise InputError("--method applies to the constructive Dyck fooling set only")
        if self.problem == "dyck" and self.partition is None:
            object.__setattr__(self, "partition", "odd-even")


@dataclass(frozen=True, kw_only=True)
class OneWayRequest(ProblemRequest):
    """:func:`one_way`'s request: ``cut`` K (Alice holds 1..K) or ``partition``; a plugin task
    with neither is measured at every cut."""

    cut: int | None = None
    certificate: bool = False

    def __post_init__(self) -> None:
        if self.cut is not None:
            if self.partition is not None:
                raise InputError("give either --cut or --partition, not both")
            object.__setattr__(self, "partition", f"prefix:{self.cut}")


def fooling_set(request: FoolingRequest) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The fooling set ``request`` asks for, verified from Def. 1: (result, certificate or
    None). The result holds ``size``, ``value``, ``bits`` = ceil(log2 size) (Fact 4),
    ``verified``, the ``method`` and, for a search, ``exact`` and ``upper_bound``."""
    from ccomplexity import certificates, lower_bounds
    from ccomplexity.integers import ceil_log2

    start = time.perf_counter()
    req = request
    if req.is_plugin:
        from ccomplexity import plugin_bounds

        req.build()  # the options are checked
        result, cert = plugin_bounds.fooling_set(
            req.problem,
            req.length,
            req.partition,
            exact=req.exact,
            seconds=req.seconds,
            nodes=req.nodes,
            seed=req.seed or 0,
            certificate=req.certificate,
        )
        result["seconds"] = round(time.perf_counter() - start, 3)
        return result, cert
    prob = req.build()
    result: dict[str, Any] = prob.describe()
    cert = None
    symbolic = (
        req.problem == "dyck"
        and not req.exact
        and (
            req.method == "symbolic"
            or (req.method == "auto" and req.length > lower_bounds.EXHAUSTIVE_LIMIT)
        )
    )
    if symbolic:
        if prob.partition.spec != "odd-even":
            raise InputError("the symbolic certificate covers the odd-even partition only")
        sym = lower_bounds.dyck_fooling_symbolic(req.types, req.depth, req.length)
        result.update(method="symbolic", **sym)
        if req.certificate and sym["verified"]:
            cert = certificates.symbolic_dyck_certificate(
                req.types, req.depth, req.length, sym["count"]
            )
    else:
        if req.exact:
            found = lower_bounds.max_fooling_set(prob, seconds=req.seconds, nodes=req.nodes)
            result.update(method="exact-clique", exact=found.exact)
            result.update(upper_bound=found.upper_bound, nodes=found.nodes)
        elif req.problem == "dyck":
            if prob.partition.spec != "odd-even":
                raise InputError(
                    "the constructive Dyck fooling set is for odd-even; use --exact for others"
                )
            found = lower_bounds.dyck_fooling_set(prob)
            result["method"] = "exhaustive"
        elif req.problem == "equality":
            found = lower_bounds.equality_fooling_set(prob)
            result["method"] = "diagonal"
        elif req.problem == "disjointness":
            found = lower_bounds.disjointness_fooling_set(prob)
            result["method"] = "complementary-pairs"
        else:
            raise InputError(f"no constructive fooling set for {req.problem}; use --exact")
        check = lower_bounds.verify_fooling_set(prob, found.rows, found.cols, found.value)
        result.update(size=check.size, value=int(found.value), verified=check.valid)
        result["bits"] = ceil_log2(check.size)
        if not check.valid:
            result["reason"] = check.reason
        if req.certificate and check.valid:
            cert = certificates.fooling_set_certificate(prob, found.rows, found.cols, found.value)
    if req.certificate and cert is None:
        raise InputError("no certificate written: the fooling set did not verify")
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result, cert


def one_way(request: OneWayRequest) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The exact one-way complexity Alice -> Bob (Thm 2): (result, certificate or None). A
    plugin task with no cut or partition: ``per_cut`` [{cut, distinct_rows, bits}] for every
    K and ``bits`` their most (no certificate)."""
    from ccomplexity import certificates, lower_bounds

    start = time.perf_counter()
    req = request
    if req.is_plugin and req.partition is None:
        from ccomplexity import plugin_bounds

        req.build()  # the options are checked as for one cut
        if req.certificate:
            raise InputError(
                "a certificate is written for one cut: give --cut K (every cut has its own)"
            )
        per_cut, origin = plugin_bounds.one_way_per_cut(req.problem, req.length)
        result = {"problem": req.problem, "length": req.length, "method": "per-cut"}
        result.update(automaton=origin, per_cut=per_cut)
        result["bits"] = max(row["bits"] for row in per_cut)
        result["seconds"] = round(time.perf_counter() - start, 3)
        return result, None
    if req.is_plugin and req.partition.startswith("prefix:"):
        from ccomplexity import plugin_bounds

        prob = req.build()
        result, cert = plugin_bounds.one_way_at(req.problem, req.length, len(prob.partition.alice))
        result["seconds"] = round(time.perf_counter() - start, 3)
        return result, cert if req.certificate else None
    prob = req.build()
    result = prob.describe()
    if req.is_plugin:  # another partition: the dense matrix, priced on the word function
        from ccomplexity import plugin_bounds

        plugin_bounds.price_evaluations(
            req.problem, req.length, prob.n_rows * prob.n_cols, "the matrix"
        )
    if req.problem == "dyck" and prob.partition.spec.startswith("prefix:"):
        k = len(prob.partition.alice)
        res = lower_bounds.one_way_bits_dyck(req.types, req.depth, req.length, k)
        result["method"] = "symbolic-dfa"
    else:
        res = lower_bounds.one_way_bits(prob)
        result["method"] = "dense"
    result.update(distinct_rows=res.distinct_rows, bits=res.bits)
    cert = None
    if req.certificate:
        if res.rows is None:
            raise InputError("the symbolic method has no explicit witness; use a prefix length")
        cert = certificates.one_way_certificate(prob, res.rows, res.cols)
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result, cert


@dataclass(frozen=True, kw_only=True)
class RankRequest(ProblemRequest):
    """:func:`rank`'s request: the field GF(``prime``); ``certificate``: a nonsingular
    submatrix as witness."""

    prime: int = 2_147_483_647
    certificate: bool = False


@dataclass(frozen=True, kw_only=True)
class ExactRequest(ProblemRequest):
    """:func:`exact`'s request: ``tree`` includes the optimal protocol tree."""

    tree: bool = False


def rank(request: RankRequest) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(result, certificate or None): the exact rank of the communication matrix over
    GF(prime) and ``bits`` = ceil(log2 rank), a lower bound on D(f)."""
    from ccomplexity import certificates, lower_bounds
    from ccomplexity.integers import ceil_log2

    start = time.perf_counter()
    prob = request.build()
    res = lower_bounds.rank_mod_p(prob, request.prime)
    result: dict[str, Any] = prob.describe()
    result.update(rank=res.rank, prime=request.prime, bits=ceil_log2(max(res.rank, 1)))
    cert = None
    if request.certificate:
        if res.rank == 0:
            raise InputError("rank 0: there is nothing to certify")
        cert = certificates.rank_certificate(prob, res.rows, res.cols, request.prime)
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result, cert


def exact(request: ExactRequest) -> dict[str, Any]:
    """The exact deterministic two-way complexity D(f) (``bits``) by search over protocol
    trees, with the tree when asked."""
    from ccomplexity import lower_bounds

    start = time.perf_counter()
    prob = request.build()
    res = lower_bounds.exact_bits(prob)
    result: dict[str, Any] = prob.describe()
    result["bits"] = res.bits
    if request.tree:
        result["tree"] = res.tree
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


@dataclass(frozen=True, kw_only=True)
class KgSplitRequest:
    """A q-hop path query over the seeded matching graph of ``entities`` and ``relations``,
    Alice holding the start and r_1..r_K (``cut`` K); ``certificate``: the fooling set's."""

    entities: int
    relations: int
    hops: int
    cut: int
    seed: int = 0
    certificate: bool = False


def kg_split(request: KgSplitRequest) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(result, certificate or None): ``distinct_rows`` and ``one_way_bits`` (dense within the
    dense limit, else from the graph, its witness re-checked), and the fooling set of size E
    (``fooling_size``, ``fooling_verified``, ``fooling_bits``)."""
    from ccomplexity import certificates, lower_bounds

    start = time.perf_counter()
    r = request
    problem = problems.kg_query(r.entities, r.relations, r.hops, r.cut, r.seed)
    result: dict[str, Any] = problem.describe()
    if problem.n_rows * problem.n_cols <= problems.DENSE_LIMIT:
        one_way_, result["method"] = lower_bounds.one_way_bits(problem), "dense"
    else:
        one_way_, result["method"] = lower_bounds.one_way_bits_kg(problem), "symbolic"
        if not lower_bounds.check_one_way_witness(problem, one_way_.rows, one_way_.cols):
            raise RuntimeError("the one-way witness does not separate its rows")  # a bug
    result.update(distinct_rows=one_way_.distinct_rows, one_way_bits=one_way_.bits)
    found = lower_bounds.kg_fooling_set(problem)
    check = lower_bounds.verify_fooling_set(problem, found.rows, found.cols, found.value)
    result.update(fooling_size=check.size, fooling_verified=check.valid, fooling_bits=found.bits)
    cert = None
    if r.certificate:
        if not check.valid:
            raise InputError("no certificate written: the fooling set did not verify")
        cert = certificates.fooling_set_certificate(problem, found.rows, found.cols, found.value)
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result, cert


def request_from(cls: type, options: dict[str, Any]) -> Any:
    """``cls`` built from the matching keys of ``options`` (a command's parsed options)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in options.items() if k in names})
