"""Bounds on plugin tasks at real lengths: from a given DFA (any N), from the automaton of the
word function at N, from the plugin's own construction and from a seeded greedy set; each
verified on the word function, checked against brute force where the words can be listed, and
refused in one line with its estimate where it would cost too much."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ccomplexity import plugin_bounds, plugins, verify
from ccomplexity.automata import DFA
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import max_fooling_set, one_way_bits
from ccomplexity.plugin_problems import problem

ABA = np.array([[1, 0], [1, 2], [3, 0], [3, 3]])


@pytest.fixture(autouse=True)
def isolated():
    with plugins.scope():
        yield


def contains_aba(dfa: bool = True):
    @plugins.task(
        name="contains-aba",
        alphabet=2,
        lengths=(1, 1 << 20),
        dfa=DFA(ABA, 0, np.arange(4) == 3, ("a", "b")) if dfa else None,
    )
    def contains(words):
        hit = (words[:, :-2] == 0) & (words[:, 1:-1] == 1) & (words[:, 2:] == 0)
        return hit.any(axis=1).astype(np.int8)

    return contains


def mirrored(length, alice, most):
    if length % 2 or alice != tuple(range(length // 2)):
        return None
    half = length // 2
    x = (np.arange(min(most, 1 << half))[:, None] >> np.arange(half)) & 1
    return np.concatenate([x, x[:, ::-1]], axis=1)


def palindrome(fooling=mirrored, sampler=None):
    @plugins.task(
        name="palindrome", alphabet=2, lengths=(1, 4096), fooling=fooling, sampler=sampler
    )
    def palindrome_(words):
        return (words == words[:, ::-1]).all(axis=1).astype(np.int8)

    return palindrome_


def per_cut(name: str, length: int) -> dict[int, int]:
    runs, _ = plugin_bounds.one_way_per_cut(name, length)
    return {k: r["distinct_rows"] for r in runs for k in range(r["cuts"][0], r["cuts"][1] + 1)}


def test_a_given_dfa_at_a_million_and_its_certificate():
    contains_aba()
    runs, origin = plugin_bounds.one_way_per_cut("contains-aba", 10**6)
    assert origin == "dfa" and [r["cuts"] for r in runs][2] == [3, 999_998]
    assert max(r["bits"] for r in runs) == 2
    result, cert = plugin_bounds.fooling_set("contains-aba", 1000, "prefix:500", certificate=True)
    assert (result["method"], result["exact"], result["size"], result["verified"]) == (
        "automaton (dfa)",
        True,
        4,
        True,
    )
    cert = json.loads(json.dumps(cert))
    assert verify(cert).valid
    pairs = cert["witness"]["pairs"]
    pairs[1][1] = pairs[0][1]  # two pairs sharing Bob's half are never a fooling set
    assert not verify(cert).valid


@pytest.mark.parametrize("with_dfa", [True, False])
def test_one_way_and_the_maximum_fooling_set_equal_brute_force(with_dfa, monkeypatch):
    contains_aba(dfa=with_dfa)
    monkeypatch.setattr(plugin_bounds, "MAX_FOOLING_ENTRY_LIMIT", 4)  # the automaton's route
    for n in range(3, 8):
        rows = per_cut("contains-aba", n)
        for k in range(1, n):
            prob = problem("contains-aba", n, f"prefix:{k}")
            assert rows[k] == one_way_bits(prob).distinct_rows
            got, _ = plugin_bounds.fooling_set("contains-aba", n, f"prefix:{k}", exact=True)
            assert got["method"].startswith("automaton") and got["exact"] and got["verified"]
            assert got["size"] == max_fooling_set(prob).size
    single, cert = plugin_bounds.one_way_at("contains-aba", 7, 3)
    assert single["distinct_rows"] == rows[3] and verify(json.loads(json.dumps(cert))).valid


def test_labels_over_three_symbols():
    @plugins.task(name="count-twos", alphabet=3, lengths=(1, 12), labels=("0", "1", "2", "3+"))
    def count_twos(words):
        return np.minimum((words == 2).sum(axis=1), 3)

    for k, rows in per_cut("count-twos", 5).items():
        assert rows == one_way_bits(problem("count-twos", 5, f"prefix:{k}")).distinct_rows
    got, cert = plugin_bounds.fooling_set("count-twos", 6, "odd-even", certificate=True)
    assert got["method"] == "greedy" and got["verified"] and verify(cert).valid


def test_the_plugins_construction_is_used_and_checked(monkeypatch):
    monkeypatch.setenv("CCX_WORK_BUDGET", "64M")  # at most isqrt(2^26 / (64 x 40)) = 161 pairs
    palindrome()
    got, cert = plugin_bounds.fooling_set("palindrome", 64, "prefix:32", certificate=True)
    assert got["method"] == "construction" and got["verified"] and got["exact"] is False
    assert got["size"] == plugin_bounds.most_pairs("palindrome", 64) == 161
    assert got["bits"] == 8 and verify(cert).valid


@pytest.mark.parametrize(
    ("construction", "says"),
    [
        (lambda n, a, most: np.zeros((2, n + 1), dtype=int), "returned shape"),
        (lambda n, a, most: np.full((2, n), 2), "symbols in 0..1"),
        (lambda n, a, most: np.zeros((most + 1, n), dtype=int), "returned shape"),
        (lambda n, a, most: 1 / 0, "ZeroDivisionError"),
    ],
)
def test_a_bad_construction_is_one_line(construction, says):
    palindrome(fooling=construction)
    with pytest.raises(InputError, match=says) as err:
        plugin_bounds.fooling_set("palindrome", 40, "prefix:20")
    assert "\n" not in str(err.value)


def test_a_construction_that_is_no_fooling_set_does_not_verify():
    palindrome(fooling=lambda n, a, most: np.array([[0] * n, [1] * n, [0] * (n - 1) + [1]]))
    got, _ = plugin_bounds.fooling_set("palindrome", 40, "prefix:20")
    assert not got["verified"] and "not the value" in got["reason"]
    with pytest.raises(InputError, match="did not verify"):
        plugin_bounds.fooling_set("palindrome", 40, "prefix:20", certificate=True)


def test_the_sampled_greedy_set_where_the_matrix_is_too_large(monkeypatch):
    monkeypatch.setattr(plugin_bounds, "SAMPLE_WORDS", 128)

    def positives(batch, length, rng):
        half = rng.integers(0, 2, (batch, length // 2))
        return np.concatenate([half, half[:, ::-1]], axis=1)

    palindrome(fooling=None, sampler=positives)
    first, _ = plugin_bounds.fooling_set("palindrome", 64, "prefix:32", seed=3)
    again, _ = plugin_bounds.fooling_set("palindrome", 64, "prefix:32", seed=3)
    assert first["method"] == "sampled-greedy" and first["verified"] and not first["exact"]
    assert first == again  # the same seed, the same set
    assert first["size"] >= first["sampled"] // 2 - 8  # the drawn palindromes, nearly all distinct
    fallback, _ = plugin_bounds.fooling_set("palindrome", 64, "odd-even", seed=0)
    assert fallback["method"] == "sampled-greedy" and fallback["verified"]
    with plugins.scope():
        palindrome(fooling=None, sampler=lambda batch, length, rng: [[0.5] * length] * batch)
        with pytest.raises(InputError, match="its sampler must return 64 words of 64"):
            plugin_bounds.fooling_set("palindrome", 64, "prefix:32")


def test_prices_refuse_at_once_with_the_estimate():
    palindrome(fooling=None)
    with pytest.raises(InputError, match=r"2\^40 words.*budget"):
        plugin_bounds.one_way_per_cut("palindrome", 40)
    with pytest.raises(InputError, match="construction .fooling= of @task. or a seeded"):
        plugin_bounds.fooling_set("palindrome", 64, "odd-even", exact=True)
    got = plugin_bounds.bound_profile("palindrome", "one-way", [4, 6, 40])
    assert got[4]["bits"] == 2 and got[6]["bits"] == 3 and "budget" in got[40]["refused"]


def test_a_dfa_that_is_not_the_tasks_language_is_caught_by_the_word_function():
    @plugins.task(
        name="wrong-dfa",
        alphabet=2,
        lengths=(1, 64),
        dfa=DFA(ABA, 0, np.arange(4) == 3, ("a", "b")),
    )
    def never(words):
        return np.zeros(len(words), dtype=np.int8)

    with pytest.raises(InputError, match="does not accept its language"):
        plugin_bounds.one_way_at("wrong-dfa", 12, 6)
    got, _ = plugin_bounds.fooling_set("wrong-dfa", 12, "prefix:6")
    assert got["method"] == "automaton (dfa)" and not got["verified"]
