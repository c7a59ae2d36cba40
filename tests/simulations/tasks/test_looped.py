"""The looped-reasoning tasks against the exact oracles of ``ccomplexity``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.groups import get_group
from ccomplexity.languages import arithmetic, assignment
from ccomplexity.languages.hops import hop_chain, hop_p
from simulations.tasks import get_task
from simulations.tasks.looped import planted_phop


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(("n", "p"), [(3, 1), (9, 4), (64, 4), (256, 16), (256, 32), (65, 32)])
def test_planted_chain_is_the_oracles_chain(n, p, strict):
    words, answers, chain = planted_phop(400, n, p, 4, strict, gen(n + p))
    assert np.array_equal(hop_chain(words.numpy(), p, strict), chain.numpy())
    assert (hop_p(words.numpy(), p, strict) == answers.numpy()).all()
    steps = chain[:, :-1] - chain[:, 1:]
    assert (steps >= 1).all()  # a real hop every time: no fixed point, no ⊥


def test_planted_generator_spreads_the_chain():
    words, _, chain = planted_phop(3000, 32, 4, 4, False, gen(1))
    span = (chain[:, 0] - chain[:, -1]).numpy()
    assert span.min() <= 9 and span.max() >= 28  # tight and spread-out chains both occur
    counts = np.bincount(words.numpy().ravel(), minlength=4)
    assert counts.min() > 0.2 * counts.sum()  # every symbol is common
    assert len(np.unique(chain[:, 1].numpy())) > 10


def test_phop_task_labels_and_shapes():
    task = get_task("p-hop", 256, hops=16, alphabet=4)
    assert (task.vocab_size, task.n_out, task.max_tokens, task.pad) == (4, 4, 256, None)
    for train in (True, False):
        tokens, targets, mask = task.sample(300, 256, gen(2), train=train)
        assert tokens.shape == (300, 256) and mask[:, -1].all() and mask.sum() == 300
        assert (targets[:, -1].numpy() == hop_p(tokens.numpy(), 16)).all()
    uniform = get_task("p-hop", 12, hops=6, generator="uniform", alphabet=2)
    tokens, targets, _ = uniform.sample(500, 12, gen(3))
    answers = hop_p(tokens.numpy(), 6)
    assert (
        uniform.n_out == 3 and (targets[:, -1].numpy() == np.where(answers < 0, 2, answers)).all()
    )
    assert (answers < 0).any()  # ⊥ occurs, as class |Sigma|


def test_group_composition_task():
    task = get_task("group-composition", 10, group="A5")
    g = get_group("A5")
    tokens, targets, mask = task.sample(200, 10, gen(4))
    assert tokens.shape == (200, 11) and (tokens[:, 0] == 60).all() and mask[:, -1].all()
    assert (targets[:, -1].numpy() == g.compose(tokens[:, 1:].numpy())).all()
    assert task.render(tokens[0].tolist()).startswith("# ")


def test_addition_task():
    task = get_task("addition", 32)
    assert task.eval_lengths(32) == (8, 16, 24) and task.eval_lengths(8) == (2, 4, 6)
    tokens, targets, mask = task.sample(100, 32, gen(5), train=True)
    counts = set()
    for row, tgt, m in zip(tokens.tolist(), targets, mask, strict=True):
        seq = [t for t in row if t != task.pad]
        operands, total = arithmetic.decode(seq)
        assert total == sum(operands)
        counts.add(len(operands))
        start = seq.index(arithmetic.EQUALS)
        assert tgt[m].tolist() == seq[start + 1 :]  # each answer token, then $
    assert counts == {2, 4, 8, 16, 32}
    tokens, _, _ = task.sample(20, 24, gen(6), train=False)
    assert all(
        len(arithmetic.decode([t for t in r if t != task.pad])[0]) == 24 for r in tokens.tolist()
    )
    reverse = get_task("addition", 4, reverse=True)
    tokens, _, _ = reverse.sample(5, 4, gen(7), train=False)
    for r in tokens.tolist():
        operands, total = arithmetic.decode([t for t in r if t != reverse.pad], reverse=True)
        assert total == sum(operands)
    two = get_task("addition", 4, reverse=True, digits=2)
    tokens, _, _ = two.sample(50, 4, gen(8), train=False)
    assert tokens.shape[1] == two.max_tokens == 4 * 3 + 3 + 1  # 4 operands, 3-digit sums, $
    for r in tokens.tolist():
        operands, total = arithmetic.decode([t for t in r if t != two.pad], True, digits=2)
        assert len(operands) == 4 and max(operands) < 100 and total == sum(operands)
    with pytest.raises(InputError, match="digits"):
        get_task("addition", 4, digits=0)


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_var_assign_task(depth):
    task = get_task("var-assign", 8, depth=depth)
    tokens, targets, mask = task.sample(200, 8, gen(depth))
    for row, answer in zip(tokens.tolist(), targets[:, -1].tolist(), strict=True):
        assert assignment.resolve(row, 26) == (answer, depth)


def test_option_errors():
    with pytest.raises(InputError, match="2p \\+ 1"):
        get_task("p-hop", 8, hops=4)
    with pytest.raises(InputError, match="unknown group"):
        get_task("group-composition", 8, group="Q8")
    with pytest.raises(InputError, match="depth"):
        get_task("var-assign", 3, depth=3)
    with pytest.raises(InputError, match="true or false"):
        get_task("addition", 8, reverse="yes")
    with pytest.raises(InputError, match="no option"):
        get_task("group-composition", 8, hops=2)
