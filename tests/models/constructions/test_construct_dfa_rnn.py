"""The DFA-RNN: Dyck-(n,k) in ceil(log2 |Q|) binary state numbers, proved by state exploration."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.automata import DFA, dyck_dfa, minimize
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import enumerate_dyck, is_dyck
from ccomplexity.precision import FixedPoint
from models.constructions.dfa_rnn import (
    DFARNN,
    explore,
    final_logits,
    integer_grid,
    random_words,
    verify_dyck_rnn,
)


def model_for(types: int, depth: int) -> tuple[DFARNN, DFA]:
    dfa = minimize(dyck_dfa(types, depth))
    model = DFARNN.from_dfa(dfa)
    return model.set_precision(integer_grid(model)), dfa


DYCK_SIZES = [(2, 2, 8, 3), (1, 3, 5, 3), (3, 1, 5, 3)]  # (n, k, minimal DFA states, bits)


@pytest.mark.parametrize(("types", "depth", "states", "bits"), DYCK_SIZES)
def test_exploration_proves_equivalence(types, depth, states, bits):
    result = verify_dyck_rnn(types, depth, length=40, samples=600, seed=0)
    assert result["exhaustive"] is True and result["accuracy"] == 1.0
    assert (result["states"], result["state_bits"]) == (states, bits)
    assert result["reachable_pairs"] == states and result["binary_states"] is True
    assert 0 < result["members"] < 600 and result["counterexample"] is None


def test_state_is_three_bits_and_forward_equals_steps():
    model, dfa = model_for(2, 2)
    assert model.state_numel() == 3 and model.quant.fmt == FixedPoint(3, 0)
    words = torch.from_numpy(np.random.default_rng(0).integers(0, 4, size=(50, 12)))
    out = model(words)
    assert torch.equal(out, model.run_steps(words)[0])
    assert torch.equal(out[:, -1], final_logits(model, words))


def test_agrees_with_is_dyck_on_every_member_and_random_words():
    model, _ = model_for(2, 2)
    members = torch.from_numpy(enumerate_dyck(2, 2, 10)).long()
    assert bool((final_logits(model, members).argmax(1) == 1).all())
    words = random_words(2, 2, 400, 90, np.random.default_rng(1))
    truth = torch.from_numpy(is_dyck(words, 2, 2).astype(np.int64))
    assert torch.equal(final_logits(model, torch.from_numpy(words)).argmax(1), truth)
    assert 0 < int(truth.sum()) < 90


@torch.no_grad()
def test_a_wrong_transition_weight_is_caught_with_a_shortest_counterexample():
    model, dfa = model_for(2, 2)
    q = int(dfa.transitions[dfa.transitions[0, 0], 2])  # state after "(["
    unit = q * 4 + 3  # on "]" it should return to "(": send it to the start state instead
    model.next_state.weight[:, unit] = model.start
    found = explore(model, dfa)
    assert found.equivalent is False and found.counterexample is not None
    word = np.array([found.counterexample])
    assert len(found.counterexample) == 4  # "([])" is the shortest word that tells them apart
    predicted = final_logits(model, torch.from_numpy(word)).argmax(1)
    assert bool(predicted[0]) != bool(is_dyck(word, 2, 2)[0])


def test_a_wrong_dfa_transition_is_caught():
    dfa = minimize(dyck_dfa(1, 3))
    table = dfa.transitions.copy()
    table[int(dfa.run(np.array([[0, 0]]))[0]), 1] = dfa.start  # "((" then ")" empties the stack
    wrong = DFARNN.from_dfa(DFA(table, dfa.start, dfa.accepting, dfa.alphabet))
    wrong.set_precision(integer_grid(wrong))
    found = explore(wrong, dfa)
    assert found.equivalent is False and found.counterexample == (0, 0, 1)


@torch.no_grad()
def test_a_wrong_readout_is_caught():
    model, dfa = model_for(3, 1)
    model.head.weight[:, 0] = torch.tensor([0.0, 1.0])  # accept after the first symbol "("
    assert explore(model, dfa).counterexample == (0,)


def test_bad_sizes():
    with pytest.raises(InputError, match="even length"):
        verify_dyck_rnn(2, 2, 15, 10, 0)
    with pytest.raises(InputError, match="depth k >= 1"):
        verify_dyck_rnn(2, 0, 16, 10, 0)
    with pytest.raises(InputError, match="hidden units; the limit is 65536"):
        DFARNN.from_dfa(minimize(dyck_dfa(4, 7)))
