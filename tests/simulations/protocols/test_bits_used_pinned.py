"""Pinned values of ``simulations.protocols.bits_used`` against brute force.

Pinned here: the measurement (:func:`_measure`) on a hand-made two-number recurrent state,
every value recomputed in plain Python from the definition (int_bits to hold the largest |state|,
the rest fractional, round to nearest with ties to even, saturating at +-(2^(p-1) - 1); the
agreement, the distinct rounded states over all prefixes, the smallest full-agreement p and the
p from which every larger p agrees); the toy tasks' inputs, prefixes and one-way bounds; every
check of precisions, lengths, cuts and samples at, below and above its limit; the seeded
model's vocabulary (by its SHA-256); and a trained checkpoint (one training step, width 2).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from ccomplexity import lower_bounds
from ccomplexity.errors import InputError
from models.constructions.dfa_rnn import random_words
from simulations.protocols import bits_used as BU
from simulations.protocols import rnn
from tests.simulations.protocols.untrained import save_untrained

# ----------------------------------------------------------------------------- a known state

WA = [-0.364, 1.386, -1.186]
WB = [0.638, -0.797, 0.129]
THETA = -0.298
INPUTS = [
    [0, 0, 1, 1], [0, 2, 1, 2], [2, 0, 2, 2], [1, 1, 1, 2], [0, 1, 0, 2], [1, 2, 1, 2],
    [2, 2, 2, 0], [0, 2, 2, 0], [0, 0, 0, 1], [2, 2, 0, 0], [2, 0, 2, 1], [2, 2, 2, 0],
]  # fmt: skip


class TwoSums:
    """A recurrent state (a, b) = (sum WA[s], sum WB[s]); logits (a b - theta, 0) per step."""

    def __init__(self, wa: list[float], wb: list[float], theta: float) -> None:
        self.wa = torch.tensor(wa, dtype=torch.float64)
        self.wb = torch.tensor(wb, dtype=torch.float64)
        self.theta = theta

    def state_numel(self) -> int:
        return 2

    def run_steps(self, tokens: torch.Tensor, state: dict[str, torch.Tensor] | None = None):
        n = tokens.shape[0]
        zero = torch.zeros(n, 1, dtype=torch.float64)
        a = zero.clone() if state is None else state["a"].clone()
        b = zero.clone() if state is None else state["b"].clone()
        outs = []
        for i in range(tokens.shape[1]):
            a = a + self.wa[tokens[:, i]][:, None]
            b = b + self.wb[tokens[:, i]][:, None]
            outs.append(torch.cat([a * b - self.theta, torch.zeros_like(a)], 1))
        return torch.stack(outs, 1), {"a": a, "b": b}


def py_state(word, wa, wb, start=(0.0, 0.0)) -> tuple[float, float]:
    a, b = start
    for s in word:
        a, b = a + wa[s], b + wb[s]
    return a, b


def py_round(x: float, p: int, frac: int) -> float:
    raw = round(x * 2**frac)  # Python's round: ties to even
    top = 2 ** (p - 1) - 1
    return max(-top, min(top, raw)) / 2**frac


def brute(wa, wb, theta, inputs, cut, prefixes, ps) -> dict:
    """Every number of the measurement from the definition, in plain Python."""

    def decide(a, b):  # the argmax of (a b - theta, 0): class 0 only when strictly larger
        return 0 if a * b - theta > 0 else 1

    ref = [decide(*py_state(w, wa, wb)) for w in inputs]
    at_cut = [py_state(w[:cut], wa, wb) for w in inputs]
    cut_states = at_cut if prefixes is None else [py_state(w, wa, wb) for w in prefixes]
    largest = max(abs(v) for s in at_cut + cut_states for v in s)
    int_bits = max(0, math.floor(math.log2(largest)) + 1) if largest > 0 else 0
    agreement, distinct = {}, {}
    for p in ps:
        frac = min(p - 1, max(0, p - 1 - int_bits))
        same = 0
        for w, s, r in zip(inputs, at_cut, ref, strict=True):
            start = (py_round(s[0], p, frac), py_round(s[1], p, frac))
            same += decide(*py_state(w[cut:], wa, wb, start)) == r
        agreement[p] = same / len(inputs)
        distinct[p] = len({(py_round(a, p, frac), py_round(b, p, frac)) for a, b in cut_states})
    return {
        "reference": ref,
        "largest": largest,
        "int_bits": int_bits,
        "agreement": agreement,
        "distinct": distinct,
        "float_states": len(set(cut_states)),
    }


def test_measure_against_the_definition() -> None:
    model = TwoSums(WA, WB, THETA)
    inputs = torch.tensor(INPUTS)
    prefixes = BU._all_prefixes(3, 2)
    ps = [2, 3, 4, 5, 6, 7, 8, 12]
    r = BU._measure(model, inputs, 2, prefixes, ps, None)
    want = brute(WA, WB, THETA, INPUTS, 2, prefixes.tolist(), ps)
    assert r["max_abs_state"] == pytest.approx(want["largest"], abs=1e-12)
    assert r["int_bits"] == want["int_bits"] == 2
    assert r["agreement_by_precision"] == pytest.approx(want["agreement"], abs=0)
    assert r["distinct_states_by_precision"] == want["distinct"]
    assert r["smallest_full_agreement_precision"] == 2  # full at 2, then not at 3..5
    assert r["full_agreement_from"] == 6
    assert r["bits_used"] == 2 * 2
    assert r["distinct_states_precision"] == 2
    assert r["distinct_states_at_cut"] == want["distinct"][2] == 5
    assert r["log2_distinct_states"] == math.log2(5)
    assert r["distinct_float_states"] == want["float_states"] == 6
    assert r["prefixes_at_cut"] == 9
    ref = want["reference"]
    assert r["reference_majority_fraction"] == max(ref.count(0), ref.count(1)) / len(ref) == 0.75
    assert r["task_accuracy"] is None and r["rounding"] == "nearest"


def test_measure_without_prefixes_and_with_targets() -> None:
    model = TwoSums(WA, WB, THETA)
    inputs = torch.tensor(INPUTS)
    ps = [3, 4, 9]
    r = BU._measure(model, inputs, 1, None, ps, torch.tensor([0] * 6 + [1] * 6))
    want = brute(WA, WB, THETA, INPUTS, 1, None, ps)
    assert r["prefixes_at_cut"] == 12 and r["int_bits"] == want["int_bits"]
    assert r["agreement_by_precision"] == want["agreement"]
    assert r["distinct_states_by_precision"] == want["distinct"]
    ref = want["reference"]
    acc = sum(int(x == y) for x, y in zip(ref, [0] * 6 + [1] * 6, strict=True)) / 12
    assert r["task_accuracy"] == acc


def test_measure_when_no_precision_agrees_and_the_state_is_large() -> None:
    # |a| up to 7.5 at the cut: 3 integer bits; at p = 2 and 3 the numbers saturate
    wa, wb = [2.5, -2.5], [1.0, 1.0]
    model = TwoSums(wa, wb, 0.5)
    words = [list(w) for w in itertools.product(range(2), repeat=4)]
    inputs = torch.tensor(words)
    prefixes = [w[:3] for w in words[::2]]
    r = BU._measure(model, inputs, 3, BU._all_prefixes(2, 3), [2, 3], None)
    want = brute(wa, wb, 0.5, words, 3, prefixes, [2, 3])
    assert r["int_bits"] == want["int_bits"] == 3
    assert r["agreement_by_precision"] == want["agreement"]
    assert max(want["agreement"].values()) < 1.0
    assert r["smallest_full_agreement_precision"] is None and r["full_agreement_from"] is None
    assert r["bits_used"] is None
    assert r["distinct_states_precision"] == 3  # the largest p tried
    assert r["distinct_states_at_cut"] == want["distinct"][3]


def test_measure_with_no_integer_bits() -> None:
    wa, wb = [w / 5 for w in WA], [w / 5 for w in WB]  # |state| < 1: every bit but the sign
    model = TwoSums(wa, wb, THETA / 25)
    prefixes = BU._all_prefixes(3, 2)
    ps = [2, 3, 4, 5, 6]
    r = BU._measure(model, torch.tensor(INPUTS), 2, prefixes, ps, None)
    want = brute(wa, wb, THETA / 25, INPUTS, 2, prefixes.tolist(), ps)
    assert r["int_bits"] == want["int_bits"] == 0
    assert r["distinct_states_by_precision"] == want["distinct"]
    assert r["agreement_by_precision"] == want["agreement"]
    assert len(set(want["distinct"].values())) > 2  # the counts tell the grids apart


def test_measure_of_a_zero_state() -> None:
    model = TwoSums([0.0, 0.0], [0.0, 0.0], -1.0)
    inputs = torch.tensor([[0, 1, 1], [1, 0, 0]])
    r = BU._measure(model, inputs, 1, BU._all_prefixes(2, 1), [2, 4], None)
    assert r["max_abs_state"] == 0.0 and r["int_bits"] == 0
    assert r["distinct_states_at_cut"] == 1 and r["log2_distinct_states"] == 0.0
    assert r["smallest_full_agreement_precision"] == 2 and r["full_agreement_from"] == 2
    assert r["reference_majority_fraction"] == 1.0


def test_measure_int_bits_at_a_power_of_two() -> None:
    # largest |state| exactly 1: floor(log2 1) + 1 = 1 integer bit; 0.5: 0 bits
    for w, bits in ((1.0, 1), (0.5, 0), (0.75, 0), (2.0, 2)):
        model = TwoSums([w, 0.0], [0.0, 0.0], 0.0)
        r = BU._measure(model, torch.tensor([[0, 1]]), 1, None, [4], None)
        assert r["int_bits"] == bits, w


# ----------------------------------------------------------------------------- toy tasks


def test_all_prefixes_and_their_limit() -> None:
    assert BU._all_prefixes(3, 2).tolist() == [
        list(w) for w in itertools.product(range(3), repeat=2)
    ]
    assert BU._all_prefixes(2, 1).tolist() == [[0], [1]]
    at = BU._all_prefixes(4, 8)  # 4^8 = 65536 = PREFIX_LIMIT
    assert at is not None and at.shape == (65536, 8) and at[-1].tolist() == [3] * 8
    assert at[1].tolist() == [0] * 7 + [1]
    assert BU._all_prefixes(2, 17) is None
    assert BU.PREFIX_LIMIT == 1 << 16 and BU.LENGTH_LIMIT == 64 and BU.SAMPLE_LIMIT == 1 << 18


def test_dyck_task_inputs_and_bound() -> None:
    words, prefixes, bound, alphabet = BU._task("dyck", 6, 3, 7, 5)
    expect = random_words(2, 2, 6, 7, np.random.default_rng(5))
    assert words.dtype == torch.int64 and words.tolist() == expect.tolist()
    assert bound == lower_bounds.one_way_bits_dyck(2, 2, 6, 3).bits and alphabet == 4
    assert prefixes.tolist() == BU._all_prefixes(4, 3).tolist()
    _, _, last, _ = BU._task("dyck", 6, 5, 1, 0)  # K = N - 1
    assert last == lower_bounds.one_way_bits_dyck(2, 2, 6, 5).bits


def test_index_task_inputs_and_bound() -> None:
    words, prefixes, bound, alphabet = BU._task("index", 4, 4, 6, 2)  # K = N allowed
    rng = np.random.default_rng(2)
    a = rng.integers(0, 2, size=(6, 4))
    q = 2 + rng.integers(0, 4, size=(6, 1))
    assert words.tolist() == np.concatenate([a, q], axis=1).tolist()
    assert (bound, alphabet) == (4, 2)
    assert prefixes.shape == (16, 4)
    assert BU._task("index", 4, 1, 1, 0)[2] == 1


@pytest.mark.parametrize(
    ("task", "length", "cut", "samples", "needle"),
    [
        ("copy", 6, 2, 5, "^unknown task 'copy'; choose one of dyck, index$"),
        ("dyck", 1, 1, 5, r"^length N must be an integer in 2\.\.64, got 1$"),
        ("dyck", 66, 1, 5, r"^length N must be an integer in 2\.\.64, got 66$"),
        ("index", 65, 1, 5, r"got 65$"),
        ("index", True, 1, 5, r"got True$"),
        ("index", 4.0, 1, 5, r"got 4\.0$"),
        ("dyck", 6, 6, 5, "^cut K must satisfy 1 <= K <= 5 for task dyck, got 6$"),
        ("dyck", 6, 0, 5, "^cut K must satisfy 1 <= K <= 5 for task dyck, got 0$"),
        ("index", 6, 7, 5, "^cut K must satisfy 1 <= K <= 6 for task index, got 7$"),
        ("index", 6, True, 5, "^cut K must satisfy 1 <= K <= 6 for task index, got True$"),
        ("index", 6, 2.0, 5, r"^cut K must satisfy 1 <= K <= 6 for task index, got 2\.0$"),
        ("dyck", 6, True, 5, "^cut K must satisfy 1 <= K <= 5 for task dyck, got True$"),
        ("dyck", 7, 2, 5, "^Dyck words need an even length, got 7$"),
        ("dyck", 6, 2, 0, r"^samples must be an integer in 1\.\.262144, got 0$"),
        ("dyck", 6, 2, 262145, "got 262145$"),
        ("dyck", 6, 2, True, "got True$"),
        ("dyck", 6, 2, 2.0, r"got 2\.0$"),
    ],
)
def test_task_refusals(task, length, cut, samples, needle) -> None:
    with pytest.raises(InputError, match=needle):
        BU._task(task, length, cut, samples, 0)


def test_limits_are_allowed_at_their_ends() -> None:
    BU._check_samples(1)
    BU._check_samples(1 << 18)
    assert BU._task("index", 64, 1, 1, 0)[0].shape == (1, 65)
    assert BU._task("dyck", 2, 1, 1, 0)[0].shape == (1, 2)


@pytest.mark.parametrize("given", [[1], [54], [], [2, True], [2.0], [0, 5], [-3]])
def test_precisions_refusals(given) -> None:
    with pytest.raises(
        InputError, match=r"^precisions must be a non-empty set of integers in 2\.\.53, got"
    ):
        BU._precisions(given)


def test_precisions_sorted_without_repeats() -> None:
    assert BU._precisions([53, 2, 7, 2]) == [2, 7, 53]
    assert BU._precisions(range(2, 4)) == [2, 3]


def test_claims_of_the_toy_tasks() -> None:
    assert BU._claim("dyck").bound_id == "separations.lemma4"
    assert BU._claim("index").problem == "separations.fact3"
    assert BU._claim("index-lookup").bound_id == "separations.thm3"
    assert BU.TASKS == ("dyck", "index") and BU.CHECKPOINT_TASKS == ("dyck", "index-lookup")
    assert BU.CLAIM_TASKS == {"index": "index-lookup"}


def test_distinct_and_flat() -> None:
    state = {"h": torch.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]]), "c": torch.ones(3, 1, 1)}
    assert BU._flat(state).tolist() == [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0], [0.0, 2.0, 1.0]]
    assert BU._distinct(state) == 2


# ----------------------------------------------------------------------------- whole runs


@pytest.mark.parametrize(("task", "length", "cut"), [("dyck", 4, 2), ("index", 3, 3)])
def test_seeded_run_reports_its_model_and_bound(task: str, length: int, cut: int) -> None:
    r = BU.bits_used("gru", 2, length, cut, seed=3, task=task, precisions=[4, 8], samples=5)
    vocab = 4 if task == "dyck" else 2 + length
    source = rnn.recurrent_source("gru", 2, 3, vocab_size=vocab, n_out=2)
    assert r["state_sha256"] == source.description["state_sha256"]
    assert (r["arch"], r["width"], r["task"], r["length"], r["cut"], r["seed"]) == (
        "gru", 2, task, length, cut, 3,
    )  # fmt: skip
    assert r["checkpoint"] is None and r["samples"] == 5 and r["state_numel"] == 2
    assert r["alphabet_at_cut"] == (4 if task == "dyck" else 2)
    assert r["exhaustive"] is True and r["task_accuracy"] is None
    bound = lower_bounds.one_way_bits_dyck(2, 2, 4, 2).bits if task == "dyck" else cut
    assert r["one_way_lower_bound_bits"] == bound
    claim = BU._claim(task)
    assert r["claim"] == {k: getattr(claim, k) for k in ("task", "family", "bound_id", "role",
                                                          "problem")}  # fmt: skip
    assert sorted(r["agreement_by_precision"]) == [4, 8]


def test_seeded_run_default_task_is_dyck_and_not_exhaustive_past_the_limit() -> None:
    r = BU.bits_used("gru", 2, 6, 5, seed=0, precisions=[3], samples=3)
    assert r["task"] == "dyck" and r["exhaustive"] is True and r["prefixes_at_cut"] == 4**5
    big = BU.bits_used("gru", 2, 18, 17, seed=0, task="index", precisions=[3], samples=3)
    assert big["exhaustive"] is False and big["prefixes_at_cut"] == 3


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"cut": None}, r"^give the cut K \(Alice holds the first K tokens\)$"),
        ({"arch": None}, "^give arch, width and length, or a checkpoint$"),
        ({"width": None}, "^give arch, width and length, or a checkpoint$"),
        ({"length": None}, "^give arch, width and length, or a checkpoint$"),
        ({"precisions": []}, "^precisions must be"),
    ],
)
def test_run_refusals(kwargs: dict, needle: str) -> None:
    args = {"arch": "gru", "width": 2, "length": 4, "cut": 2, "seed": 0, "samples": 2, **kwargs}
    with pytest.raises(InputError, match=needle):
        BU.bits_used(**args)


# ----------------------------------------------------------------------------- checkpoints


def _train(folder: Path, task: str, length: int) -> str:
    """A checkpoint of an untrained width-2 GRU for ``task`` (saved as training saves it)."""
    torch.manual_seed(0)
    return save_untrained(folder, task=task, arch="gru", width=2, length=length, lr=1e-2, heads=1)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("bits_used_checkpoints")
    return {"dyck": _train(folder, "dyck", 4), "index": _train(folder, "index-lookup", 2),
            "copy": _train(folder, "eq-random", 2)}  # fmt: skip


def test_trained_dyck_checkpoint(checkpoints: dict[str, str]) -> None:
    from simulations.tasks import get_task

    path = checkpoints["dyck"]
    r = BU.bits_used(cut=3, seed=2, samples=6, precisions=[5, 9], checkpoint=path)
    assert (r["arch"], r["width"], r["task"], r["length"], r["cut"]) == ("gru", 2, "dyck", 4, 3)
    assert r["checkpoint"] == str(path) and r["samples"] == 6 and r["seed"] == 2
    assert r["one_way_lower_bound_bits"] == lower_bounds.one_way_bits_dyck(2, 2, 4, 3).bits
    assert r["alphabet_at_cut"] == 4 and r["prefixes_at_cut"] == 4**3 and r["exhaustive"]
    sampler = get_task("dyck", 4)
    tokens, targets, _ = sampler.sample(6, 4, torch.Generator().manual_seed(2), train=False)
    source = rnn.recurrent_source(None, None, 0, path)
    model = source.model.to(torch.float64)
    with torch.no_grad():
        ref = model.run_steps(tokens)[0][:, -1].argmax(-1)
    assert r["task_accuracy"] == float((ref == targets[:, -1]).double().mean())
    assert r["state_sha256"] == source.description["state_sha256"]
    assert r["claim"]["bound_id"] == "separations.lemma4"
    with pytest.raises(InputError, match=r"^cut K must satisfy 1 <= K <= 3 for task dyck, got 4$"):
        BU.bits_used(cut=4, samples=2, checkpoint=path)
    with pytest.raises(InputError, match="^cut K must satisfy 1 <= K <= 3 for task dyck, got 0$"):
        BU.bits_used(cut=0, samples=2, checkpoint=path)
    with pytest.raises(InputError, match=r"^samples must be an integer in 1\.\.262144, got 0$"):
        BU.bits_used(cut=1, samples=0, checkpoint=path)
    assert BU.bits_used(cut=1, samples=1, precisions=[4], checkpoint=path)["samples"] == 1
    with pytest.raises(InputError, match="task 'index' disagrees with checkpoint"):
        BU.bits_used(cut=1, samples=1, task="index", checkpoint=path)
    same = BU.bits_used(cut=1, samples=1, precisions=[4], task="dyck", length=4, checkpoint=path)
    assert same["length"] == 4


def test_trained_index_lookup_checkpoint(checkpoints: dict[str, str]) -> None:
    path = checkpoints["index"]
    r = BU.bits_used(cut=2, samples=3, precisions=[4], checkpoint=path)  # K = N
    assert r["task"] == "index-lookup" and r["alphabet_at_cut"] == 64
    assert r["one_way_lower_bound_bits"] == 12 and r["prefixes_at_cut"] == 64**2
    assert r["claim"]["bound_id"] == "separations.thm3"
    one = BU.bits_used(cut=1, samples=3, precisions=[4], checkpoint=path)
    assert one["one_way_lower_bound_bits"] == 6
    with pytest.raises(InputError, match="for task index-lookup, got 3$"):
        BU.bits_used(cut=3, samples=3, checkpoint=path)


def test_checkpoint_of_another_task_is_refused(checkpoints: dict[str, str]) -> None:
    path = checkpoints["copy"]
    with pytest.raises(
        InputError,
        match=f"^checkpoint {path} was trained on eq-random; bits_used supports dyck, "
        "index-lookup$",
    ):
        BU.bits_used(cut=1, samples=2, checkpoint=path)


# ----------------------------------------------------------------------------- second round


def test_measure_without_full_agreement_reports_the_largest_p() -> None:
    # three precisions, none in full agreement: the counts are reported at the largest, p = 4
    wa, wb = [2.5, -2.5], [1.0, 1.0]
    words = [list(w) for w in itertools.product(range(2), repeat=4)]
    ps = [2, 3, 4]
    r = BU._measure(TwoSums(wa, wb, 0.5), torch.tensor(words), 3, BU._all_prefixes(2, 3), ps, None)
    want = brute(wa, wb, 0.5, words, 3, [w[:3] for w in words[::2]], ps)
    assert r["agreement_by_precision"] == want["agreement"] and max(want["agreement"].values()) < 1
    assert r["smallest_full_agreement_precision"] is None
    assert r["distinct_states_precision"] == 4
    assert r["distinct_states_at_cut"] == want["distinct"][4] == 4


def test_trained_task_inputs_labels_and_bounds() -> None:
    from simulations.tasks import get_task

    tokens, targets, prefixes, bound, alphabet = BU._trained_task("dyck", 6, 3, 5, 1)
    want = get_task("dyck", 6).sample(5, 6, torch.Generator().manual_seed(1), train=False)
    assert tokens.tolist() == want[0].tolist() and targets.tolist() == want[1][:, -1].tolist()
    assert bound == lower_bounds.one_way_bits_dyck(2, 2, 6, 3).bits == 2  # depth 3 would give 4
    assert alphabet == 4 and prefixes.tolist() == BU._all_prefixes(4, 3).tolist()
    # index lookup at N = 12 > its shortest training length: only train=False ends every
    # example at the last position (and draws these tokens)
    tokens, targets, prefixes, bound, alphabet = BU._trained_task("index-lookup", 12, 1, 8, 0)
    want = get_task("index-lookup", 12).sample(8, 12, torch.Generator().manual_seed(0), train=False)
    assert tokens.tolist() == want[0].tolist() and targets.tolist() == want[1][:, -1].tolist()
    assert (bound, alphabet) == (6, 64) and prefixes.shape == (64, 1)


@pytest.mark.parametrize(
    ("cut", "needle"),
    [(True, "got True$"), (2.0, r"got 2\.0$"), (0, "got 0$"), (6, "got 6$")],
)
def test_trained_task_cut_refusals(cut, needle: str) -> None:
    with pytest.raises(
        InputError, match="^cut K must satisfy 1 <= K <= 5 for task dyck, " + needle
    ):
        BU._trained_task("dyck", 6, cut, 2, 0)


class _FakeSampler:
    """A task sampler whose counted positions are given (to reach the consistency check)."""

    vocab_size = 4

    def __init__(self, mask: list[list[bool]]) -> None:
        self.mask = torch.tensor(mask)

    def sample(self, batch, length, generator, train):
        zeros = torch.zeros(self.mask.shape, dtype=torch.long)
        return zeros, zeros, self.mask


@pytest.mark.parametrize(
    "mask",
    [
        [[False, False, False, True], [False, True, False, True]],  # last, and one more
        [[True, False, False, False], [False, False, False, True]],  # one each, not the last
    ],
)
def test_trained_task_needs_one_counted_position_the_last(
    monkeypatch: pytest.MonkeyPatch, mask: list[list[bool]]
) -> None:
    import simulations.tasks

    monkeypatch.setattr(simulations.tasks, "get_task", lambda task, length: _FakeSampler(mask))
    with pytest.raises(
        RuntimeError, match="^dyck: expected one counted position per example, the last one$"
    ):
        BU._trained_task("dyck", 4, 1, 2, 0)
    good = [[False, False, False, True]] * 2
    monkeypatch.setattr(simulations.tasks, "get_task", lambda task, length: _FakeSampler(good))
    assert (
        BU._trained_task("dyck", 4, 1, 2, 0)[3] == lower_bounds.one_way_bits_dyck(2, 2, 4, 1).bits
    )


def test_seeded_run_defaults_seed_0_and_1000_samples() -> None:
    r = BU.bits_used("gru", 2, 4, 2, precisions=[4])
    assert r["seed"] == 0 and r["samples"] == 1000
    source = rnn.recurrent_source("gru", 2, 0, vocab_size=4, n_out=2)
    assert r["state_sha256"] == source.description["state_sha256"]


def test_seeded_run_measures_the_inputs_of_its_seed() -> None:
    # not exhaustive (2^17 prefixes): every count comes from the seed's own test inputs
    r = BU.bits_used("gru", 2, 18, 17, seed=4, task="index", precisions=[3, 6], samples=20)
    inputs, prefixes, _, _ = BU._task("index", 18, 17, 20, 4)
    assert prefixes is None
    model = rnn.recurrent_source("gru", 2, 4, vocab_size=20, n_out=2).model.to(torch.float64)
    want = BU._measure(model, inputs, 17, None, [3, 6], None)
    assert {k: r[k] for k in want} == want


def test_checkpoint_refuses_another_width(checkpoints: dict[str, str]) -> None:
    path = checkpoints["dyck"]
    with pytest.raises(InputError, match="^width 3 disagrees with checkpoint"):
        BU.bits_used(width=3, cut=1, samples=1, checkpoint=path)
    assert BU.bits_used(width=2, cut=1, samples=1, precisions=[4], checkpoint=path)["width"] == 2
