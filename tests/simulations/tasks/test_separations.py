"""Task samplers (App. H.1 / H.2) against the exact oracles of ``ccomplexity.languages``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages import dyck, retrieval, strings
from simulations.tasks import TASKS, Task, get_task
from simulations.tasks.separations import h1_corrupt, h1_positives, is_dyck22

SAMPLES = 2000


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def last_counted(mask: torch.Tensor) -> np.ndarray:
    """Index of the last counted position of each row."""
    width = mask.shape[1]
    return (width - 1 - mask.flip(1).int().argmax(1)).numpy()


def test_registry():
    separations = ("index-lookup", "dyck", "eq-random", "eq-one", "eq-ncp", "mqar")
    assert TASKS[: len(separations)] == separations  # then the other papers' tasks
    for name in TASKS:
        task = get_task(name, 8)
        assert isinstance(task, Task) and task.name == name
        tokens, targets, mask = task.sample(4, 8, gen(), train=True)
        assert targets.dtype == torch.long and mask.dtype == torch.bool
        assert tokens.shape[:2] == targets.shape == mask.shape
        assert tokens.shape[1] <= task.max_tokens
        if task.input_dim() is None:  # tokens (memorize reads vectors)
            assert tokens.dtype == torch.long
            assert int(tokens.min()) >= 0 and int(tokens.max()) < task.vocab_size
        assert int(targets.min()) >= 0 and int(targets.max()) < task.n_out
        assert mask.any(1).all()


def test_errors():
    with pytest.raises(InputError, match="unknown task 'copy'; known: index-lookup"):
        get_task("copy", 10)
    with pytest.raises(InputError, match="no option"):
        get_task("dyck", 10, alphabet=3)
    with pytest.raises(InputError, match="even"):
        get_task("dyck", 11)
    with pytest.raises(InputError, match="even"):
        get_task("eq-random", 9)
    task = get_task("index-lookup", 10)
    with pytest.raises(InputError, match="exceeds"):
        task.sample(2, 11, gen())
    with pytest.raises(InputError, match="generator"):
        task.sample(2, 10, 0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="batch"):
        task.sample(0, 10, gen())


@pytest.mark.parametrize("name", TASKS)
def test_seeded(name):
    task = get_task(name, 12)
    a = task.sample(16, 12, gen(5))
    b = task.sample(16, 12, gen(5))
    c = task.sample(16, 12, gen(6))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    assert not torch.equal(a[0], c[0])


@pytest.mark.parametrize("train", [True, False])
def test_index_lookup_matches_oracle(train):
    n = 30
    task = get_task("index-lookup", n)
    assert (task.vocab_size, task.n_out, task.max_tokens) == (64 + n + 1, 64, n + 1)
    tokens, targets, mask = task.sample(SAMPLES, n, gen(1), train=train)
    assert tokens.shape == (SAMPLES, n + 1)
    assert int(mask.sum()) == SAMPLES  # one counted position per row
    k = last_counted(mask)
    if train:  # App. H.1: k uniform in [10, N]
        assert k.min() == 10 and k.max() == n and len(np.unique(k)) == n - 9
    else:
        assert (k == n).all()
    t = tokens.numpy()
    rows = np.arange(SAMPLES)
    p = t[rows, k] - 64 + 1  # the position token, 1-based
    assert (p >= 1).all() and (p <= k).all()
    assert p.min() == 1 and (p == k).any()
    col = np.arange(n + 1)[None, :]
    assert (t[col < k[:, None]] < 64).all()
    assert (t[col > k[:, None]] == task.pad).all()
    expected = retrieval.index_lookup(t[:, :n], p)
    assert (targets.numpy()[rows, k] == expected).all()


@pytest.mark.parametrize("reading", ["three-way", "half"])
def test_dyck_matches_oracle(reading):
    n = 20
    task = get_task("dyck", n, reading=reading)
    for train in (True, False):
        tokens, targets, mask = task.sample(SAMPLES, n, gen(2), train=train)
        assert tokens.shape == (SAMPLES, n)  # App. H.1: length exactly N, in training too
        assert mask[:, -1].all() and int(mask.sum()) == SAMPLES
        labels = targets[:, -1].numpy()
        assert (labels == dyck.is_dyck(tokens.numpy(), 2, 2)).all()
        assert 0.45 < labels.mean() < 0.55  # balanced classes


def split_equality(tokens: np.ndarray, sep: int, h: int) -> np.ndarray:
    """w w' of rows whose [sep] sits at position h."""
    assert (tokens[:, h] == sep).all()
    return np.concatenate([tokens[:, :h], tokens[:, h + 1 : 2 * h + 1]], axis=1)


@pytest.mark.parametrize("name", ["eq-random", "eq-one"])
@pytest.mark.parametrize("train", [True, False])
def test_equality_matches_oracle(name, train):
    n = 40
    task = get_task(name, n)
    alphabet = 2 if name == "eq-random" else 1024
    assert (task.vocab_size, task.n_out) == (alphabet + 2, 2)
    tokens, targets, mask = task.sample(SAMPLES, n, gen(3), train=train)
    t = tokens.numpy()
    k = last_counted(mask)  # the label sits on the last symbol: position k (k symbols + [sep])
    assert int(mask.sum()) == SAMPLES
    if train:  # App. H.2: k even, uniform in {N/10, N/10 + 2, ..., N}
        assert set(np.unique(k)) == set(range(4, n + 1, 2))
    else:
        assert (k == n).all()
    labels = targets.numpy()[np.arange(SAMPLES), k]
    for kk in np.unique(k):
        rows = k == kk
        words = split_equality(t[rows], alphabet, kk // 2)
        assert (words < alphabet).all()
        assert (labels[rows] == strings.is_equal_halves(words)).all()
        assert (t[rows, kk + 1 :] == task.pad).all()
        if name == "eq-one":  # negatives differ in exactly one position
            half = kk // 2
            diff = (words[:, :half] != words[:, half:]).sum(1)
            assert set(np.unique(diff)) <= {0, 1}
    assert 0.45 < labels.mean() < 0.56


def test_eq_ncp_is_copying():
    n = 40
    task = get_task("eq-ncp", n)
    assert (task.vocab_size, task.n_out) == (1026, 1024)
    for train in (True, False):
        tokens, targets, mask = task.sample(SAMPLES, n, gen(4), train=train)
        t, y, m = tokens.numpy(), targets.numpy(), mask.numpy()
        h = (t == 1024).argmax(1)  # [sep]
        if not train:
            assert (h == n // 2).all()
        for hh in np.unique(h):
            rows = h == hh
            words = split_equality(t[rows], 1024, hh)
            assert strings.is_equal_halves(words).all()
            counted = np.zeros(n + 1, dtype=bool)
            counted[hh : 2 * hh] = True  # from [sep] to the one before the last symbol
            assert (m[rows] == counted).all()
            assert (y[rows][:, counted] == t[rows][:, hh + 1 : 2 * hh + 1]).all()


@pytest.mark.parametrize("train", [True, False])
def test_mqar_matches_nearest_neighbour_oracle(train):
    n, symbols, labels = 12, 64, 16
    task = get_task("mqar", n)
    assert (task.vocab_size, task.n_out, task.max_tokens) == (symbols + labels + 1, labels, 3 * n)
    tokens, targets, mask = task.sample(SAMPLES, n, gen(5), train=train)
    t, y, m = tokens.numpy(), targets.numpy(), mask.numpy()
    pairs = m.sum(1)
    assert pairs.min() == (1 if train else n) and pairs.max() == n
    codes = retrieval.hypercube_codes(symbols)
    for q in np.unique(pairs):
        rows = pairs == q
        keys, values, queries = t[rows, : 2 * q : 2], t[rows, 1 : 2 * q : 2], t[rows, 2 * q : 3 * q]
        assert (np.sort(keys, 1) == np.sort(queries, 1)).all()  # queries permute the keys
        assert all(len(set(r)) == q for r in keys)  # distinct keys
        expected = retrieval.nearest_neighbour_labels(
            codes[keys], values - symbols, codes[queries], gamma=2 / codes.shape[1]
        )
        assert (y[rows, 2 * q : 3 * q] == expected).all()
        assert m[rows, 2 * q : 3 * q].all() and not m[rows, : 2 * q].any()
        assert (t[rows, 3 * q :] == task.pad).all()


def test_vectorised_membership_matches_oracle():
    g = gen(7)
    for n in range(1, 13):
        words = torch.randint(0, 4, (SAMPLES, n), generator=g)
        assert (is_dyck22(words).numpy() == dyck.is_dyck(words.numpy(), 2, 2)).all()
    for n in (2, 8, 40):  # near-members: members and one or two corruptions of members
        words = torch.from_numpy(dyck.sample_dyck(2, 2, n, SAMPLES, np.random.default_rng(n)))
        flips = torch.rand(SAMPLES, n, generator=g) < 1.5 / n
        words = words ^ torch.where(flips, torch.randint(1, 4, (SAMPLES, n), generator=g), 0)
        truth = dyck.is_dyck(words.numpy(), 2, 2)
        assert 0.05 < truth.mean() < 0.95
        assert (is_dyck22(words).numpy() == truth).all()


def total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """Total variation distance between the empirical laws of the rows of a and b."""
    words, inverse = np.unique(np.concatenate([a, b]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    pa = np.bincount(inverse[: len(a)], minlength=len(words)) / len(a)
    pb = np.bincount(inverse[len(a) :], minlength=len(words)) / len(b)
    return 0.5 * float(np.abs(pa - pb).sum())


@pytest.mark.parametrize("reading", ["three-way", "half"])
def test_dyck_generators_follow_the_numpy_reference(reading):
    """Same law as dyck.positive_h1 / negative_h1 (the reference loops over positions)."""
    count, rng = 40000, np.random.default_rng(0)
    for n in (2, 6):
        ours = h1_positives(count, n, reading, gen(8)).numpy()
        assert total_variation(ours, dyck.positive_h1(n, count, rng, reading)) < 0.03
    for n in (4, 20):
        positives = h1_positives(count, n, reading, gen(9))
        ours = h1_corrupt(positives, gen(10)).numpy()
        assert not dyck.is_dyck(ours, 2, 2).any()
        reference = dyck.negative_h1(n, count, rng, reading)
        if n == 4:
            assert total_variation(ours, reference) < 0.05
        else:  # too many words for frequencies: compare the number of changed positions
            changed = (ours != positives.numpy()).sum(1)
            assert changed.min() == 1 and changed.max() == 2 and abs(changed.mean() - 1.5) < 0.02


def test_chance_is_the_best_answer_that_ignores_the_input():
    """Index lookup's answer is uniform over 64 symbols, a Dyck sample half members: the most
    frequent answer scores 1/64 and 1/2 there, within the sampling noise of the measurement."""
    from simulations.tasks.base import CHANCE_SAMPLES
    from simulations.verdicts import wilson

    for name, length, exact in (("index-lookup", 8, 1 / 64), ("dyck", 8, 0.5)):
        measured = get_task(name, length).chance(length)
        assert measured["examples"] == CHANCE_SAMPLES
        lo, hi = wilson(measured["accuracy"], CHANCE_SAMPLES, 3.3)
        assert lo <= exact <= hi, (name, measured)
        assert get_task(name, length).chance(length) == measured  # the task's, not a seed's
