"""Batched forms of the model zoo: M members of one architecture as one model with stacked
parameters (M, ...), one optimiser step for all, and each member's weights back out.

Used by :mod:`simulations.ensemble`. Per architecture (:data:`BATCHED`, chosen by measurement):

* :class:`VmapStack`: ``torch.func.functional_call`` under ``torch.func.vmap`` over the stacked
  parameters (transformer, DSS, linear transformer, RetNet, concat-transformer, looped): every
  matmul becomes one batched matmul;
* :class:`RecurrenceStack`: LSTM and GRU. ``vmap`` cannot enter torch's fused RNN kernels (cuDNN
  on a GPU), so the cells run with batched matmuls in the order of torch's own CPU
  implementation: the input projection of the whole sequence at once, then one step at a time;
* :class:`MambaStack`: our Mamba's scan is an autograd function with data-dependent loops, which
  ``vmap`` cannot enter either; the mixer runs with batched matmuls and one selective scan over
  all members' sequences with one A per member (:func:`models.mamba.selective_scan` with grouped
  A; on a GPU the fused Triton kernels);
* :class:`LoopStack`: any other architecture (including ones added later): the members run one
  after the other with their own ``torch.optim.Adam``. Exactly a single run's arithmetic.

:func:`make_stack` compares the batched logits of the first batch with every member's own forward;
an exception or a mismatch falls back to :class:`LoopStack`, so an architecture whose code changed
under a batched form still trains correctly.

Every batched form answers to the one :class:`Stack` interface and :func:`make_stack`'s check;
reading them side by side is how one sees that each keeps a single run's arithmetic. Their
optimisers are in :mod:`simulations.stacked_optim`.
"""

from __future__ import annotations

import abc
import copy
import warnings
from collections.abc import Sequence

import torch
from torch import Tensor
from torch.nn import functional as F

from models.base import SequenceModel
from models.moe import MixtureOfExperts
from simulations.recipes import ADAM, STACKED_OPTIMIZERS, Recipe, make_optimizer, set_lr
from simulations.stacked_optim import stacked_optimiser
from simulations.training import TrainConfig

CHECK_TOLERANCE = 1e-4
"""Largest |batched - own| logit difference (relative to the logits' scale) the first-batch check
accepts before falling back to :class:`LoopStack`."""
# --- batched forms ------------------------------------------------------------------------------


class Stack(abc.ABC):
    """M members of one architecture as one batched model: ``forward(tokens (M, B, T))`` ->
    logits (M, B, T, C), one optimiser step for all, and the members' weights back out."""

    strategy = "stack"

    def __init__(
        self,
        members: list[SequenceModel],
        lrs: Sequence[float],
        device: torch.device,
        recipe: Recipe = ADAM,
    ) -> None:
        # The stack's own mode: not a member's, whose result moves it to the CPU in eval mode
        # while the others train on (cuDNN's RNN refuses a backward in eval mode).
        self.training = True
        names = [n for n, _ in members[0].named_parameters()]
        self.params = {
            n: torch.stack([dict(m.named_parameters())[n].detach() for m in members])
            .to(device)
            .requires_grad_()
            for n in names
        }
        self.optimiser = stacked_optimiser(list(self.params.values()), lrs, recipe)

    @abc.abstractmethod
    def forward(self, tokens: Tensor) -> Tensor:
        """Logits (M, B, T, C) of the M members on their tokens (M, B, T)."""

    def set_training(self, mode: bool) -> None:
        self.training = mode

    def zero_grad(self) -> None:
        for p in self.params.values():
            p.grad = None

    def step(self) -> None:
        self.optimiser.step()

    def keep(self, index: Tensor) -> None:
        """Drop every member not in ``index`` (a 1-d LongTensor of positions, in order)."""
        on = index.to(next(iter(self.params.values())).device)
        self.params = {n: p.detach()[on].requires_grad_() for n, p in self.params.items()}
        self.optimiser.keep(on, list(self.params.values()))

    def member_state(self, i: int) -> dict[str, Tensor]:
        """Member ``i``'s parameters by name, on the CPU."""
        return {n: p.detach()[i].cpu() for n, p in self.params.items()}


class VmapStack(Stack):
    """``functional_call`` of a copy of the first member's module (its buffers and code) under
    ``vmap`` over the stacked weights."""

    strategy = "vmap"

    def __init__(self, members, lrs, device, recipe=ADAM):
        super().__init__(members, lrs, device, recipe)
        self.template = copy.deepcopy(members[0]).to(device)
        for module in self.template.modules():  # the routed form selects rows: no vmap rule
            if isinstance(module, MixtureOfExperts):
                module.dense = True

    def set_training(self, mode: bool) -> None:
        super().set_training(mode)
        self.template.train(mode)

    def _one(self, params: dict[str, Tensor], tokens: Tensor) -> Tensor:
        return torch.func.functional_call(self.template, params, (tokens,))

    def forward(self, tokens: Tensor) -> Tensor:
        return torch.func.vmap(self._one)(self.params, tokens)


def batched_linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Each member's ``F.linear``: x (M, ..., in), weight (M, out, in), bias (M, out)."""
    flat = x.reshape(x.shape[0], -1, x.shape[-1])  # (M, rows, in)
    out = (
        torch.bmm(flat, weight.transpose(1, 2))
        if bias is None
        else torch.baddbmm(bias[:, None], flat, weight.transpose(1, 2))
    )
    return out.view(*x.shape[:-1], weight.shape[1])


def batched_embedding(tokens: Tensor, weight: Tensor) -> Tensor:
    """Each member's embedding lookup: tokens (M, ...), weight (M, V, W) -> (M, ..., W)."""
    offsets = torch.arange(len(weight), device=tokens.device) * weight.shape[1]
    index = tokens + offsets.view(-1, *[1] * (tokens.dim() - 1))
    return F.embedding(index, weight.flatten(0, 1))


def batched_layer_norm(x: Tensor, weight: Tensor, bias: Tensor, eps: float) -> Tensor:
    """Each member's ``nn.LayerNorm``: x (M, ..., W), weight and bias (M, W)."""
    shape = (len(weight), *[1] * (x.dim() - 2), weight.shape[-1])
    return F.layer_norm(x, x.shape[-1:], eps=eps) * weight.view(shape) + bias.view(shape)


class RecurrenceStack(Stack):
    """LSTM and GRU (``models.lstm``): embedding, stacked cells, readout, with batched matmuls.

    The cells follow torch's CPU implementation (ATen ``RNN.cpp``): the input projections of the
    whole sequence first, then per step ``W_hh h + b_hh`` added to them and the cell equations.
    """

    strategy = "recurrence"

    def __init__(self, members, lrs, device, recipe=ADAM):
        super().__init__(members, lrs, device, recipe)
        self.lstm = members[0].name == "lstm"
        self.layers = members[0].config.layers

    def forward(self, tokens: Tensor) -> Tensor:
        p = self.params
        x = batched_embedding(tokens, p["embedding.weight"])  # (M, B, T, W)
        for k in range(self.layers):
            w_ih, w_hh = p[f"rnn.weight_ih_l{k}"], p[f"rnn.weight_hh_l{k}"]
            b_ih, b_hh = p[f"rnn.bias_ih_l{k}"], p[f"rnn.bias_hh_l{k}"]
            x = self._layer(batched_linear(x, w_ih, b_ih), w_hh, b_hh)
        return batched_linear(x, p["head.weight"], p["head.bias"])

    def _layer(self, igates: Tensor, w_hh: Tensor, b_hh: Tensor) -> Tensor:
        """One layer over the sequence: igates (M, B, T, G * W) -> outputs h (M, B, T, W)."""
        M, B, T, _ = igates.shape
        h = igates.new_zeros(M, B, w_hh.shape[-1])
        c = torch.zeros_like(h)
        outputs = []
        for t in range(T):
            hgates = batched_linear(h, w_hh, b_hh)  # (M, B, G * W)
            if self.lstm:
                i, f, g, o = hgates.add(igates[:, :, t]).chunk(4, dim=-1)
                c = (f.sigmoid() * c).add(i.sigmoid() * g.tanh())
                h = o.sigmoid() * c.tanh()
            else:
                r_x, z_x, n_x = igates[:, :, t].chunk(3, dim=-1)
                r_h, z_h, n_h = hgates.chunk(3, dim=-1)
                r, z = r_h.add(r_x).sigmoid(), z_h.add(z_x).sigmoid()
                n = n_x.add(n_h * r).tanh()
                h = (h - n).mul(z).add(n)
            outputs.append(h)
        return torch.stack(outputs, dim=2)


class BlockRecurrenceStack(RecurrenceStack):
    """LSTM and GRU on a GPU: the M members as ONE torch RNN (cuDNN's fused kernels) of width
    M * W whose weights are block-diagonal, member i's block in rows and columns i; the members'
    inputs are concatenated along the features. Off-block weights are exact zeros built from
    the stacked parameters on every forward, so no member sees another's state and each gets
    its own gradient; the price is M times the multiply-adds of the members alone, which pays
    where launches, not arithmetic, bound a step (:data:`BLOCK_WIDTH`)."""

    strategy = "block-diagonal"

    def forward(self, tokens: Tensor) -> Tensor:
        p = self.params
        x = batched_embedding(tokens, p["embedding.weight"])  # (M, B, T, W)
        M, B, T, W = x.shape
        flat = []
        for k in range(self.layers):
            for name in ("weight_ih", "weight_hh"):
                flat.append(block_diagonal(p[f"rnn.{name}_l{k}"], W))
            for name in ("bias_ih", "bias_hh"):
                b = p[f"rnn.{name}_l{k}"]  # (M, G * W) -> gate-major (G * M * W)
                flat.append(b.view(M, -1, W).transpose(0, 1).reshape(-1))
        joined = x.permute(1, 2, 0, 3).reshape(B, T, M * W)
        h0 = x.new_zeros(self.layers, B, M * W)
        train = self.training
        with warnings.catch_warnings():  # separate weight tensors: cuDNN copies them per call
            warnings.filterwarnings("ignore", message="RNN module weights are not part")
            if self.lstm:
                out = torch._VF.lstm(
                    joined, (h0, h0), flat, True, self.layers, 0.0, train, False, True
                )[0]
            else:
                out = torch._VF.gru(joined, h0, flat, True, self.layers, 0.0, train, False, True)[0]
        h = out.view(B, T, M, W).permute(2, 0, 1, 3)  # (M, B, T, W)
        return batched_linear(h, p["head.weight"], p["head.bias"])


def block_diagonal(weight: Tensor, width: int) -> Tensor:
    """Members' gate matrices (M, G * width, In) -> one (G * M * width, M * In), gate-major as
    torch's RNNs order their gates, with member i's rows of each gate over its own input columns
    and exact zeros elsewhere (a product with the identity: x * 1 and x * 0 round to nothing)."""
    M, rows, width_in = weight.shape
    gates = rows // width
    eye = torch.eye(M, dtype=weight.dtype, device=weight.device)
    blocks = torch.einsum("mgij,mn->gminj", weight.view(M, gates, width, width_in), eye)
    return blocks.reshape(gates * M * width, M * width_in)


class MambaStack(Stack):
    """Our Mamba (``models.mamba``) with batched matmuls and one grouped selective scan.

    Mirrors :meth:`models.mamba.MambaBlock.forward` line by line; the members' sequences are
    concatenated along the batch axis of the scan (member-major), with A of shape (M, N, D).
    """

    strategy = "mamba"

    def __init__(self, members, lrs, device, recipe=ADAM):
        super().__init__(members, lrs, device, recipe)
        first = members[0]
        self.blocks = len(first.blocks)
        self.split = first.blocks[0].split
        self.eps = first.ln_f.eps

    def forward(self, tokens: Tensor) -> Tensor:
        from models.mamba import selective_scan

        p = self.params
        M, B, _ = tokens.shape
        h = batched_embedding(tokens.transpose(1, 2), p["embedding.weight"])  # (M, L, B, W)
        for i in range(self.blocks):
            q = {n.split(".", 2)[2]: t for n, t in p.items() if n.startswith(f"blocks.{i}.")}
            u = batched_layer_norm(h, q["norm.weight"], q["norm.bias"], self.eps)
            x, z = batched_linear(u, q["in_proj.weight"]).chunk(2, dim=-1)  # (M, L, B, D) each
            width = len(q["conv_weight"][0])
            L = x.shape[1]
            xp = F.pad(x, (0, 0, 0, 0, width - 1, 0))
            conv = q["conv_bias"][:, None, None]
            for k in range(width):
                conv = conv + q["conv_weight"][:, k, None, None] * xp[:, k : k + L]
            x = F.silu(conv)
            dt, Bm, Cm = batched_linear(x, q["x_proj.weight"]).split(self.split, dim=-1)
            delta = F.softplus(batched_linear(dt, q["dt_proj.weight"], q["dt_proj.bias"]))
            A = -torch.exp(q["A_log"])  # (M, N, D): one A per member's group of sequences
            y = selective_scan(self._batch(delta), A, *(self._batch(t) for t in (Bm, Cm, x)))
            y = y.unflatten(1, (M, B)).transpose(0, 1) + q["D"][:, None, None] * x
            h = h + batched_linear(y * F.silu(z), q["out_proj.weight"])
        h = batched_layer_norm(h.transpose(1, 2), p["ln_f.weight"], p["ln_f.bias"], self.eps)
        return batched_linear(h, p["head.weight"], p["head.bias"])

    @staticmethod
    def _batch(t: Tensor) -> Tensor:
        """(M, L, B, ...) -> (L, M * B, ...): the members' sequences side by side, member-major."""
        return t.transpose(0, 1).flatten(1, 2)


class LoopStack(Stack):
    """The fallback: the members as their own modules, one after the other, each with its own
    torch optimiser, schedule and clipping; exactly a single run's arithmetic."""

    strategy = "loop"

    def __init__(self, members, lrs, device, recipe=ADAM):
        self.members = [m.to(device) for m in members]
        self.lrs, self.recipe, self.steps = list(lrs), recipe, 0
        self.optimisers = [
            make_optimizer(recipe.optimizer, m.parameters(), lr, recipe.weight_decay)
            for m, lr in zip(members, lrs, strict=True)
        ]

    def forward(self, tokens: Tensor) -> Tensor:
        return torch.stack([m(t) for m, t in zip(self.members, tokens, strict=True)])

    def set_training(self, mode: bool) -> None:
        for m in self.members:
            m.train(mode)

    def zero_grad(self) -> None:
        for o in self.optimisers:
            o.zero_grad(set_to_none=True)

    def step(self) -> None:
        self.steps += 1
        factor = self.recipe.factor(self.steps)
        for member, optimiser, lr in zip(self.members, self.optimisers, self.lrs, strict=True):
            if self.recipe.clip > 0:
                torch.nn.utils.clip_grad_norm_(member.parameters(), self.recipe.clip)
            set_lr(optimiser, lr * factor)
            optimiser.step()

    def keep(self, index: Tensor) -> None:
        keep = index.tolist()
        self.members = [self.members[i] for i in keep]
        self.optimisers = [self.optimisers[i] for i in keep]
        self.lrs = [self.lrs[i] for i in keep]

    def member_state(self, i: int) -> dict[str, Tensor]:
        return {n: p.detach().cpu() for n, p in self.members[i].named_parameters()}


def work(config: TrainConfig) -> float:
    """Multiply-adds of one training step of one model (:func:`ccomplexity.budget.step_madds`:
    the models of :data:`QUADRATIC` score all pairs of positions)."""
    from ccomplexity.budget import step_madds
    from simulations.tasks import get_task

    task = get_task(config.task.name, config.task.length)
    return step_madds(
        config.recipe.batch,
        task.max_tokens,
        config.model.width,
        config.model.layers,
        task.n_out,
        config.model.arch in QUADRATIC,
    )


def batched_form(config: TrainConfig, device: torch.device) -> type[Stack]:
    """The form an ensemble of ``config``'s shape trains in on ``device`` (see :data:`BATCHED`;
    :class:`LoopStack` for an optimiser that does not run stacked)."""
    form = BATCHED.get(config.model.arch, LoopStack)
    if config.recipe.optimizer not in STACKED_OPTIMIZERS:
        return LoopStack
    if config.recipe.optimizer == "adafactor" and device.type not in STACKED_ADAFACTOR_DEVICES:
        return LoopStack
    if device.type == "cpu" and (config.model.arch in CPU_LOOP or work(config) > CPU_BATCHED_WORK):
        return LoopStack
    if form is VmapStack and config.model.experts > 1 and device.type not in DENSE_ROUTING_DEVICES:
        return LoopStack  # routed experts select rows, which vmap cannot batch
    return form


QUADRATIC = ("transformer", "linear-transformer", "retnet")
"""Architectures whose float forward computes scores over all pairs of positions."""

BATCHED: dict[str, type[Stack]] = {
    "transformer": VmapStack,
    "dss": VmapStack,
    "linear-transformer": VmapStack,
    "retnet": VmapStack,
    "concat-transformer": VmapStack,
    "looped": VmapStack,
    "lstm": RecurrenceStack,
    "gru": RecurrenceStack,
    "mamba": MambaStack,
}
"""Architecture -> batched form; every other architecture runs as :class:`LoopStack`."""

BLOCK_WIDTH = 1024
"""On a GPU, an LSTM or GRU ensemble of M members of width W runs as one block-diagonal cuDNN RNN
(:class:`BlockRecurrenceStack`) when M * W is at most this, else with batched matmuls one
position at a time (:class:`RecurrenceStack`). The block form does M times the arithmetic in a
few fused kernels; the other launches about ten small kernels per position and layer, each way.
Measured on an H200 (``benchmarks/results/gpu_forms.md``, 14 members of width 64): 10.98 against
18.31 ms per step at N = 100, 41.31 against 170.51 at N = 400. Wider ensembles are not measured."""
BLOCK_DEVICES = {"cuda"}
"""Devices on which :data:`BLOCK_WIDTH` applies (cuDNN's RNNs); on the CPU torch's own LSTM per
member is faster (:data:`CPU_LOOP`)."""

DENSE_ROUTING_DEVICES = {"cuda"}
"""Devices on which a mixture-of-experts ensemble runs as one :class:`VmapStack`, whose template
routes densely (``models.moe.MixtureOfExperts._dense``: every expert on every row); elsewhere
(:func:`batched_form`) the members train one after the other with the routed form, as the CPU's
stores were trained (their re-runs stay bit for bit)."""

STACKED_ADAFACTOR_DEVICES = {"cuda"}
"""Devices on which an Adafactor ensemble steps its members at once
(:class:`simulations.stacked_optim.StackedAdafactor`, captured in the CUDA graph); elsewhere
the members step one after the other with torch's own Adafactor, as the CPU's stores were
trained (their re-runs stay bit for bit: the stacked form agrees with torch's only to float
rounding)."""

CPU_LOOP = ("lstm", "mamba")
CPU_BATCHED_WORK = 1e7
"""On the CPU, batching pays only where per-step overheads dominate: measured on 2 cores
(``benchmarks/results/ensemble_forms.md``, one thread, 8 members), the batched forms beat running
the members one after the other for tiny models and lose for larger ones (batched matmuls and the
grouped scan's buffers leave the caches), and torch's own CPU LSTM and our chunked Mamba scan
beat their batched forms. So on the CPU an ensemble is batched only below ``CPU_BATCHED_WORK``
multiply-adds per member step (:func:`work`) and never for ``CPU_LOOP``; on a GPU it is always
batched."""


def make_stack(
    form: type[Stack],
    members: list[SequenceModel],
    lrs: Sequence[float],
    device: torch.device,
    tokens: Tensor,
    recipe: Recipe = ADAM,
) -> Stack:
    """These members in ``form``, checked on ``tokens`` (M, B, T) against each member's own
    forward; :class:`LoopStack` if the batched form raises or disagrees."""
    arch = members[0].name
    wide = len(members) * members[0].config.width
    if form is RecurrenceStack and device.type in BLOCK_DEVICES and wide <= BLOCK_WIDTH:
        form = BlockRecurrenceStack
    if form is not LoopStack:
        try:
            stack = form(members, lrs, device, recipe)
            with torch.no_grad():
                batched = stack.forward(tokens)
                own = torch.stack([m.to(device)(t) for m, t in zip(members, tokens, strict=True)])
            scale = float(own.abs().max().clamp_min(1.0))
            error = float((batched - own).abs().max())
            if error <= CHECK_TOLERANCE * scale:
                return stack
            reason = f"logits differ by {error:.2e} from the members' own"
        except Exception as exc:  # noqa: BLE001 - any failure of the batched form falls back
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        warnings.warn(
            f"{arch}: batched form {form.strategy!r} unusable ({reason}); "
            "training the ensemble's members one after the other",
            RuntimeWarning,
            stacklevel=2,
        )
    return LoopStack(members, lrs, device, recipe)
