"""Every limit on what a user or a file may ask for, in one place, with the check that applies it.

Sizes, counts and ranges (lengths, widths, batches, samples, seeds, precisions, file sizes,
sweep grids) are checked against these limits *before* anything is allocated or written, by the
API functions and by the ``ccx`` commands alike: a value out of range is refused at once with one
line naming the limit and what to use instead (:class:`~ccomplexity.errors.InputError`).

A limit here guards the machine, not the mathematics: a value inside it may still be refused by
a method's own work limit (an exhaustive search, a dense matrix), which says so in the same way.
A ``ccx`` option declares its range once, with the option (``ccx.app.ranged(limits.X, "--name")``,
checked while the command line is parsed, and read back by the CLI fuzz table); the API calls
:meth:`Limit.check` (or :func:`check_forward`, :func:`power_at_most`, :func:`read_bytes`) where
the value is used. Output paths are checked by :func:`ccomplexity.files.check_output_file` and
:func:`~ccomplexity.files.check_output_folder`.
"""

from __future__ import annotations

import math
import os
import zipfile
from dataclasses import dataclass, fields
from math import isqrt
from pathlib import Path

from ccomplexity.errors import InputError, check_int, shown
from ccomplexity.files import note_input


@dataclass(frozen=True)
class Limit:
    """The integers a quantity may take, ``least..most``, and what to do with a larger one."""

    name: str
    least: int
    most: int
    instead: str

    def check(self, value: object, name: str | None = None) -> int:
        """``value`` as an int if it is an integer in ``least..most``; else InputError naming
        ``name`` (default: the limit's own name), the limit and what to use instead."""
        return check_int(value, name or self.name, self.least, self.most, self.instead)


@dataclass(frozen=True)
class Interval:
    """The finite real numbers a quantity may take, ``least..most``, each end included unless
    ``open_least`` / ``open_most``. NaN and infinities are never inside."""

    name: str
    least: float
    most: float
    instead: str = ""
    open_least: bool = False
    open_most: bool = False

    def check(self, value: object, name: str | None = None) -> float:
        """``value`` as a float if it lies in the interval; else InputError naming ``name``."""
        what = name or self.name
        try:
            x = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{what} must be a number, got {shown(value)}") from None
        above = x > self.least if self.open_least else x >= self.least
        below = x < self.most if self.open_most else x <= self.most
        if not (math.isfinite(x) and above and below):
            ends = (
                "(["[not self.open_least]
                + f"{self.least:g}, {self.most:g}"
                + ")]"[not self.open_most]
            )
            tail = f"; {self.instead}" if self.instead and x > self.most else ""
            raise InputError(f"{what} must be a finite number in {ends}, got {shown(x)}{tail}")
        return x


# --- models and their inputs ------------------------------------------------------------------

LENGTH = Limit("length", 1, 1 << 20, "use a shorter input")
"""Input length N: of a model's input (training, protocols, constructions) and of the word a
two-party problem splits between Alice and Bob."""
WIDTH = Limit("width", 1, 1 << 14, "use a smaller model")
LAYERS = Limit("layers", 1, 256, "use fewer layers")
LOOPS = Limit("loops", 0, 256, "use fewer loops")
"""Loops L of a looped block ((k ⊗ 0) embeds and reads out)."""
HEADS = Limit("heads", 1, 1 << 10, "use fewer heads")
VOCAB = Limit("vocab_size", 1, 1 << 16, "use fewer input symbols")
EXPERTS = Limit("experts", 1, 1 << 12, "use fewer experts")
"""Experts K of a mixture-of-experts layer (and its top-k)."""
MODEL_FIELD = Limit("a model size", 0, 1 << 20, "use a smaller model")
"""Any other integer of a model config (state sizes, MLP width, positions, ...)."""
MODEL_NUMBERS = 1 << 27
"""Most numbers (parameters and buffers) a model may hold: 512 MiB in float32."""
FORWARD_NUMBERS = 1 << 32
"""Most numbers in one activation of a forward pass: rows x tokens x width (and, with
attention, rows x heads x tokens^2): 16 GiB in float32, what a large GPU holds (the
paper profile evaluates 500 x 8 heads x 801^2 attention weights at N = 800)."""
BATCH = Limit("batch", 1, 1 << 16, "use a smaller batch")
SAMPLES = Limit("samples", 1, 10**7, "use fewer samples")
STEPS = Limit("steps", 1, 10**9, "use fewer steps")
WARMUP = Limit("warmup", 0, 10**9, "use fewer warm-up steps")
EXTEND_ROUNDS = Limit("extend-undecided", 0, 10, "each round doubles the steps: use fewer")
SEED = Limit("seed", 0, 2**63 - 1, "seeds are 63-bit integers")
PRECISION = Limit("precision", 2, 53, "finite-precision runs use 2..53 bits")
BITS = Limit("precision", 1, 1 << 16, "use fewer bits per number")
"""Bits p per number where p only enters a formula (a bound, a state size in bits)."""
WORKERS = Limit("workers", 1, 256, "use fewer worker processes")
ENSEMBLE = Limit("ensemble", 1, 1024, "use smaller ensembles")
"""Most runs trained together as one batched model (``ccx sweep --ensemble``)."""
TIME_LIMIT = Limit("time-limit", 1, 30 * 24 * 3600, "give at most 30 days, in seconds")
"""Seconds after which a sweep starts no new unit (``ccx sweep --time-limit``)."""


def cores() -> int:
    """Cores this process may run on (its CPU affinity where the system reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


THREADS = Limit("threads", 1, cores(), "use at most the machine's cores")
"""Torch CPU threads of a run: at most the cores (more only slow it down, and thousands fail
to start: ``libgomp: Thread creation failed``)."""

# --- the exact core ---------------------------------------------------------------------------

TYPES = Limit("types", 1, 1 << 15, "use fewer bracket types")
ALPHABET = Limit("alphabet", 2, 1 << 16, "use a smaller alphabet")

DYCK_SYMBOLIC_STACKS = 64
"""Most stacks (live DFA states) of a symbolic Dyck certificate: Dyck-(n, min(k, N/2))."""
DYCK_SYMBOLIC_WORK = 1 << 32
"""Most steps of a symbolic Dyck certificate (:func:`dyck_symbolic_work`), made or verified."""


def dyck_symbolic_work(types: int, depth: int, length: int) -> tuple[int, int | None]:
    """(stacks, steps) of making or verifying the symbolic Dyck-(n,k) certificate at length N.

    The stacks are those of depth <= min(k, N/2) (steps None once they are more than
    :data:`DYCK_SYMBOLIC_STACKS`). Both sides square matrices ceil(lg N) times: the Boolean
    product automaton over pairs of stacks ((2 s^2)^3 per product, /16 for its vectorised
    float product) and the exact count on the c = min(k, N/2) + 1 stack heights (c^3 products of
    integers of w = N lg(n + 1) / 64 words, each counted w^1.5).
    """
    k = min(depth, length // 2)
    s = levels_at_most(types, k, DYCK_SYMBOLIC_STACKS)
    if s is None:
        return DYCK_SYMBOLIC_STACKS + 1, None
    w = length * (types + 1).bit_length() // 64 + 1
    return s, max(1, (length - 1).bit_length()) * (
        (2 * s * s) ** 3 // 16 + (k + 1) ** 3 * w * isqrt(w)
    )


def check_dyck_symbolic(types: int, depth: int, length: int) -> int:
    """The one limit of symbolic Dyck certificates, applied by their maker and their verifier
    alike: N in 2..:data:`LENGTH`, at most :data:`DYCK_SYMBOLIC_STACKS` stacks and at most
    :data:`DYCK_SYMBOLIC_WORK` steps. Returns the number of stacks; InputError names the limit."""
    LENGTH.check(length, "length N")
    if length < 2:
        raise InputError(f"a symbolic Dyck certificate needs a length N >= 2, got {length}")
    stacks, work = dyck_symbolic_work(types, depth, length)
    if work is None:
        raise InputError(
            f"Dyck-({types},{depth}) has more than {DYCK_SYMBOLIC_STACKS} stacks; symbolic "
            f"certificates are limited to {DYCK_SYMBOLIC_STACKS}: use fewer types or a lower depth"
        )
    if work > DYCK_SYMBOLIC_WORK:
        raise InputError(
            f"a symbolic Dyck-({types},{depth}) certificate at length {length} takes {work} "
            f"steps; the limit is {DYCK_SYMBOLIC_WORK}: use a shorter length, fewer types or a "
            "lower depth"
        )
    return stacks


# --- the other papers: graphs, memorisation, knowledge graphs ---------------------------------

VERTICES = Limit("vertices", 1, 512, "use fewer vertices")
"""|V| of a length-2 path instance (the mixture-of-parrots paper)."""
EXAMPLES = Limit("examples", 1, 1 << 20, "use fewer examples")
DIM = Limit("dim", 1, 1 << 14, "use a smaller dimension")
TRIALS = Limit("trials", 1, 1000, "use fewer trials")
ENTITIES = Limit("entities", 1, 1 << 16, "use fewer entities")
"""Entities E of a knowledge graph (entity ids are hashed in 16 bits)."""
RELATIONS = Limit("relations", 1, 1 << 24, "use fewer relations")
HOPS = Limit("hops", 1, 1 << 12, "use fewer hops")
"""Hops q of a path query (of 4q - 1 tokens)."""
DIGITS = Limit("digits", 1, 9, "use fewer digits per operand")
"""Digits per operand of n-ary addition (sums of up to 2^40 operands stay exact in int64)."""

# --- options of the commands (each declared with its option in ``ccx``) -----------------------

WORD_LENGTH = Limit("length", 0, LENGTH.most, LENGTH.instead)
"""Length N of a Dyck word (``ccx dyck``): 0 counts the empty word."""
DEPTH = Limit("depth", 0, 1 << 20, "use a smaller depth")
"""Maximum depth k of Dyck-(n,k) (more than N/2 allows nothing new)."""
HALF = Limit("half", 1, LENGTH.most // 2, LENGTH.instead)
MATRIX_SIDE = Limit("rows", 1, 1 << 20, "use a smaller matrix")
CUT = Limit("cut", 0, LENGTH.most, "cut within the input")
FRAC = Limit("frac", 0, PRECISION.most - 1, "use fewer fractional bits than --precision")
PRIME = Limit("prime", 2, 2**31 - 1, "products of residues must fit in int64")
NODES = Limit("nodes", 1, 10**12, "use a smaller node budget")
OPERANDS = Limit("operands", 1, 1000, "use fewer operands")
QUERY_TOKEN = Limit("query token", 0, VOCAB.most - 1, "use a token below --vocab-size")
ROUNDS = Limit("rounds", 0, 64, "rounds past ceil(log2 n) + 2 change nothing")
"""Rounds of the looped simulators (``ccx looped rounds``): every schedule there is done within
ceil(log2 N) + 2 <= 16 rounds at the largest length it accepts."""
ROUND_LENGTH = Limit("length", 1, 10**4, "use a shorter input")
ROUND_SAMPLES = Limit("samples", 1, 10**5, "use fewer samples")
ROUND_CELLS = 10**7
"""Most symbols (samples x length) the looped simulators run on at once: the default 1000
samples at the largest length."""
DRAWS = Limit("batch", 1, 10_000, "draw fewer samples")
"""Samples drawn and printed at once (``ccx task``, ``ccx kg sample``)."""
CODE_VECTORS = Limit("length", 2, 1 << 14, "use fewer vectors")
"""Vectors N of a nearly orthogonal code (the seeded search's limit)."""
PROBABILITY = Interval("probability", 0.0, 1.0)
ACCURACY = Interval("accuracy", 0.0, 1.0, open_least=True)
MARGIN = Interval("gamma", 0.0, 1.0, open_least=True, open_most=True)
SECONDS = Interval("seconds", 0.0, 1e6, "use a shorter time budget", open_least=True)
LEARNING_RATE = Interval("lr", 0.0, 10.0, "use a smaller learning rate", open_least=True)
REGULARISER = Interval("reg-lambda", 0.0, 1e6, "use a smaller lambda")
WEIGHT_DECAY = Interval("weight-decay", 0.0, 1.0, "weight decay is a fraction of the step")
CLIP = Interval("clip", 0.0, 1e6, "use a smaller max gradient norm (0: no clipping)")

TASK_OPTIONS = {
    "alphabet": ALPHABET,
    "hops": HOPS,
    "depth": Limit("depth", 0, LENGTH.most, "use a depth at most the length"),
    "variables": Limit("variables", 1, VOCAB.most, VOCAB.instead),
    "symbols": Limit("symbols", 1, VOCAB.most, VOCAB.instead),
    "n_symbols": Limit("n_symbols", 1, VOCAB.most, VOCAB.instead),
    "n_labels": Limit("n_labels", 1, VOCAB.most, VOCAB.instead),
    "min_length": LENGTH,
    "middle": Limit("middle", 0, VERTICES.most, "use fewer middle edges"),
    "seq_length": LENGTH,
    "dim": DIM,
    "data_seed": SEED,
    "entities": Limit("entities", 2, ENTITIES.most, ENTITIES.instead),
    "relations": RELATIONS,
    "graph_seed": SEED,
    "query_depth": Limit("query_depth", 0, 64, "use a smaller query depth"),
}
"""Ranges of the integer options of the training tasks (``ccx task NAME --OPTION VALUE``),
checked by ``ccx task`` before the task (and torch) is loaded; each task's builder checks its
own again."""

STATEMENTS = Limit("statements", 1, 512, "use fewer statements")
"""Statements N of an i-GSM problem (each sampled in Python)."""
IGSM_DEPTH = Limit("depth", 0, 64, "use a smaller depth")
"""Depth of an i-GSM query (operations on its longest dependency path, the option
``query_depth``) or of a variable-assignment chain (``depth``)."""
MODULUS = Limit("modulus", 2, 97, "use a prime modulus up to 97")
"""The prime P of i-GSM's arithmetic mod P."""
STATEMENT_CELLS = 1 << 20
"""Most batch x statements of i-GSM problems drawn at once (each is a Python object)."""

# --- files ------------------------------------------------------------------------------------

CERTIFICATE_BYTES = 64 << 20
"""Largest certificate file of any kind (a protocol run's: inputs of up to 2^22 tokens, their
transcripts and outputs)."""
SYMBOLIC_COUNT_HEX = (LENGTH.most // 2) * (2 * DYCK_SYMBOLIC_STACKS).bit_length() // 4 + 3
"""Most characters of a symbolic Dyck certificate's member count, written in hexadecimal: its
members differ in their first halves of N/2 symbols, of 2n < 2 * DYCK_SYMBOLIC_STACKS kinds
(n types, each with its own stack), so the count is below 2^(7 N/2) at N <= LENGTH."""
CERTIFICATE_KIND_BYTES = {
    "fooling_set": 16 << 20,
    "one_way": 16 << 20,
    "rank": 16 << 20,
    "fooling_set_symbolic": SYMBOLIC_COUNT_HEX + (1 << 16),
    "protocol_rnn": CERTIFICATE_BYTES,
    "protocol_attention": CERTIFICATE_BYTES,
}
"""Largest certificate file of each kind: the writer refuses to write a larger one, and the
verifier refuses a larger file of that kind before parsing it (the kind read from the file's
first bytes, where the writer puts it). An explicit witness of at most 8192 pairs (rows) over
words of tens of symbols takes a few MiB; a symbolic one is a few numbers and its member count,
at most :data:`SYMBOLIC_COUNT_HEX` hexadecimal digits."""
SPEC_BYTES = 1 << 20
CHECKPOINT_BYTES = 2 << 30
MATRIX_BYTES = 32 << 20
"""A 0/1 matrix given as a CSV file (``--problem matrix --file``)."""

# --- the one field-to-limit table -------------------------------------------------------------

FIELDS: dict[str, Limit | Interval] = {
    # the run's input
    "length": LENGTH,
    "seed": SEED,
    "samples": SAMPLES,
    "cut": CUT,
    "vertices": VERTICES,
    "query_token": QUERY_TOKEN,
    # the model (models.base.ModelConfig and simulations.run_config.ModelSpec)
    "width": WIDTH,
    "layers": LAYERS,
    "heads": HEADS,
    "loops": LOOPS,
    "experts": EXPERTS,
    "top_k": EXPERTS,
    "vocab_size": VOCAB,
    "n_out": VOCAB,
    "mlp_width": Limit("mlp_width", 1, MODEL_FIELD.most, MODEL_FIELD.instead),
    "d_state": Limit("d_state", 1, MODEL_FIELD.most, MODEL_FIELD.instead),
    "d_conv": Limit("d_conv", 1, MODEL_FIELD.most, MODEL_FIELD.instead),
    "expand": Limit("expand", 1, MODEL_FIELD.most, MODEL_FIELD.instead),
    "balance": Interval("balance", 0.0, 1e6, "use a smaller balance coefficient"),
    "precision": BITS,
    "frac": Limit("frac", 0, BITS.most - 1, "use fewer fractional bits than the precision"),
    # the recipe
    "steps": STEPS,
    "lr": LEARNING_RATE,
    "batch": BATCH,
    "warmup": WARMUP,
    "weight_decay": WEIGHT_DECAY,
    "clip": CLIP,
    "reg_lambda": REGULARISER,
    "reg_block": LAYERS,
    # the evaluation
    "target": ACCURACY,
    "eval_every": Limit("eval_every", 1, STEPS.most, STEPS.instead),
    "eval_samples": SAMPLES,
    # task options of the training tasks
    "symbols": Limit("symbols", 1, VOCAB.most, VOCAB.instead),
    "hops": HOPS,
    "alphabet": ALPHABET,
    "digits": DIGITS,
    "entities": ENTITIES,
    "relations": RELATIONS,
    "graph_seed": SEED,
    "depth": IGSM_DEPTH,
    "query_depth": IGSM_DEPTH,
}
"""Every user-set field of a spec (the run's :class:`simulations.run_config.TrainConfig` and its
parts, a model's config, a protocol's request) -> its limit: the one table. A spec checks each of
its fields named here once, when it is made (:func:`check_fields`); the layers below trust it. A
``ccx`` option that sets such a field declares the same limit (``ccx.app.field_option``) and leaves
the check to the spec. Integer fields of a model config not named here (state sizes, positions)
have :data:`MODEL_FIELD`."""


def check_field(name: str, value: object, where: str = "") -> int | float:
    """``value`` checked against the limit of field ``name`` in :data:`FIELDS`; InputError names
    ``where + name``."""
    return FIELDS[name].check(value, f"{where}{name}")


def check_fields(spec: object, where: str = "") -> None:
    """Check every field of dataclass instance ``spec`` that :data:`FIELDS` names and that is set
    (not None), in place (an int given for a real-valued field is kept as a float)."""
    for f in fields(spec):  # type: ignore[arg-type]
        value = getattr(spec, f.name)
        if f.name in FIELDS and value is not None:
            object.__setattr__(spec, f.name, check_field(f.name, value, where))


# --- sweeps -----------------------------------------------------------------------------------

GRID_RUNS = 10_000
"""Most runs a sweep spec may expand to without ``--allow-large-grid``."""
GRID_RUNS_MOST = 1_000_000
"""Most runs a sweep spec may expand to at all."""

# --- results stores ---------------------------------------------------------------------------

STORE_CELL_CHARS = {"config": 1 << 16, "ensemble": 1 << 16}
"""Most characters of a stored run's JSON column, checked before it is parsed: a config (some
40 fields) and an ensemble (at most :data:`ENSEMBLE` config hashes) in 64 Ki; any other (a
curve, accuracies by length, diagnostics, the environment) in :data:`STORE_CELL_MOST`."""
STORE_CELL_MOST = 1 << 20


def check_numbers(numbers: int, what: str) -> None:
    """Refuse ``what`` when it needs more than :data:`FORWARD_NUMBERS` numbers at once."""
    if numbers > FORWARD_NUMBERS:
        raise InputError(
            f"{what} needs {numbers} numbers at once; the limit is {FORWARD_NUMBERS} "
            "(2^32); use fewer rows, shorter inputs or a smaller model"
        )


def forward_numbers(rows: int, tokens: int, width: int, heads: int = 0, layers: int = 1) -> int:
    """Numbers in the largest activation of a forward pass: rows x tokens x width per layer
    (kept for every layer, as training and recurrent states do), or rows x heads x tokens^2
    attention weights of one layer where ``heads``."""
    return max(rows * tokens * width * layers, rows * heads * tokens * tokens)


def check_forward(
    rows: int,
    tokens: int,
    width: int,
    heads: int = 0,
    layers: int = 1,
    what: str = "a forward pass",
) -> None:
    """Refuse a forward pass whose activations (:func:`forward_numbers`) exceed
    :data:`FORWARD_NUMBERS`."""
    numbers = forward_numbers(rows, tokens, width, heads, layers)
    check_numbers(numbers, f"{what} of {rows} x {tokens} tokens at width {width}")


def levels_at_most(n: int, k: int, most: int) -> int | None:
    """sum_{i=0..k} n^i (the nodes of a complete n-ary tree of depth k), or None as soon as it
    exceeds ``most``: never a huge power, at most ``most`` steps."""
    total, level = 0, 1
    for _ in range(k + 1):
        total += level
        if total > most:
            return None
        level *= n
    return total


def power_at_most(base: int, exponent: int, most: int) -> bool:
    """Whether ``base ** exponent <= most``, decided without computing a huge power."""
    if base <= 1 or exponent == 0:
        return base**exponent <= most
    if exponent > most.bit_length():  # base >= 2, so base^exponent >= 2^exponent > most
        return False
    return base**exponent <= most


def read_bytes(path: str | os.PathLike[str], most: int, what: str) -> bytes:
    """The bytes of the file at ``path``, refused (InputError) when it is missing, not a regular
    file or larger than ``most`` bytes: the size is checked before anything is read."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{what} {p} does not exist or is not a file")
    note_input(p)  # no file the command writes may replace it
    size = p.stat().st_size
    if size > most:
        raise InputError(f"{what} {p} has {size} bytes; the limit is {most}")
    try:
        with p.open("rb") as handle:
            data = handle.read(most + 1)
    except OSError as err:
        raise InputError(f"cannot read {what} {p}: {err.strerror}") from None
    if len(data) > most:  # the file grew after the check
        raise InputError(f"{what} {p} exceeds the limit of {most} bytes")
    return data


def check_zip_file(path: str | os.PathLike[str], most: int, what: str) -> Path:
    """Refuse ``path`` unless it is a regular file of at most ``most`` bytes holding a zip
    archive (the container of a torch checkpoint): decided from its first bytes and its central
    directory, without reading it whole, so a random or foreign file is refused at once."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{what} {p}: no such file")
    note_input(p)
    size = p.stat().st_size
    if size > most:
        raise InputError(f"{what} {p} has {size} bytes; the limit is {most}")
    try:
        with p.open("rb") as handle:
            magic = handle.read(4)
        archive = magic == b"PK\x03\x04" and zipfile.is_zipfile(p)
    except OSError as err:
        raise InputError(f"cannot read {what} {p}: {err.strerror}") from None
    if not archive:
        raise InputError(f"{what} {p}: not a readable checkpoint (not a zip archive)")
    check_zip_contents(p, most, what)
    return p


def check_zip_contents(path: Path, most: int, what: str) -> int:
    """Refuse a zip archive whose members declare (uncompressed, in its central directory) more
    than ``most`` bytes in all, or more than the memory budget: a checkpoint's tensors are
    checked on their declared sizes before any is read or inflated. Returns the bytes declared."""
    from ccomplexity import budget

    try:
        with zipfile.ZipFile(path) as archive:
            declared = sum(max(0, info.file_size) for info in archive.infolist())
    except (OSError, zipfile.BadZipFile, ValueError) as err:
        raise InputError(f"{what} {path}: not a readable checkpoint ({err})") from None
    if declared > most:
        raise InputError(
            f"{what} {path} declares {declared} bytes of tensors once unpacked; the limit is {most}"
        )
    budget.check(f"{what} {path} ({declared} bytes of tensors once unpacked)", memory=declared)
    return declared
