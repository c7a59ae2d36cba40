"""Every limit on what a user or a file may ask for, in one place, with the check that applies it.

Sizes, counts and ranges (lengths, widths, batches, samples, seeds, precisions, file sizes,
sweep grids) are checked against these limits *before* anything is allocated or written, by the
API functions and by the ``ccx`` commands alike: a value out of range is refused at once with one
line naming the limit and what to use instead (:class:`~ccomplexity.errors.InputError`).

A limit here guards the machine, not the mathematics: a value inside it may still be refused by
a method's own work limit (an exhaustive search, a dense matrix), which says so in the same way.
New commands use a limit by calling its :meth:`Limit.check` (or :func:`check_forward`,
:func:`power_at_most`, :func:`read_bytes`); output paths are checked by
:func:`ccomplexity.files.check_output_file` and :func:`~ccomplexity.files.check_output_folder`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ccomplexity.errors import InputError, check_int


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
SEED = Limit("seed", 0, 2**63 - 1, "seeds are 63-bit integers")
PRECISION = Limit("precision", 2, 53, "finite-precision runs use 2..53 bits")
BITS = Limit("precision", 1, 1 << 16, "use fewer bits per number")
"""Bits p per number where p only enters a formula (a bound, a state size in bits)."""
WORKERS = Limit("workers", 1, 256, "use fewer worker processes")
ENSEMBLE = Limit("ensemble", 1, 1024, "use smaller ensembles")
"""Most runs trained together as one batched model (``ccx sweep --ensemble``)."""
THREADS = Limit("threads", 1, 1024, "use fewer threads")

# --- the exact core ---------------------------------------------------------------------------

TYPES = Limit("types", 1, 1 << 15, "use fewer bracket types")
ALPHABET = Limit("alphabet", 2, 1 << 16, "use a smaller alphabet")

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

# --- files ------------------------------------------------------------------------------------

CERTIFICATE_BYTES = 64 << 20
SPEC_BYTES = 1 << 20
CHECKPOINT_BYTES = 2 << 30
MATRIX_BYTES = 32 << 20
"""A 0/1 matrix given as a CSV file (``--problem matrix --file``)."""

# --- sweeps -----------------------------------------------------------------------------------

GRID_RUNS = 10_000
"""Most runs a sweep spec may expand to without ``--allow-large-grid``."""
GRID_RUNS_MOST = 1_000_000
"""Most runs a sweep spec may expand to at all."""


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
