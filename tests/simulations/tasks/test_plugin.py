"""The torch task of a plugin task: labels from the word function, balanced classes, the
plugin's own sampler, and a clear refusal when a class is too rare to draw."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity import plugins
from ccomplexity.errors import InputError
from simulations.tasks import check_task, get_task
from simulations.tasks.plugin import RAREST, balanced_words


@pytest.fixture(autouse=True)
def isolated():
    with plugins.scope():
        yield


def first_equals_last():
    @plugins.task(name="first-equals-last", alphabet=3, lengths=(2, 64))
    def fel(words):
        return (words[:, 0] == words[:, -1]).astype(np.int8)

    return fel


def test_labels_are_the_word_function_at_the_last_position():
    fel = first_equals_last()
    task = get_task("first-equals-last", 10)
    assert (task.vocab_size, task.n_out, task.max_tokens, task.pad) == (3, 2, 10, None)
    tokens, targets, mask = task.sample(64, 7, torch.Generator().manual_seed(1))
    assert tokens.shape == (64, 7) and mask.sum() == 64 and mask[:, -1].all()
    assert targets[:, -1].tolist() == fel(tokens.numpy()).tolist()
    assert targets[:, -1].sum() == 32  # balanced: half positives
    again = task.sample(64, 7, torch.Generator().manual_seed(1))[0]
    assert torch.equal(tokens, again)  # a fixed function of the generator's state


def test_the_plugins_own_sampler_is_used_and_checked():
    def all_zero(batch, length, rng):
        return np.zeros((batch, length), dtype=np.int64)

    @plugins.task(name="zeros", alphabet=2, lengths=(1, 8), sampler=all_zero)
    def ones(words):
        return (words.sum(axis=1) == 0).astype(np.int8)

    tokens, targets, _ = get_task("zeros", 8).sample(5, 8, torch.Generator())
    assert tokens.sum() == 0 and targets[:, -1].tolist() == [1] * 5

    @plugins.task(name="bad-sampler", alphabet=2, lengths=(1, 8), sampler=lambda b, n, r: [[7]])
    def bad(words):
        return np.zeros(len(words), dtype=np.int8)

    with pytest.raises(InputError, match="sampler must return"):
        get_task("bad-sampler", 8).sample(2, 4, torch.Generator())


def test_positives_too_rare_are_refused_in_one_line():
    @plugins.task(name="all-ones", alphabet=2, lengths=(1, 64))
    def all_ones(words):
        return words.all(axis=1).astype(np.int8)

    task = get_task("all-ones", 64)
    task.sample(8, 8, torch.Generator())  # 1 in 256: drawn
    n = RAREST.bit_length() + 2  # 1 in 2^12: refused
    with pytest.raises(InputError, match=r"all-ones: positives are too rare .* sampler="):
        task.sample(8, n, torch.Generator())


def test_a_label_task_draws_uniform_words():
    @plugins.task(name="last-symbol", alphabet=4, lengths=(1, 8), labels=("a", "b", "c", "d"))
    def last(words):
        return words[:, -1]

    task = get_task("last-symbol", 6)
    tokens, targets, _ = task.sample(200, 6, torch.Generator().manual_seed(0))
    assert task.n_out == 4 and targets[:, -1].tolist() == tokens[:, -1].tolist()
    assert set(targets[:, -1].tolist()) == {0, 1, 2, 3}


def test_an_unloaded_plugin_task_is_named_and_lengths_are_the_plugins():
    with pytest.raises(InputError, match="'nope'.*no loaded plugin"):
        check_task("nope")
    first_equals_last()
    with pytest.raises(InputError, match="lengths 2..64"):
        get_task("first-equals-last", 65)
    with pytest.raises(InputError, match="takes no options"):
        get_task("first-equals-last", 8, hops=2)


def test_a_spawned_worker_loads_the_sweeps_plugin_files(tmp_path, monkeypatch):
    from simulations import workers

    path = tmp_path / "fel.py"
    path.write_text(
        "import numpy as np\nfrom ccomplexity.plugins import task\n"
        "@task(name='fel', alphabet=2, lengths=(2, 8))\n"
        "def fel(w):\n    return (w[:, 0] == w[:, -1]).astype(np.int8)\n"
    )
    monkeypatch.setattr(workers, "_die_with_parent", lambda parent: None)
    monkeypatch.setattr(workers.signal, "signal", lambda *args: None)  # keep this process's Ctrl-C
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # restored after the test
        monkeypatch.setenv(var, "1")
    monkeypatch.setattr(workers, "_RESULTS", None, raising=False)
    threads = torch.get_num_threads()
    try:
        workers._worker_init(threads, 0, None, [str(path)])
    finally:
        torch.set_num_threads(threads)
    assert plugins.require_task("fel").source == "fel.py"


def test_rejection_draws_at_most_its_symbols_at_long_lengths():
    """At N = 2^20 a class of 1 in 65,536 words is given up after 64 words (2^26 symbols), in
    chunks of at most 2^22 symbols: one line, never hours of drawing or 512 GB at once."""

    @plugins.task(name="rare-wide", alphabet=1 << 16, lengths=(1, 1 << 20))
    def rare(words):
        return (words[:, 0] == words[:, -1]).astype(np.int8)

    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match=r"too rare .* at length 1048576 \(\d+ among 64 uniform"):
        balanced_words(plugins.require_task("rare-wide"), 10, 1 << 20, rng)
