"""Theorem 2.1 (looped-reasoning App. B.2.2): group composition by one looped layer, as weights.

The input ``#, g_1, ..., g_n`` (tokens 0..|G|-1 for the elements, |G| for #, which is embedded as
the identity e) is mapped to ``g_1 ∘ ... ∘ g_n`` by the zoo's looped transformer with a 1-layer
block, 2 heads, no LayerNorm, a ReLU MLP and ceil(lg n) loops: each loop is one round of
Algorithm 2 (:func:`ccomplexity.rounds.group_doubling`). With m = ceil(lg |G|) and
b = ceil(lg(n + 1)) the residual stream of position i (0..n) is

    [ ḡ_i (m) | ī (b) | bin([2i-n-1]_+) (b) | bin([2i-n]_+) (b) | g' (m) | g'' (m) ]

with ±1 codes (bit set: +1), d = 3(m + b) (one zero coordinate more when that is odd: the zoo
splits d evenly over the heads). The token embedding writes ḡ (ē for #), the position embedding
the three position codes; they depend on n (the theorem is per n).

* Attention: head 1 has query bin([2i-n-1]_+) and key j̄, head 2 query bin([2i-n]_+); the logit
  is ``attn_scale`` x <q, k> = 64 (b - 2 hamming), so the matching position leads by >= 128 and
  every other weight exp(-128) underflows to exactly 0 in float32: the heads copy ḡ of the
  pointed-to positions into g' and g'' (the positions are <= i, so the causal mask is harmless).
* MLP: |G|^2 neurons (h, h') with weights (h̄, h̄') on (g', g'') and bias 1 - 2m fire 1 exactly
  when (g', g'') = (h, h') (the ±1 inner product is 2m iff both codes match, else <= 2m - 2) and
  write code(h ∘ h'); 6m neurons ReLU(±x) subtract g, g' and g''. After the residual the slot g
  holds code(g' ∘ g'') and g', g'' are 0 again: the next loop is the next round.
* Readout: logits <ḡ, slot g> for each g, largest (m against <= m - 2) at the exact code.

Every value is an exact 0 or 1, an integer of magnitude at most 4m (the MLP's inputs to its
ReLUs; m <= 10) or a logit 64 x (an integer of magnitude at most b): at most 6 significant bits,
so the forward is exact in float32 and in bfloat16 alike. The check runs in bfloat16 (about
twice as fast on CPUs with bfloat16 dot products), compared with float32 on its first rows.

Sizes against the theorem (spec corrections): the second pointer is bin([2i-n]_+), not a
repeat of the first; the keys need b = ceil(lg(n + 1)) coordinates (the theorem's d_ATTN =
ceil(lg n) is one short for n a power of two) and the values the m-bit group codes, so a head
uses max(b, m) of its d/2 coordinates (S5 at n = 8: 7, where the theorem's d_ATTN is 3); d uses
ceil(lg(n + 1)) where the theorem writes ceil(lg n + 1); d_FF = |G|^2 + 6m exactly.
"""

from __future__ import annotations

import copy
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import torch

from ccomplexity.errors import InputError, check_int
from ccomplexity.groups import FiniteGroup, get_group
from ccomplexity.integers import ceil_log2
from ccomplexity.rounds import group_doubling
from models.constructions.scoring import strictly_correct
from models.looped import LoopedConfig, LoopedTransformer

ATTN_SCALE = 64.0
"""Logit per unit of <q, k>: the runner-up trails by 128, and exp(-128) is 0 in float32."""
LENGTH_LIMIT = 4096
"""Longest n built."""
EXHAUSTIVE_INPUTS = 1 << 16
"""Inputs (|G|^n) up to which every input is checked."""
CELLS_PER_BATCH = 1 << 23
"""MLP activations (batch x (n + 1) x d_FF) a batch holds at once: 16 MiB in bfloat16, under the
32 MiB above which the C library maps every allocation afresh (S5 at n = 300: one word per batch;
4 words cost a third more CPU time, in page faults)."""


def signs(values: np.ndarray, bits: int) -> np.ndarray:
    """±1 codes of integers: bit t (least significant first) set -> +1: (len(values), bits)."""
    v = np.asarray(values, dtype=np.int64)
    return np.where((v[:, None] >> np.arange(bits)) & 1, 1.0, -1.0)


def layout(group_order: int, length: int) -> dict[str, int]:
    """Sizes of the construction: m, b, the slots' offsets, d, d_FF and the loops."""
    m, b = ceil_log2(group_order), ceil_log2(length + 1)
    d = 3 * (m + b)
    return {
        "m": m,
        "b": b,
        "g": 0,
        "pos": m,
        "left": m + b,
        "right": m + 2 * b,
        "g1": m + 3 * b,
        "g2": 2 * m + 3 * b,
        "model_dim": d + d % 2,
        "mlp_width": group_order**2 + 6 * m,
        "loops": ceil_log2(length),
    }


def build_group_composition(
    group: FiniteGroup, length: int, loops: int | None = None
) -> tuple[LoopedTransformer, dict[str, Any]]:
    """The Theorem 2.1 looped transformer for n = ``length`` elements of ``group`` (float32), with
    ``loops`` loops (default ceil(lg n)), and its sizes."""
    n = check_int(length, "length n")
    if n > LENGTH_LIMIT:
        raise InputError(f"group composition is built for n <= {LENGTH_LIMIT}, got {n}")
    s = layout(group.order, n)
    t = s["loops"] if loops is None else check_int(loops, "loops", 0)
    config = LoopedConfig(
        vocab_size=group.order + 1,
        n_out=group.order,
        width=s["model_dim"],
        layers=1,
        heads=2,
        mlp_width=s["mlp_width"],
        max_length=n + 1,
        layer_norm=False,
        attn_scale=ATTN_SCALE,
        activation="relu",
        loops=t,
    )
    model = LoopedTransformer(config)
    _set_weights(model, group, n, s)
    model.eval()
    info = {
        "group": group.name,
        "group_order": group.order,
        "length": n,
        "loops": t,
        "loops_needed": s["loops"],
        "block_layers": 1,
        "heads": 2,
        "model_dim": s["model_dim"],
        "mlp_width": s["mlp_width"],
        "head_dim": s["model_dim"] // 2,
        "attention_dims_used": max(s["b"], s["m"]),
        "key_dims_used": s["b"],
        "value_dims_used": s["m"],
        "group_code_bits": s["m"],
        "position_code_bits": s["b"],
        "attn_scale": ATTN_SCALE,
        "parameters": model.param_count(),
    }
    return model, info


@torch.no_grad()
def _set_weights(model: LoopedTransformer, group: FiniteGroup, n: int, s: dict[str, int]) -> None:
    """Wire the model of the module docstring (weights are (out, in); qkv rows: q, k, v)."""
    for p in model.parameters():
        p.zero_()
    m, b, d = s["m"], s["b"], s["model_dim"]
    dh = d // 2
    g, pos, left, right, g1, g2 = (
        slice(s[k], s[k] + w)
        for k, w in (("g", m), ("pos", b), ("left", b), ("right", b), ("g1", m), ("g2", m))
    )
    codes = torch.tensor(signs(np.arange(group.order), m), dtype=torch.float32)
    i = np.arange(n + 1)
    model.tok.weight[: group.order, g] = codes
    model.tok.weight[group.order, g] = codes[group.identity]  # '#' is embedded as e
    model.pos.weight[:, pos] = torch.tensor(signs(i, b), dtype=torch.float32)
    model.pos.weight[:, left] = torch.tensor(signs(np.maximum(2 * i - n - 1, 0), b))
    model.pos.weight[:, right] = torch.tensor(signs(np.maximum(2 * i - n, 0), b))
    block = model.blocks[0]
    eye_b, eye_m = torch.eye(b), torch.eye(m)
    for head, pointer in enumerate((left, right)):
        block.qkv.weight[head * dh : head * dh + b, pointer] = eye_b  # W_Q: the pointer code
        block.qkv.weight[d + head * dh : d + head * dh + b, pos] = eye_b  # W_K: j̄
        block.qkv.weight[2 * d + head * dh : 2 * d + head * dh + m, g] = eye_m  # W_V: ḡ_j
    block.out.weight[g1, 0:m] = eye_m  # head 1 -> g'
    block.out.weight[g2, dh : dh + m] = eye_m  # head 2 -> g''
    pairs = group.order**2
    h1, h2 = np.divmod(np.arange(pairs), group.order)  # neuron (h, h') for every pair
    block.fc.weight[:pairs, g1] = codes[h1]
    block.fc.weight[:pairs, g2] = codes[h2]
    block.fc.bias[:pairs] = 1.0 - 2 * m
    block.proj.weight[g, :pairs] = codes[group.table[h1, h2]].T  # write code(h ∘ h')
    scratch = list(range(s["g"], s["g"] + m)) + list(range(s["g1"], s["g1"] + 2 * m))
    for k, coord in enumerate(scratch):  # 6m neurons: x -> -x on g, g', g''
        up, down = pairs + 2 * k, pairs + 2 * k + 1
        block.fc.weight[up, coord], block.fc.weight[down, coord] = 1.0, -1.0
        block.proj.weight[coord, up], block.proj.weight[coord, down] = -1.0, 1.0
    model.head.weight[:, g] = codes


def decode(stream: torch.Tensor, m: int) -> np.ndarray:
    """Element indices held in slot g of a residual stream (B, N, d): the sign pattern as bits."""
    bits = (stream[..., :m] > 0).long().cpu().numpy()
    return (bits << np.arange(m)).sum(axis=-1)


def run_group_composition(
    model: LoopedTransformer,
    group: FiniteGroup,
    words: np.ndarray,
    dtype: torch.dtype = torch.bfloat16,
    workers: int | None = None,
) -> dict[str, Any]:
    """Run the model on ``#, g_1..g_n`` for every row of ``words``: the fraction of rows whose
    answer (the argmax, ties counted wrong) is the product, and whether slot g after every loop
    equals Algorithm 2's g^(l) at every position.

    The model runs as built, its weights cast to ``dtype`` (default bfloat16: every value of the
    forward is exact there too, see the module docstring, and the CPU's bfloat16 dot products
    and halved memory traffic make it about twice as fast). The first two rows run in float32
    as well; unless the two streams agree exactly, every row runs in float32 (``dtype`` of the
    result says which ran). The batches are spread over ``workers`` threads (default torch's
    thread count, the cores) that run one batch each with one torch thread: a batch's many small
    attention operations then cost no thread synchronisation."""
    n = words.shape[1]
    rounds = group_doubling(group, words, rounds=model.config.loops, history=True).history
    truth = group.compose(words)
    tokens = torch.from_numpy(np.concatenate([np.full((len(words), 1), group.order), words], 1))
    per_batch = max(1, CELLS_PER_BATCH // ((n + 1) * model.config.hidden))
    threads = torch.get_num_threads()
    workers = threads if workers is None else check_int(workers, "workers")
    cast = model if dtype == torch.float32 else copy.deepcopy(model).to(dtype)

    @torch.inference_mode()
    def check(rows: slice, net: LoopedTransformer) -> tuple[int, bool, list[torch.Tensor]]:
        stream = net.stream(tokens[rows])
        logits = net.readout(stream[-1])[:, -1].float()
        correct = int(strictly_correct(logits, torch.from_numpy(truth[rows])).sum())
        matches = all(
            np.array_equal(decode(x, ceil_log2(group.order)), state[rows])
            for x, state in zip(stream, rounds, strict=True)
        )
        return correct, matches, stream

    if cast is not model:
        first = slice(0, 2)
        narrow, wide = check(first, cast)[2], check(first, model)[2]
        if not all(torch.equal(x.float(), r) for x, r in zip(narrow, wide, strict=True)):
            cast, dtype = model, torch.float32
    batches = [slice(s, s + per_batch) for s in range(0, len(words), per_batch)]
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(workers) as pool:
            done = list(pool.map(lambda rows: check(rows, cast)[:2], batches))
    finally:
        torch.set_num_threads(threads)
    return {
        "accuracy": sum(c for c, _ in done) / len(words),
        "rounds_match_algorithm2": all(m for _, m in done),
        "dtype": str(dtype).removeprefix("torch."),
    }


def verify_group_composition(
    group: str, length: int, samples: int, seed: int, loops: int | None = None
) -> dict[str, Any]:
    """Build the Theorem 2.1 model and check it: on all |G|^n inputs when there are at most
    :data:`EXHAUSTIVE_INPUTS` ("exhaustive": true), else on ``samples`` uniform random inputs."""
    if not 1 <= check_int(samples, "samples") <= 10**6:
        raise InputError(f"samples must lie in 1..{10**6}, got {samples}")
    g = get_group(group)
    n = check_int(length, "length n")
    start = time.perf_counter()
    model, info = build_group_composition(g, n, loops)
    exhaustive = g.order**n <= EXHAUSTIVE_INPUTS
    if exhaustive:
        words = np.indices((g.order,) * n).reshape(n, -1).T
    else:
        words = np.random.default_rng(seed).integers(0, g.order, (samples, n))
    result = run_group_composition(model, g, words)
    return {
        "task": "group-composition",
        **info,
        **result,
        "exhaustive": exhaustive,
        "samples": len(words),
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 2),
    }
