"""The contract every sequence model in ``models`` keeps, as plain helpers for the model tests.

A model takes (batch, length) token ids to (batch, length, outputs) logits. Recurrent models also
have ``run_steps(tokens, state=None) -> (outputs, state)``; their parallel ``forward`` must equal
that step composition: within ``FLOAT_TOL`` in float32, and bit for bit under a finite precision
(``set_precision``), where every output and state entry also lies on the format's grid.

Imported as ``tests.models.contract`` (``pythonpath = ["."]``; ``tests`` is a namespace package).
"""

from __future__ import annotations

import torch

from ccomplexity.precision import FixedPoint

FLOAT_TOL = 1e-4  # max |forward - run_steps| in float32
FORMATS = [FixedPoint(16, 8), FixedPoint(12, 6, "nearest"), FixedPoint(24, 16)]


def build(model_cls: type, config_cls: type, seed: int = 0, /, **config) -> torch.nn.Module:
    """``model_cls(config_cls(**config))``, parameters drawn after ``torch.manual_seed(seed)``."""
    torch.manual_seed(seed)
    return model_cls(config_cls(**config))


def tokens(batch: int, length: int, vocab: int = 5, seed: int = 1) -> torch.Tensor:
    """Reproducible token ids in ``0..vocab-1``, shape (batch, length)."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, length), generator=gen)


def on_grid(x: torch.Tensor, fmt: FixedPoint) -> bool:
    """Every entry is a multiple of 2**-frac within the format's range (empty tensors pass)."""
    scaled = x.detach() * 2.0**fmt.frac
    return torch.equal(scaled, scaled.round()) and bool((scaled.abs() <= fmt.max_raw).all())


def assert_forward_equals_steps(model, t: torch.Tensor, tol: float = FLOAT_TOL) -> None:
    """The parallel ``forward`` has the right shape and is within ``tol`` of ``run_steps``."""
    steps, _ = model.run_steps(t)
    out = model(t)
    assert out.shape == (*t.shape, model.config.outputs)
    assert (out - steps).abs().max() < tol


def assert_row_alone(model, t: torch.Tensor, out: torch.Tensor, row: int = 1) -> None:
    """One sequence run alone gives its row of the batch output bit for bit."""
    assert torch.equal(model(t[row : row + 1]), out[row : row + 1])


@torch.no_grad()
def assert_finite_step_composition(model, t: torch.Tensor, fmt: FixedPoint, split: int = 7) -> None:
    """Under finite precision ``fmt`` (already set on ``model``): forward is float64, equals the
    step composition and itself bit for bit, lies on the grid with its state, and a run cut at
    ``split`` with the state handed over (a protocol's cut) equals the whole run."""
    out = model(t)
    steps, state = model.run_steps(t)
    assert out.dtype == torch.float64
    assert torch.equal(out, steps)
    assert torch.equal(out, model(t))  # bit-identical twice
    assert on_grid(out, fmt) and all(on_grid(s, fmt) for s in state.values())
    head, mid = model.run_steps(t[:, :split])
    tail, end = model.run_steps(t[:, split:], mid)
    assert torch.equal(torch.cat([head, tail], dim=1), out)
    assert state.keys() == end.keys()
    assert all(torch.equal(end[k], state[k]) for k in state)
    assert_row_alone(model, t, out)


def assert_learns_to_copy(model, t: torch.Tensor, lr: float, steps: int = 15, lag: int = 0):
    """Adam on cross-entropy: position i learns to output token i - lag; the loss falls below a
    quarter of its start."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    targets = t[:, : t.shape[1] - lag]
    losses = []
    for _ in range(steps):
        logits = model(t)[:, lag:]
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]
