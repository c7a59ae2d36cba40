"""LSTM and GRU: recurrent models of Bhattamishra et al. (Sec. 2) with the whole state exposed.

The float forward is ``torch.nn.LSTM`` / ``torch.nn.GRU`` (cuDNN on a GPU); ``step`` recomputes one
time step from the same weights with the cell equations of the torch documentation, so a
protocol (Theorem 2) can cut the sequence anywhere and send the state: the h (and for the LSTM c)
vector of every layer.

Finite-precision mode rounds onto the grid: the token embedding; every gate's pre-activation
(both matmuls and both biases summed exactly, then one rounding); every sigmoid and tanh output;
c; h; the logits. ``forward`` then runs the step recurrence, so it equals ``run_steps`` exactly.
``set_precision`` requires ``(2 * width + 2) * (2^(bits-1) - 1)^2 <= 2^53`` (LSTM; GRU:
``width + 1``), e.g. bits <= 23 for an LSTM of width 64.
"""

from __future__ import annotations

import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

from models.base import ModelConfig, RecurrentModel, sigmoid


@dataclasses.dataclass(frozen=True)
class RNNConfig(ModelConfig):
    """LSTM and GRU: token embedding of size width, ``layers`` stacked cells, linear readout."""


class TorchRNN(RecurrentModel):
    """Embedding, a stacked ``torch.nn`` recurrent module, readout; subclasses define the cell."""

    rnn_class: type[nn.RNNBase]

    def __init__(self, config: RNNConfig) -> None:
        super().__init__(config)
        self.width, self.layers = config.width, config.layers
        self.embedding = nn.Embedding(config.vocab_size, config.width)
        self.rnn = self.rnn_class(config.width, config.width, config.layers, batch_first=True)
        self.head = nn.Linear(config.width, config.outputs)

    def weights(self, layer: int) -> list[torch.Tensor]:
        """W_ih (G*width, width), W_hh (G*width, width), b_ih, b_hh of one layer, on the grid."""
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        return [self.q(getattr(self.rnn, f"{name}_l{layer}")) for name in names]

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return F.embedding(tokens, self.q(self.embedding.weight))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out)."""
        if self.quant is not None:
            return self.run_steps(tokens)[0]
        out, _ = self.rnn(self.embedding(tokens))  # (B, N, width), top layer's h
        return self.head(out)


class LSTM(TorchRNN):
    """LSTM (Hochreiter & Schmidhuber, 1997) as ``torch.nn.LSTM``.

    State: h and c of every layer, each (B, layers, width): state_numel = 2 * layers * width.
    """

    name = "lstm"
    rnn_class = nn.LSTM

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        zeros = self.head.weight.new_zeros(batch, self.layers, self.width)
        return {"h": zeros, "c": zeros.clone()}

    def exact_sum_terms(self) -> int:
        return 2 * self.width + 2  # gates: W_ih x + b_ih + W_hh h + b_hh

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        x = self.embed(tokens)  # (B, width)
        hs, cs = [], []
        for layer in range(self.layers):
            w_ih, w_hh, b_ih, b_hh = self.weights(layer)
            h, c = state["h"][:, layer], state["c"][:, layer]
            gates = self.q(F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh))  # (B, 4 width)
            i, f, g, o = gates.chunk(4, dim=-1)
            i, f, o = self.qmap(torch.stack((i, f, o)), torch.sigmoid, sigmoid)
            c = self.q(f * c + i * self.qmap(g, torch.tanh, math.tanh))
            x = self.q(o * self.qmap(c, torch.tanh, math.tanh))  # h, the next layer's input
            hs.append(x)
            cs.append(c)
        state = {"h": torch.stack(hs, dim=1), "c": torch.stack(cs, dim=1)}
        return state, self.linear(self.head, x)


class GRU(TorchRNN):
    """GRU (Cho et al., 2014) as ``torch.nn.GRU``.

    State: h of every layer, (B, layers, width): state_numel = layers * width.
    """

    name = "gru"
    rnn_class = nn.GRU

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        return {"h": self.head.weight.new_zeros(batch, self.layers, self.width)}

    def exact_sum_terms(self) -> int:
        return self.width + 1  # W_ih x + b_ih, W_hh h + b_hh, readout

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        x = self.embed(tokens)  # (B, width)
        hs = []
        for layer in range(self.layers):
            w_ih, w_hh, b_ih, b_hh = self.weights(layer)
            h = state["h"][:, layer]
            r_x, z_x, n_x = self.q(F.linear(x, w_ih, b_ih)).chunk(3, dim=-1)  # each (B, width)
            r_h, z_h, n_h = self.q(F.linear(h, w_hh, b_hh)).chunk(3, dim=-1)
            r, z = self.qmap(self.q(torch.stack((r_x + r_h, z_x + z_h))), torch.sigmoid, sigmoid)
            n = self.qmap(self.q(n_x + r * n_h), torch.tanh, math.tanh)
            x = self.q((1 - z) * n + z * h)
            hs.append(x)
        return {"h": torch.stack(hs, dim=1)}, self.linear(self.head, x)
