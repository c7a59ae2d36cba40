"""The mixture-of-parrots paper's upper bounds as weights of ``concat-transformer``, checked.

* ``length2-path`` (Thm 3.2 / A.5): width |V|, one head. phi(u, v) = e_v when u is s or d and
  v > 0, else 0 (the paper's "u = s or u = v" is a typo for u = d); Q = K = 0 so attention is
  uniform, V = I, and the last token holds y = (1/N) sum_t phi(x_t), whose coordinate i is 2/N
  exactly when i is a common neighbour (the paper's 1/|V| is 1/N unless N = |V|). psi(y) =
  sum_i relu(N y_i - 1) (m' = |V|) is > 0 iff a path exists. In finite precision (floor
  rounding) Q(1/N) N - 1 <= 0 and Q(2/N) N - 1 > 0 need 2^frac > N
  (``parrots.thm3_2_precision``). Checked on every (a, b) when 4^|V| <= 2^16, else on samples.
* ``memorize`` (Thm A.10 / A.11 / A.12): uniform attention and V = I give the last token
  S_i = mean of the sequence, ~ N(0, I/N); expert j holds the A.10 network of the examples
  routed to it: neurons w = S_i, b = -||S_i||^2 + s (s = sigma^2 d / 2, sigma^2 = 1/N) and
  output y_i. K = 1 is A.11 (one expert of n neurons); K > 1 is A.12 with router vectors
  r_j ~ N(0, I) and i -> argmax_j r_j^T S_i. Experts share one width, the largest load (the
  others padded with zero neurons). A trial succeeds when every sign is right; ``strict`` asks
  that every off-diagonal pre-activation be negative (the proof's sufficient condition).
  Reports, over all trials, the measured range of the biases and the largest |weight| next to
  the stated bounds (A.10's bias bound rests on a flawed step: measured, as its erratum asks),
  and the total parameters (and bits, at A.12's explicit bits per parameter) both padded and
  without the padding (each expert exactly its N_j neurons; sum N_j = n).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ccomplexity import bounds, budget, limits
from ccomplexity.bounds.parrots import (
    a12_bits,
    max_load_hoeffding,
    one_layer_parameters,
    thm3_2_precision,
)
from ccomplexity.errors import InputError, check_int
from ccomplexity.languages import graphs
from ccomplexity.languages.memorization import MemorizationSize, gaussian_memorization
from ccomplexity.precision import FixedPoint
from models.concat_transformer import ConcatTransformer, ConcatTransformerConfig

EXHAUSTIVE_LIMIT = 1 << 16
DELTA = 0.01
"""The failure probability the reported bounds are evaluated at (Thm 3.4's 0.99)."""


def length2_path_model(layout: graphs.Layout) -> ConcatTransformer:
    """Thm 3.2's weights for instances on all r = ``layout.vertices`` items (N = 2r + M + 1)."""
    r, n = layout.vertices, layout.length()
    config = ConcatTransformerConfig(
        vocab_size=layout.vocab_size, n_out=2, width=r, heads=1, mlp_width=r, attn_scale=1.0
    )
    model = ConcatTransformer(config)
    with torch.no_grad():
        model.tok.weight.zero_()
        items = torch.arange(1, r + 1)
        model.tok.weight[items, items - 1] = 1.0  # (s, i) -> e_i
        model.tok.weight[r + 1 + items, items - 1] = 1.0  # (d, i) -> e_i
        model.qkv.weight.zero_()
        model.qkv.weight[2 * r :] = torch.eye(r)  # Q = K = 0, V = I
        model.psi.w_in[0] = n * torch.eye(r)  # relu(N y_i - 1)
        model.psi.b_in[0] = -1.0
        model.psi.w_out[0] = 1.0
    return model.eval()


def _last_logits(model: ConcatTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """The model's logits at the last position, through the pieces its forward uses."""
    x = model.embed(tokens)
    z, l = model.partial_sums(model.queries(x[:, -1:]), x)  # noqa: E741
    return model.readout(model.combine(z, l))


def verify_length2_path(
    vertices: int, samples: int, seed: int, middle: int = graphs.DEFAULT_MIDDLE
) -> dict:
    """Build Thm 3.2's model on |V| = ``vertices`` items, run it on the p-bit grid of
    ``thm3_2_precision`` (and in float) and report its accuracy (class 1 iff f > 0)."""
    r = check_int(vertices, "vertices |V|", 2, limits.VERTICES.most, limits.VERTICES.instead)
    check_int(samples, "samples", 1)
    layout = graphs.Layout(r, check_int(middle, "middle", 0))
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    if 4**r <= EXHAUSTIVE_LIMIT:
        codes = np.arange(4**r)
        a = (codes[:, None] >> np.arange(r)) & 1 > 0
        b = (codes[:, None] >> (r + np.arange(r))) & 1 > 0
        answer, exhaustive = graphs.disjointness(a, b), True
    else:
        a, b, answer = graphs.sample_disjointness(r, samples, rng)
        exhaustive = False
    u = rng.integers(1, r, size=(len(a), layout.middle))
    v = u + 1 + np.floor(rng.random(u.shape) * (r - u)).astype(np.int64)
    tokens = torch.from_numpy(layout.encode(a, b, np.stack([u, v], -1)))
    grid = thm3_2_precision(layout.length())
    model = length2_path_model(layout)
    with torch.no_grad():
        float_logits = model(tokens)[:, -1]
        model.set_precision(FixedPoint(grid["precision"], grid["frac"]))
        logits = _last_logits(model, tokens)
    target = torch.from_numpy(answer)
    return {
        "task": "length2-path",
        "theorem": "parrots.thm3_2",
        "vertices": r,
        "middle": layout.middle,
        "length": layout.length(),
        "width": r,
        "heads": 1,
        "mlp_width": r,
        "precision": grid["precision"],
        "frac": grid["frac"],
        "accuracy": float(((logits[:, 1] > 0) == target).double().mean()),
        "float_accuracy": float(((float_logits[:, 1] > 0) == target).double().mean()),
        "samples": len(a),
        "exhaustive": exhaustive,
        "positives": int(answer.sum()),
        "parameters": model.param_count(),
        "seed": seed,
    }


def _a10(points: np.ndarray, labels: np.ndarray, x: np.ndarray, s: float) -> np.ndarray:
    """Pre-activations (len(x), len(points)) of A.10's neurons w = p, b = -||p||^2 + s at x."""
    return x @ points.T - (points * points).sum(1)[None, :] + s


def _trial(size: MemorizationSize, experts: int, seed: int) -> dict[str, Any]:
    x, y = gaussian_memorization(size, seed)
    s_i = x.mean(axis=1)  # uniform attention with V = I: S_i ~ N(0, I / N)
    shift = size.dim / size.length / 2  # s = sigma^2 d / 2 with sigma^2 = 1 / N
    if experts == 1:
        route = np.zeros(size.examples, dtype=np.int64)
        router = np.zeros((1, size.dim))
    else:
        router = np.random.default_rng([seed, 2]).standard_normal((experts, size.dim))
        route = (s_i @ router.T).argmax(1)
    loads = np.bincount(route, minlength=experts)
    f = np.zeros(size.examples)
    strict = True
    for j in np.flatnonzero(loads):
        own = np.flatnonzero(route == j)
        z = _a10(s_i[own], y[own], s_i[own], shift)
        f[own] = np.maximum(z, 0) @ y[own]
        off = z[~np.eye(len(own), dtype=bool)]
        strict &= bool((off < 0).all())
    bias = shift - (s_i * s_i).sum(1)  # every example is one neuron of its expert
    return {
        "x": x,
        "y": y,
        "router": router,
        "route": route,
        "loads": loads,
        "success": bool((f * y > 0).all()),
        "strict": strict,
        "f": f,
        "bias": (float(bias.min()), float(bias.max())),
        "weight": float(np.abs(s_i).max()),
    }


def memorizer_model(trial: dict[str, Any], size: MemorizationSize) -> ConcatTransformer:
    """The A.11 / A.12 weights of one trial as a ``concat-transformer`` (vector inputs)."""
    loads, experts = trial["loads"], len(trial["loads"])
    width = int(loads.max())
    config = ConcatTransformerConfig(
        n_out=2,
        width=size.dim,
        mlp_width=width,
        experts=experts,
        input_dim=size.dim,
        attn_scale=1.0,
        gate="argmax",
    )
    model = ConcatTransformer(config).double()
    s_i = trial["x"].mean(axis=1)
    shift = size.dim / size.length / 2
    with torch.no_grad():
        model.qkv.weight.zero_()
        model.qkv.weight[2 * size.dim :] = torch.eye(size.dim)
        for p in (model.psi.w_in, model.psi.b_in, model.psi.w_out):
            p.zero_()
        if model.psi.router is not None:
            model.psi.router.copy_(torch.from_numpy(trial["router"]))
        for j in range(experts):
            own = np.flatnonzero(trial["route"] == j)
            pts = torch.from_numpy(s_i[own])
            model.psi.w_in[j, :, : len(own)] = pts.T
            model.psi.b_in[j, : len(own)] = -(pts * pts).sum(1) + shift
            model.psi.w_out[j, : len(own), 0] = torch.from_numpy(trial["y"][own]).double()
    return model.eval()


def verify_memorize(
    examples: int, dim: int, experts: int = 1, trials: int = 20, seed: int = 0, length: int = 8
) -> dict:
    """Thm A.11 (K = 1) or A.12 (K > 1) over ``trials`` fresh data sets (seeds seed..seed+T-1):
    the success rate, router loads and the parameter counts of the models that hold them."""
    size = MemorizationSize(examples, length, dim)
    k = check_int(experts, "experts K", 1)
    t = limits.TRIALS.check(trials, "trials")
    if k > size.examples:
        raise InputError(f"need experts <= examples, got {k} experts and {size.examples} examples")
    check_int(seed, "seed", 0)
    budget.check(
        f"the memoriser of {size.examples} examples in dimension {size.dim} with {k} experts "
        f"over {t} trials",
        *budget.memorizer(size.examples, size.length, size.dim, k, t),
        "use fewer examples, trials or more experts",
    )
    runs = [_trial(size, k, seed + i) for i in range(t)]
    first = runs[0]
    model = memorizer_model(first, size)
    with torch.no_grad():
        f = model(torch.from_numpy(first["x"]))[:, -1, 1].numpy()
    loads = np.stack([r["loads"] for r in runs])
    width = int(loads.max())
    counts = one_layer_parameters(size.dim, 1, width, k, 1, 0, 2)
    unpadded = counts["total"] - k * counts["expert"] + size.examples * (size.dim + 2)
    if k > 1:
        bits = a12_bits(size.examples, size.length, size.dim, k, DELTA)
        weight_bound, bias_bound = bits["weight_bound"], bits["bias_bound"]
        per = bits["bits_per_parameter"]
    else:
        a11 = bounds.get("parrots.thmA_11").outputs(
            examples=size.examples, length=size.length, dim=size.dim, delta=DELTA
        )
        weight_bound, bias_bound, per = a11["weight_bound"], a11["bias_bound_stated"], None
    low = min(r["bias"][0] for r in runs)
    high = max(r["bias"][1] for r in runs)
    return {
        "task": "memorize",
        "theorem": "parrots.thmA_12 (Thm 3.4)" if k > 1 else "parrots.thmA_11",
        "examples": size.examples,
        "length": size.length,
        "dim": size.dim,
        "experts": k,
        "trials": t,
        "seed": seed,
        "success_rate": float(np.mean([r["success"] for r in runs])),
        "strict_success_rate": float(np.mean([r["strict"] for r in runs])),
        "max_expert_load": width,
        "min_expert_load": int(loads.min()),
        "mean_expert_load": size.examples / k,
        "max_load_hoeffding": max_load_hoeffding(size.examples, k, 0.01) if k > 1 else None,
        "hoeffding_violated_trials": int(
            (loads.max(1) > max_load_hoeffding(size.examples, k, 0.01)).sum()
        )
        if k > 1
        else 0,
        "mlp_width": width,
        "active_parameters": counts["active"],
        "total_parameters": counts["total"],
        "active_parameters_paper": size.dim * size.examples / k + size.dim * k,
        "total_parameters_unpadded": unpadded,
        "bits_per_parameter_a12": per,
        "total_bits": None if per is None else per * counts["total"],
        "total_bits_unpadded": None if per is None else per * unpadded,
        "bias_min_measured": low,
        "bias_max_measured": high,
        "bias_abs_max_measured": max(abs(low), abs(high)),
        "bias_bound_stated": bias_bound,
        "weight_abs_max_measured": max(r["weight"] for r in runs),
        "weight_bound": weight_bound,
        "bounds_delta": DELTA,
        "neurons_used": size.examples,
        "model_signs_match_first_trial": bool(((f > 0) == (first["f"] > 0)).all()),
        "model_success_first_trial": bool((f * first["y"] > 0).all()),
    }
