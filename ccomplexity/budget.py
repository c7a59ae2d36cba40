"""One budget of memory and work, and the estimates every command checks against it first.

Each limit of :mod:`ccomplexity.limits` bounds one option alone; what a command costs is their
product (a batch times a length times a width, N times a depth, examples squared). So every
command computes, from all its arguments together, the memory of the largest thing it is about
to build and the work it is about to do, and calls :func:`check` before it allocates anything:
over the budget is refused at once with one line naming the product, the budget and how to raise
it (:class:`~ccomplexity.errors.InputError`, exit status 2 from ``ccx``).

The budget:

- **memory**, bytes of the arrays (and exact integers) a command holds at once: by default
  :data:`MEMORY_DEFAULT` (8 GiB, a third of a 24 GiB machine, so that two commands and the
  system fit beside each other); ``CCX_MEMORY_BUDGET`` raises or lowers it (``16G``, ``512M``,
  or bytes). When the process runs under an address-space limit (``ulimit -v``, ``RLIMIT_AS``)
  the budget is at most what that limit leaves free, so a command refuses instead of being
  killed.
- **work**, elementary steps (array elements touched, machine words of exact integer
  arithmetic, states times symbols of an automaton): by default :data:`WORK_DEFAULT` (2^32,
  seconds of one core); ``CCX_WORK_BUDGET`` raises or lowers it (``4G``, or a number).

The estimates live here, one function per kind of work, so that commands do not each invent
their own. They are upper bounds up to a small constant, computed with integers only: an
argument of any size gives a finite answer at once.

The module stays whole (about 520 lines): one estimate per kind of work beside the one
budget they are checked against, so that a command's price and its refusal read in one place.
"""

from __future__ import annotations

import os
import re
from math import isqrt

from ccomplexity.errors import InputError

MEMORY_ENV = "CCX_MEMORY_BUDGET"
WORK_ENV = "CCX_WORK_BUDGET"
MEMORY_DEFAULT = 8 << 30
"""Default memory budget: 8 GiB."""
WORK_DEFAULT = 1 << 32
"""Default work budget: 2^32 elementary steps (a few seconds of one core)."""
WORD_BITS = 30
"""Bits per digit of CPython's exact integers (their arithmetic is counted in these digits)."""

_SIZE = re.compile(r"\s*(\d+)\s*([kmgt]?)(i?b?)\s*", re.IGNORECASE)
_UNITS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}


def parse_size(text: str, what: str) -> int:
    """``text`` as a positive number of units: ``123``, ``512M``, ``16G``, ``16GiB``, ``1T``
    (powers of 1024). Anything else is an InputError naming ``what``."""
    match = _SIZE.fullmatch(text)
    if match is None or len(match.group(1)) > 30:
        raise InputError(
            f"{what} must be a number with an optional unit K, M, G or T, got {text!r}"
        )
    value = int(match.group(1)) << _UNITS[match.group(2).lower()]
    if value < 1:
        raise InputError(f"{what} must be positive, got {text!r}")
    return value


def _address_space_left() -> int | None:
    """Bytes of address space this process may still map under its RLIMIT_AS (None: no limit,
    or not knowable here)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    used = 0
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) << 10
                    break
    except OSError:
        pass
    return max(0, soft - used)


def memory_budget() -> int:
    """Bytes a command may hold at once: ``CCX_MEMORY_BUDGET`` (default :data:`MEMORY_DEFAULT`),
    and at most what an address-space limit on this process leaves free."""
    text = os.environ.get(MEMORY_ENV)
    budget = MEMORY_DEFAULT if text is None else parse_size(text, MEMORY_ENV)
    left = _address_space_left()
    return budget if left is None else min(budget, left)


def work_budget() -> int:
    """Elementary steps a command may take: ``CCX_WORK_BUDGET`` (default :data:`WORK_DEFAULT`)."""
    text = os.environ.get(WORK_ENV)
    return WORK_DEFAULT if text is None else parse_size(text, WORK_ENV)


def size_text(n: int) -> str:
    """Bytes in words: ``3.0 GiB``; any size of integer, never a long number."""
    if n.bit_length() > 80:
        return f"2^{n.bit_length() - 1} bytes or more"
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def count_text(n: int) -> str:
    """A count in words: ``1.2e+10``; any size of integer, never a long number."""
    if n < 10**6:
        return str(n)
    if n.bit_length() > 64:
        return f"about 2^{n.bit_length() - 1}"
    return f"{float(n):.1e}"


def check(what: str, memory: int = 0, work: int = 0, instead: str = "") -> None:
    """Refuse ``what`` (InputError, one line) when it needs more than the memory budget
    (``memory`` bytes) or the work budget (``work`` steps). ``instead`` says what to use."""
    tail = f": {instead}" if instead else ""
    if memory > 0:
        budget = memory_budget()
        if memory > budget:
            raise InputError(
                f"{what} needs {size_text(memory)} of memory; the budget is {size_text(budget)} "
                f"(raise it with {MEMORY_ENV}){tail}"
            )
    if work > 0:
        budget = work_budget()
        if work > budget:
            raise InputError(
                f"{what} takes {count_text(work)} steps; the budget is {count_text(budget)} "
                f"(raise it with {WORK_ENV}){tail}"
            )


def exact_digits(bits: int) -> int:
    """CPython digits of an exact integer of ``bits`` bits."""
    return bits // WORD_BITS + 1


def product_steps(digits: int) -> int:
    """Steps of one product of two exact integers of ``digits`` digits: Karatsuba,
    digits^log2(3), bounded here by digits^1.5 * 2 (integers only)."""

    return 2 * digits * isqrt(digits) + 1


# --- estimates, one per kind of work ----------------------------------------------------------


def array_bytes(*shape: int, item: int = 8) -> int:
    """Bytes of a dense array of ``shape`` with ``item`` bytes per element."""
    out = item
    for side in shape:
        out *= max(0, side)
    return out


def dyck_count(types: int, depth: int, length: int) -> tuple[int, int]:
    """(memory, work) of counting Dyck-(n,k) words of length N exactly by the transfer matrix
    over stack heights 0..K, K = min(k, N/2), raised to the N-th power by squaring: (K+1)^3
    products per squaring of integers of up to N lg(n+1) bits, the last squarings dominating."""
    top = min(depth, length // 2)
    side = top + 1
    digits = exact_digits(length * types.bit_length() + 1)
    memory = 3 * side * side * digits * 4
    squarings = max(1, length.bit_length())
    work = side**3 * (3 * product_steps(digits) + squarings)
    return memory, work


def dyck_table(types: int, depth: int, length: int) -> tuple[int, int]:
    """(memory, work) of the table of completions a uniform Dyck sampler draws from: (N+1) x
    (K+1) exact integers of up to N lg(n+1) bits, each filled by Python arithmetic and divided
    once into a probability."""
    cells = (length + 1) * (min(depth, length // 2) + 1)
    digits = exact_digits(length * types.bit_length() + 1)
    return cells * (digits * 2 + 40), cells * (digits * 4 + 300)  # row r: r/N of the digits


def kg_graph(entities: int, relations: int) -> tuple[int, int]:
    """(memory, work) of drawing a matching knowledge graph: R permutations of the E entities
    (each drawn and checked in Python: a fixed cost per relation) and their inverses."""
    return array_bytes(relations, entities) * 4, relations * ((1 << 16) + 16 * entities)


def words(rows: int, length: int, item: int = 8, copies: int = 4) -> int:
    """Memory of ``rows`` words of ``length`` symbols, with the few same-shaped arrays that
    labelling or sampling them makes beside (``copies``)."""
    return array_bytes(rows, length, item=item) * copies


def dyck_membership(rows: int, length: int, depth: int) -> tuple[int, int]:
    """(memory, work) of deciding Dyck membership of ``rows`` words of length N with a stack of
    min(k, N/2) + 1 cells per word."""
    top = min(depth, length // 2) + 1
    return words(rows, length) + array_bytes(rows, top), rows * (length + top)


def automaton(states: int, symbols: int, rounds: int | None = None) -> tuple[int, int]:
    """(memory, work) of building and minimising a complete DFA of ``states`` x ``symbols``
    transitions by partition refinement (``rounds``: at most ``states``), each round sorting
    the states' rows of successor classes (and a fixed cost per round), twice (``ccx dfa``
    minimises again to read off the minimal DFA)."""
    cells = states * symbols
    rounds = states if rounds is None else rounds
    return 6 * array_bytes(cells), max(1, rounds) * (cells * 64 + (1 << 19)) * 2


def pairwise(points: int, dim: int, item: int = 8) -> tuple[int, int]:
    """(memory, work) of all pairwise inner products of ``points`` vectors in ``dim``
    dimensions (a Gram or distance matrix)."""
    return array_bytes(points, points, item=item) * 2 + array_bytes(points, dim, item=item), (
        points * points * dim
    )


def pointer_chase(rows: int, length: int, hops: int, alphabet: int) -> tuple[int, int]:
    """(memory, work) of the p-hop words, labels and pointer-doubling simulator on ``rows``
    words of length N over |Sigma| symbols: find_1 by a running maximum over the one-hot table
    (rows x N x |Sigma| positions, a few copies), the planted generator comparing each position
    with each of the p + 1 links of its chain (rows x N x (p+1)), the labels following p hops,
    the simulator lg p doublings of rows x N pointer tables."""
    cells = rows * length
    memory = words(rows, length, copies=8) + cells * (hops + 1) * 3 + cells * alphabet * 8 * 4
    work = cells * (hops + 1) * 8 + cells * (hops.bit_length() + 4) * 16 + cells * alphabet * 80
    return memory, work


def memorizer(examples: int, length: int, dim: int, experts: int, trials: int) -> tuple[int, int]:
    """(memory, work) of checking the A.11 / A.12 memoriser on ``trials`` data sets of
    ``examples`` sequences of N vectors in R^m: each expert's neurons evaluated at its own
    examples (about (n/K)^2 pre-activations, twice for an uneven router), and the model's
    K x m x (largest load) weights. A product of BLAS counts a quarter step per multiply-add."""
    block = 3 * examples * examples // (2 * max(1, experts)) + examples
    data = array_bytes(examples, length, dim) * 2
    return data + array_bytes(block) * 3 + array_bytes(experts * dim + dim, examples) * 2, (
        trials * (block * dim // 4 + examples * length * dim * 4)
    )


def code_search(vectors: int, paper_k: int) -> tuple[int, int]:
    """(memory, work) of the seeded search for the smallest code width (:func:`ccomplexity.codes.
    smallest_k`): Gram matrices of N vectors at widths doubling towards about paper k, then a
    binary search, a few families each (half a step per multiply-add of integer signs)."""
    return array_bytes(vectors, 4 * paper_k) * 2 + array_bytes(vectors, vectors) * 3, (
        vectors * vectors * paper_k * (4 + paper_k.bit_length()) // 2
    )


REFINE_STEPS = 1 << 15
"""Steps charged per refinement step of an automaton's exact-length classes (one ``np.unique``
over its rows: 47 us measured for Dyck-(2,2)'s 8 states on the 2-core machine under load;
``cc oneway --problem dyck`` at N = 10^6 took 47 s of CPU)."""


def refinements(states: int, symbols: int, steps: int) -> tuple[int, int]:
    """(memory, work) of ``steps`` rounds of refining the classes of a DFA's ``states`` x
    ``symbols`` table one length at a time, every round's classes kept."""
    return array_bytes(steps + 1, states) * 2, steps * (states * symbols * 16 + REFINE_STEPS)


def dyck_automaton(types: int, depth: int, states: int) -> tuple[int, int]:
    """(memory, work) of building the Dyck-(n,k) DFA's ``states`` stacks (each a tuple of up to
    k symbols) and minimising it (rounds up to k + 2: stacks of other heights part by their
    closers)."""
    memory, work = automaton(states + 1, 2 * types, depth + 2)
    height = min(depth, states)
    return memory + states * (height + 8) * 16, work + states * height * types


MODULE_STEPS = 1 << 21
"""Steps charged per layer (or expert) of a torch module built: Python objects, not numbers."""


def model_registry(models: int, layers: int, experts: int) -> int:
    """Work of building ``models`` architectures of ``layers`` layers each (shapes only, on
    torch's meta device), mixtures with ``experts`` experts per layer."""
    return models * layers * (1 + 2 * experts) * MODULE_STEPS


EVALUATE_STEPS = 40
"""Steps charged per symbol a two-party function is evaluated on (vectorised, in chunks)."""


def evaluated(pairs: int, length: int) -> int:
    """Work of evaluating a two-party function on ``pairs`` pairs of words of ``length``
    symbols together (a certificate's cross matrix)."""
    return pairs * length * EVALUATE_STEPS


PLAN_STEPS = 1 << 18
"""Steps charged per run of a sweep's grid, planned before anything runs (its config validated:
ranges, task, model size on the meta device, its batch's memory): 0.8-1.5 ms measured per run
(2.5 ms on the 2-core machine under load), so that the default work budget plans grids of up
to 16,384 runs (the 10,000 a spec may have without ``--allow-large-grid``), priced from the
grid's size before one is expanded."""


def planned(runs: int) -> int:
    """Work of planning a sweep of ``runs`` runs."""
    return runs * PLAN_STEPS


STORE_READ_STEPS = 256
"""Steps charged per byte of a results store read whole (every row decoded and checked, and
what its readers do per row): ``ccx figure thresholds`` took 8.8 s of CPU on a store of 32 MiB
(21,655 runs) on the 2-core machine under load, so that the default work budget reads stores
of up to 16 MiB within a few seconds."""
STORE_READ_MEMORY = 12
"""Bytes held per byte of a store read whole (its rows as Python dicts)."""


def store_read(size: int) -> tuple[int, int]:
    """(memory, work) of reading every run of a results store of ``size`` bytes."""
    return size * STORE_READ_MEMORY, size * STORE_READ_STEPS


LOOKUP_STEPS = 1 << 10
"""Steps charged per token of the Theorem 1 index-lookup model checked on random inputs: 1.2 us
measured per token (N = 8 to 1024, 10^4 to 10^6 inputs) on the 2-core machine under load,
about 600 steps; charged at 1024 for the margin of a shared machine."""


def index_lookup(samples: int, length: int) -> int:
    """Work of checking the Theorem 1 model on ``samples`` inputs of length N (its tables and
    one attention read per input, in chunks)."""
    return samples * (length + 8) * LOOKUP_STEPS


KG_OP_STEPS = 1 << 16
"""Steps charged per torch operation of the KG path constructions (each counted by torch's FLOP
counter in Python: 0.13-0.17 ms measured per operation on the 2-core machine under load)."""
KG_FIXED_STEPS = 1 << 31
"""Steps charged once for the KG path constructions: the first use of torch's FLOP counter
imports its compiler stack (4 s measured on the 2-core machine under load)."""
KG_BATCH_NUMBERS = 1 << 21
"""Numbers per chunk of queries the KG path constructions evaluate at once (their
``BATCH_NUMBERS``)."""


def kg_construction(
    entities: int, relations: int, hops: int, queries: int, bits: int, experts: int
) -> tuple[int, int]:
    """(memory, work) of building and checking the three KG path constructions (standard,
    looped, looped with ``experts`` experts) on ``queries`` q-hop queries over E entities and R
    relations (T = E R triples, codes of ``bits`` bits): each chunk of queries runs q blocks
    whose lookup scores every row against every triple (q^2 T 2b multiply-adds a query), the
    experts' lookup one Python step per expert; the standard composition holds q copies of the
    T detectors."""
    triples = entities * relations
    batch = max(1, KG_BATCH_NUMBERS // max(1, hops * triples))
    chunks = -(-queries // batch)
    operations = chunks * hops * (8 * experts + 80)
    madds = queries * hops * hops * 2 * bits * (2 * triples + triples // max(1, experts))
    memory = (hops + 2) * triples * (3 * bits + 1) * 4 + batch * hops * triples * 4 * 3
    return memory, KG_FIXED_STEPS + madds + operations * KG_OP_STEPS


IGSM_STATEMENT_STEPS = 1 << 14
"""Steps charged per i-GSM statement drawn (each problem is sampled, encoded and solved in
Python: 28 us measured per statement at 2,048 problems of 512 statements on the 2-core machine
under load)."""


def igsm_statements(statements: int) -> int:
    """Work of drawing i-GSM problems of ``statements`` statements in all."""
    return statements * IGSM_STATEMENT_STEPS


STEPS_PER_SECOND = 1 << 29
"""Steps one core takes per second as the estimates count them (the rate :data:`PRINT_STEPS`
was measured at: 300 steps in about 0.6 us): what a measured time is charged."""


def measured(seconds: float) -> int:
    """Work of ``seconds`` of one core, measured (a user's code, timed on a probe)."""
    return int(seconds * STEPS_PER_SECOND) + 1


PRINT_STEPS = 300
"""Steps charged per number printed (converted to a Python object, then to text): measured,
0.57-0.75 us per number for ``ccx task index-lookup --json`` and 0.36 us per token for ``ccx kg
sample``, so that the default work budget prints at most about 14 million numbers, some 8 s of
one core (at 100 steps, 40 million: 23 s)."""


def printed(numbers: int) -> int:
    """Work of printing ``numbers`` numbers as text or JSON."""
    return numbers * PRINT_STEPS


def samples(rows: int, tokens: int, shown: bool = True) -> tuple[int, int]:
    """(memory, work) of drawing ``rows`` samples of ``tokens`` tokens of a training task
    (tokens, targets and mask, int64, with the sampler's temporaries), and printing them."""
    return words(rows, tokens, copies=6), rows * tokens * 8 + (
        printed(rows * tokens) if shown else 0
    )


# --- training: one run or an ensemble, before its first step ------------------------------------

TRAINING_ENV = "CCX_TRAINING_BUDGET"
TRAINING_DEFAULT = 7 * 24 * 3600
"""Default training budget: the estimated seconds of one training run (or ensemble), 7 days."""
STEP_SECONDS = {"cpu": 4e-3, "cuda": 2e-3}
"""Fixed seconds of one training step per device (drawing the batch, Python, autograd, the
optimiser): 4.5 ms measured for a one-layer LSTM of width 16 on one core of the 2-core machine
under load; a GPU step launches its kernels (stacked ensembles share them)."""
MADDS_PER_SECOND = {"cpu": 10**9, "cuda": 10**13}
"""Multiply-adds a second of a training step per device: 0.9-2.2e9 measured for transformers
of width 64 at N = 64..256 on one shared core (1e9 leaves the margin of a loaded machine); a
GPU's float32 at a tenth of its peak."""
ATTENTION_COPIES = (10, 4)
"""Copies of a layer's attention weights (rows x H x T^2 numbers) a training step keeps for its
backward pass (scores, softmax, their gradients: 8.5 measured at N = 512, 1024) and an
evaluation pass holds at once (3.5 measured)."""
ACTIVATION_COPIES = (24, 8)
"""Copies of rows x T x width numbers per layer a training step keeps (projections, the MLP's
hidden layer, norms, gates: 15 measured for an LSTM) and an evaluation pass holds at once."""
RECURRENT_GATES = 8
"""Products of w x w per token and layer of a recurrent model's step, forward and backward
priced: an LSTM's four gates on its input and its state (0.87 s measured per step of width 64
at N = 400, batch 64, on one loaded core; 0.22 s priced with one)."""
OPTIMISER_COPIES = 4
"""Numbers per parameter while training: the weight, its gradient, Adam's two moments."""


def training_budget() -> int:
    """Seconds one training run may be estimated to take: ``CCX_TRAINING_BUDGET`` (default
    :data:`TRAINING_DEFAULT`), a number of seconds."""
    text = os.environ.get(TRAINING_ENV)
    return TRAINING_DEFAULT if text is None else parse_size(text, TRAINING_ENV)


def step_madds(
    batch: int, tokens: int, width: int, layers: int, classes: int, pairs: bool, gates: int = 1
) -> int:
    """Multiply-adds of one training step of one model, roughly: ``batch * T * (layers *
    per-token + w * classes)``, per token ``12 w^2 + 2 T w`` for a model whose float forward
    scores all pairs of positions (``pairs``), ``gates w^2 + 32 w`` for the others; T the
    task's tokens, w the width. (``gates`` 1 is the ranking of a sweep's units; a price uses
    :data:`RECURRENT_GATES`.)"""
    per_token = (
        12 * width * width + 2 * tokens * width if pairs else gates * width * width + 32 * width
    )
    return batch * tokens * (layers * per_token + width * classes)


def training(
    *,
    steps: int,
    batch: int,
    tokens: int,
    width: int,
    layers: int,
    heads: int,
    classes: int,
    parameters: int,
    pairs: bool,
    eval_rows: int,
    evaluations: int,
    members: int = 1,
    device: str = "cpu",
) -> tuple[int, float]:
    """(memory in bytes, seconds) of training ``members`` models (an ensemble) of one shape for
    ``steps`` steps on ``device``, estimated before the first forward pass. Memory: the
    optimiser's numbers (:data:`OPTIMISER_COPIES` per parameter) and the larger of one training
    step's activations (every layer's, kept for the backward pass: attention's batch x H x T^2
    weights and batch x T x width numbers, :data:`ATTENTION_COPIES` and
    :data:`ACTIVATION_COPIES`) and one evaluation chunk's (``eval_rows`` rows, one layer at a
    time), float32. Seconds: each step's fixed cost and multiply-adds (:func:`step_madds`) at
    the device's rates, and ``evaluations`` forward passes of a batch (a third of a step
    each)."""
    kind = "cuda" if device.startswith("cuda") else "cpu"
    train_numbers = (
        layers
        * batch
        * tokens
        * (ATTENTION_COPIES[0] * heads * tokens + ACTIVATION_COPIES[0] * width)
    )
    eval_numbers = (
        eval_rows * tokens * (ATTENTION_COPIES[1] * heads * tokens + ACTIVATION_COPIES[1] * width)
    )
    memory = 4 * members * (OPTIMISER_COPIES * parameters + max(train_numbers, eval_numbers))
    madds = step_madds(batch, tokens, width, layers, classes, pairs, RECURRENT_GATES) * members
    step = STEP_SECONDS[kind] * (members if kind == "cpu" else 1) + madds / MADDS_PER_SECOND[kind]
    return memory, (steps + evaluations / 3) * step


def duration_text(seconds: float) -> str:
    """Seconds in words: ``45 s``, ``12 min``, ``3.5 h``, ``46 days``, ``2e+04 years``."""
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * size or (unit == "min" and seconds >= size):
            value = seconds / size
            return f"{value:.2g} {unit}" if value >= 1e4 else f"{value:.3g} {unit}"
    return f"{seconds:.0f} s"


def check_training(what: str, memory: int, seconds: float, memory_limit: int | None = None) -> None:
    """Refuse a training run (InputError, one line) estimated to need more than the memory
    budget (or ``memory_limit``, a GPU's memory) or to take longer than the training budget."""
    limit = memory_budget() if memory_limit is None else memory_limit
    if memory > limit:
        where, raise_it = (
            ("", f" (raise it with {MEMORY_ENV})") if memory_limit is None else (" of the GPU", "")
        )
        raise InputError(
            f"{what} needs about {size_text(memory)} of memory{where} at once (a training step "
            f"or an evaluation chunk); the budget is {size_text(limit)}{raise_it}: use a "
            "smaller batch, a shorter length or a smaller model"
        )
    budget = training_budget()
    if seconds > budget:
        raise InputError(
            f"{what} would take about {duration_text(seconds)} (estimated); the training budget "
            f"is {duration_text(budget)} (raise it with {TRAINING_ENV}, in seconds): use fewer "
            "steps or a smaller model"
        )
