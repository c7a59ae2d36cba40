"""Lemmas B.2-B.5 of the looped-reasoning paper: each calculator against a numpy realisation of
the lemma's construction (exact dyadic arithmetic), and the erratum counts of App. A.1 and
Cor. 2.3."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccomplexity import bounds
from ccomplexity.errors import InputError


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def argmax_mlp(d: int, p: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Lemma B.2's network as three affine maps (W, b): pairs relu(x_j - x_i), then
    relu(2^-p - sum_{j != i}), then times 2^p."""
    pairs = [(i, j) for i in range(d) for j in range(d) if j != i]
    w1 = np.zeros((len(pairs), d))
    w2 = np.zeros((d, len(pairs)))
    for row, (i, j) in enumerate(pairs):
        w1[row, j], w1[row, i] = 1.0, -1.0
        w2[i, row] = -1.0
    return [
        (w1, np.zeros(len(pairs))),
        (w2, np.full(d, 2.0**-p)),
        (np.eye(d) * 2.0**p, np.zeros(d)),
    ]


def run(net: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    for k, (w, b) in enumerate(net):
        x = w @ x + b
        if k < len(net) - 1:
            x = relu(x)
    return x


def dense_and_nonzero(net) -> tuple[int, int]:
    dense = sum(w.size + b.size for w, b in net)
    return dense, sum(int(np.count_nonzero(w) + np.count_nonzero(b)) for w, b in net)


@pytest.mark.parametrize(("d", "p"), [(2, 3), (4, 5), (7, 6)])
def test_lemma_b2_sizes_are_the_constructions(d, p):
    out = bounds.get("looped.lemmaB_2").outputs(dim=d, precision=p)
    net = argmax_mlp(d, p)
    assert out["layers"] == len(net) == 3 and out["width"] == d * d
    assert out["hidden_widths"] == [w.shape[0] for w, _ in net[:-1]]
    assert out["width_used"] == max(out["hidden_widths"]) <= out["width"]
    assert (out["parameter_count"], out["nonzero_parameters"]) == dense_and_nonzero(net)
    rng = np.random.default_rng(d)
    for _ in range(200):  # dyadic inputs in [-2^p, 2^p]: float64 is exact
        x = rng.integers(-(4**p), 4**p, d) / 2.0**p
        k = int(rng.integers(d))
        x[k] = x.max() + 2.0**-p * int(rng.integers(1, 4))  # leads by >= 2^-p
        assert np.array_equal(run(net, x), np.eye(d)[k])
    x = np.zeros(d)
    x[0] = 2.0 ** -(p + 1)  # a lead below 2^-p: the runner-ups are not silenced
    assert not np.array_equal(run(net, x), np.eye(d)[0])


def test_lemma_b2_hand_values():
    out = bounds.get("looped.lemmaB_2").outputs(dim=3, precision=4)
    # 3 -> 6 -> 3 -> 3: 18 + 6 + 18 + 3 + 9 + 3 weights and biases; 12 + 6 + 3 + 3 nonzero
    assert (out["parameter_count"], out["nonzero_parameters"]) == (57, 24)
    assert bounds.get("looped.lemmaB_2").value(dim=3, precision=4) == 9


@pytest.mark.parametrize(("sigma", "d", "p"), [(2, 3, 4), (5, 4, 5)])
def test_lemma_b3_decode_and_embed(sigma, d, p):
    out = bounds.get("looped.lemmaB_3").outputs(alphabet=sigma, model_dim=d, precision=p)
    rng = np.random.default_rng(sigma)
    theta_out = rng.integers(-3, 4, (d, sigma)).astype(float)
    theta_te = rng.integers(-3, 4, (d, sigma)).astype(float)
    (w1, b1), mid, (w3, _) = argmax_mlp(sigma, p)
    net = [(w1 @ theta_out.T, b1), mid, (theta_te @ w3, np.zeros(d))]  # readout, embedding folded
    assert out["layers_used"] == len(net) <= out["layers"] == 5
    assert out["width_used"] == w1.shape[0] <= out["width"] == sigma**2
    assert out["parameter_count"] == dense_and_nonzero(net)[0]
    checked = 0
    for _ in range(300):
        x = rng.integers(-8, 9, d).astype(float)
        logits = x @ theta_out
        top = np.sort(logits)
        if top[-1] - top[-2] < 2.0**-p:
            continue  # no unique argmax with margin 2^-p
        assert np.array_equal(run(net, x), theta_te[:, int(logits.argmax())])
        checked += 1
    assert checked > 100


def test_lemma_b4_control_gate():
    p, d = 3, 2
    out = bounds.get("looped.lemmaB_4").outputs(precision=p, model_dim=d)
    big = 2.0**p
    # inputs (x_1..x_d, y_1..y_d, M); per coordinate c the four ReLUs of the lemma
    w1, b1, w2 = np.zeros((4 * d, 2 * d + 1)), np.zeros(4 * d), np.zeros((d, 4 * d))
    for c in range(d):
        for k, (src, sign, m_weight, bias) in enumerate(
            [
                (c, 1, big, -big),
                (c, -1, big, -big),
                (d + c, 1, -big, 0.0),
                (d + c, -1, -big, 0.0),
            ]
        ):
            row = 4 * c + k
            w1[row, src], w1[row, 2 * d], b1[row] = sign, m_weight, bias
            w2[c, row] = sign
    net = [(w1, b1), (w2, np.zeros(d))]
    assert out["layers"] == len(net) and out["width"] == w1.shape[0] == 4 * d
    assert (out["parameter_count"], out["nonzero_parameters"]) == dense_and_nonzero(net)
    grid = np.arange(-big, big + 0.25, 0.25)
    rng = np.random.default_rng(0)
    for _ in range(500):
        x, y, m = rng.choice(grid, d), rng.choice(grid, d), float(rng.integers(2))
        assert np.array_equal(run(net, np.concatenate([x, y, [m]])), m * x + (1 - m) * y)
    outside = np.array([big + 1, 0.0, 0.0, 0.0, 0.0])  # x beyond 2^p with M = 0 leaks through
    assert run(net, outside)[0] != 0.0


def shift_layer(x: np.ndarray, beta: float) -> np.ndarray:
    """Lemma B.5 as realised by the calculator: two softmax heads over causal positions, keys
    (j, j^2), queries beta (2t, -1), head 1 t = i - 1 copying x, head 2 t = i copying -x, plus
    the residual (the position coordinate, last, is left alone)."""
    n = x.shape[0]
    j = np.arange(1, n + 1, dtype=float)
    keys = np.stack([j, j * j], axis=1)
    out = x.copy()
    for shift, sign in ((1, 1.0), (0, -1.0)):
        queries = beta * np.stack([2 * (j - shift), -np.ones(n)], axis=1)
        scores = queries @ keys.T + np.triu(np.full((n, n), -np.inf), 1)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        out[:, :-1] += sign * weights @ x[:, :-1]
    return out


@pytest.mark.parametrize("d", [2, 5])
def test_lemma_b5_shift(d):
    out = bounds.get("looped.lemmaB_5").outputs(model_dim=d)
    assert (out["attention_layers"], out["heads"], out["mlp_width"]) == (1, 2, 0)
    assert out["key_dim"] == 2 and out["value_dim"] == d - 1
    n = 9
    rng = np.random.default_rng(d)
    x = np.concatenate([rng.normal(size=(n, d - 1)), np.arange(1, n + 1)[:, None]], axis=1)
    want = np.concatenate([x[[0, *range(n - 1)], :-1], x[:, -1:]], axis=1)  # Def. B.5
    assert np.allclose(shift_layer(x, beta=60.0), want, atol=1e-12)
    with pytest.raises(InputError, match="d must be >= 2"):
        bounds.get("looped.lemmaB_5").outputs(model_dim=1)


def test_cor2_3_widths_grow_with_p():
    b = bounds.get("looped.cor2_3")
    extra = [b.outputs(hops=p)["mlp_width_extra"] for p in (1, 2, 4, 32, 1024)]
    assert extra == [5, 6, 7, 10, 15]  # floor(lg p) + 5: Thm 2.2's generic selector
    contiguous = [b.outputs(hops=p)["mlp_width_extra_contiguous"] for p in (1, 32, 1024)]
    assert contiguous == [5, 5, 5]  # steps of the counter at the 2 boundaries: O(1)
    assert "generic" in b.notes and not any("O(1)" in e for e in b.errata)
    via = bounds.get("looped.thm2_2").outputs(
        model_dim=8, mlp_width=16, heads=1, distinct_layers=3, layers=7
    )
    out = b.outputs(hops=32, model_dim=8, mlp_width=16)
    assert (
        (out["looped_model_dim"], out["looped_mlp_width"], out["heads"])
        == (via["looped_model_dim"], via["looped_mlp_width"], via["looped_heads"])
        == (13, 58, 3)
    )
    assert out["looped_mlp_width_contiguous"] == 3 * 16 + 5


@pytest.mark.parametrize("loops", [3, 7, 12])
def test_contiguous_stretches_need_constant_selector(loops):
    from ccomplexity.bounds.looped import stretch_selector

    for b1 in range(2, loops):
        for b2 in range(b1 + 1, loops + 1):  # stretches 1..b1-1, b1..b2-1, b2..L
            for loop in range(1, loops + 1):
                e, neurons = stretch_selector(loop, (b1, b2))
                r = (loop >= b1) + (loop >= b2)
                assert e == [int(i == r) for i in range(3)] and neurons == 5


def test_app_a1_example_count_is_about_1e96():
    out = bounds.get("looped.appA1_examples").outputs()
    total = sum(1000**n for n in (2, 4, 8, 16, 32))
    assert out["distinct_inputs"] == total and len(str(total)) == 97
    assert 96 <= math.log10(total) < 96.0001 and out["log10_inputs"] == 96.0
    assert total < 10**320 // 10**200
    assert bounds.get("looped.appA1_examples").value(operands=4) == 1000**2 + 1000**4


def test_acceptance_commands(ccx_json):
    lemmas = {
        "looped.lemmaB_2": ("--dim", "4", "--precision", "8"),
        "looped.lemmaB_3": ("--alphabet", "5", "--model-dim", "16", "--precision", "8"),
        "looped.lemmaB_4": ("--precision", "8"),
        "looped.lemmaB_5": ("--model-dim", "5"),
    }
    for theorem, args in lemmas.items():
        out = ccx_json("bound", "--theorem", theorem, *args)
        assert out["theorem"] == theorem and out["value"] >= 2
    out = ccx_json("bound", "--theorem", "looped.thm2_1", "--group", "S5", "--length", "8")
    assert out["attention_dim_needed"] >= 7 and out["head_dim"] == 3


@pytest.mark.parametrize(
    "args",
    [
        ("--theorem", "looped.lemmaB_2", "--dim", "0", "--precision", "8"),
        ("--theorem", "looped.lemmaB_3", "--alphabet", "5", "--precision", "8"),
        ("--theorem", "looped.lemmaB_4", "--precision", "-1"),
        ("--theorem", "looped.lemmaB_5", "--model-dim", "1"),
    ],
)
def test_bad_input_exits_2_with_one_line(ccx, args):
    code, out, err = ccx("bound", *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
