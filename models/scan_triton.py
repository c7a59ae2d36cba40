"""The selective scan of :mod:`models.mamba` as fused Triton kernels, for GPUs.

Same contract as :class:`models.mamba.SelectiveScan` (y_t = C_t . h_t, h_t = exp(delta_t A) h_{t-1}
+ B_t delta_t x_t, h_0 = 0; delta, x (N, B, D); A (DS, D) or (G, DS, D); Bm, Cm (N, B, DS)), in the
way of Gu & Dao's CUDA kernel (Mamba, Sec. 3.3.2): one program per (sequence b, block of
``BLOCK_D`` channels) walks the sequence with its (DS, BLOCK_D) state in registers, so the
(N, B, DS, D) states never reach memory. The forward writes the state entering every chunk of
``CHUNK`` steps; the backward walks the chunks in reverse, recomputes a chunk's states into a
per-program scratch buffer and runs the adjoint recurrence g_s = C_s gy_s + exp(delta_{s+1} A)
g_{s+1} through it. Sums over channels (the gradients of B and C) are written per channel block
and over sequences (of A) per sequence, then reduced by torch: no atomics, so the result is
deterministic.

The chunked scan of ``models/mamba.py`` stays the CPU path (it is 10x faster than ``mambapy`` on
a CPU). Tests run these kernels on the CPU with Triton's interpreter (``TRITON_INTERPRET=1``)
against the chunked scan; speed on a GPU: ``benchmarks/mamba_speed.py --device cuda``.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

CHUNK = 32  # steps between saved states: the backward's scratch is (CHUNK, DS, BLOCK_D)
BLOCK_D = 32  # channels per program


@triton.jit
def _scan_forward(
    delta_ptr,
    A_ptr,
    B_ptr,
    C_ptr,
    x_ptr,
    y_ptr,
    starts_ptr,
    N,
    Bsz,
    D,
    per_group,
    DS: tl.constexpr,
    N_P2: tl.constexpr,
    BLOCK: tl.constexpr,
    CHUNK_: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    n = tl.arange(0, N_P2)
    d_ok = d < D
    n_ok = n < DS
    nd_ok = n_ok[:, None] & d_ok[None, :]
    A = tl.load(A_ptr + (b // per_group) * DS * D + n[:, None] * D + d[None, :], nd_ok, 0.0)
    h = tl.zeros((N_P2, BLOCK), tl.float32)
    for t in range(N):
        row = t * Bsz + b
        delta = tl.load(delta_ptr + row * D + d, d_ok, 0.0)
        x = tl.load(x_ptr + row * D + d, d_ok, 0.0)
        Bt = tl.load(B_ptr + row * DS + n, n_ok, 0.0)
        Ct = tl.load(C_ptr + row * DS + n, n_ok, 0.0)
        h = tl.exp(delta[None, :] * A) * h + Bt[:, None] * (delta * x)[None, :]
        tl.store(y_ptr + row * D + d, tl.sum(Ct[:, None] * h, axis=0), d_ok)
        if (t + 1) % CHUNK_ == 0:
            chunk = (t + 1) // CHUNK_
            where = ((chunk * Bsz + b) * DS + n[:, None]) * D + d[None, :]
            tl.store(starts_ptr + where, h, nd_ok)


@triton.jit
def _scan_backward(
    delta_ptr,
    A_ptr,
    B_ptr,
    C_ptr,
    x_ptr,
    gy_ptr,
    starts_ptr,
    scratch_ptr,
    g_delta_ptr,
    g_x_ptr,
    g_B_ptr,
    g_C_ptr,
    g_A_ptr,
    N,
    Bsz,
    D,
    per_group,
    DS: tl.constexpr,
    N_P2: tl.constexpr,
    BLOCK: tl.constexpr,
    CHUNK_: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)
    block = tl.program_id(1)
    d = block * BLOCK + tl.arange(0, BLOCK)
    n = tl.arange(0, N_P2)
    d_ok = d < D
    n_ok = n < DS
    nd_ok = n_ok[:, None] & d_ok[None, :]
    A = tl.load(A_ptr + (b // per_group) * DS * D + n[:, None] * D + d[None, :], nd_ok, 0.0)
    local = n[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]  # (N_P2, BLOCK) in one scratch slot
    scratch = scratch_ptr + (b * tl.num_programs(1) + block) * CHUNK_ * N_P2 * BLOCK
    g_A = tl.zeros((N_P2, BLOCK), tl.float32)
    carry = tl.zeros((N_P2, BLOCK), tl.float32)  # exp(delta_{s+1} A) g_{s+1}
    chunks = tl.cdiv(N, CHUNK_)
    for back in range(chunks):
        c = chunks - 1 - back
        t0 = c * CHUNK_
        t1 = tl.minimum(t0 + CHUNK_, N)
        start = tl.load(starts_ptr + ((c * Bsz + b) * DS + n[:, None]) * D + d[None, :], nd_ok, 0.0)
        h = start
        for t in range(t0, t1):
            row = t * Bsz + b
            delta = tl.load(delta_ptr + row * D + d, d_ok, 0.0)
            x = tl.load(x_ptr + row * D + d, d_ok, 0.0)
            Bt = tl.load(B_ptr + row * DS + n, n_ok, 0.0)
            h = tl.exp(delta[None, :] * A) * h + Bt[:, None] * (delta * x)[None, :]
            tl.store(scratch + (t - t0) * N_P2 * BLOCK + local, h)
        for back_t in range(t1 - t0):
            t = t1 - 1 - back_t
            row = t * Bsz + b
            delta = tl.load(delta_ptr + row * D + d, d_ok, 0.0)
            x = tl.load(x_ptr + row * D + d, d_ok, 0.0)
            Bt = tl.load(B_ptr + row * DS + n, n_ok, 0.0)
            Ct = tl.load(C_ptr + row * DS + n, n_ok, 0.0)
            gy = tl.load(gy_ptr + row * D + d, d_ok, 0.0)
            h = tl.load(scratch + (t - t0) * N_P2 * BLOCK + local)
            if t > t0:  # noqa: SIM108 - a branch on a runtime scalar, as Triton compiles it
                h_prev = tl.load(scratch + (t - t0 - 1) * N_P2 * BLOCK + local)
            else:
                h_prev = start
            dA = tl.exp(delta[None, :] * A)
            g = carry + Ct[:, None] * gy[None, :]  # dL/dh_t
            dx = delta * x
            g_dx = tl.sum(Bt[:, None] * g, axis=0)  # (BLOCK,)
            w = g * h_prev * dA  # dL/d(delta_t A)
            g_A += w * delta[None, :]
            g_delta = g_dx * x + tl.sum(w * A, axis=0)
            tl.store(g_delta_ptr + row * D + d, g_delta, d_ok)
            tl.store(g_x_ptr + row * D + d, g_dx * delta, d_ok)
            part = (block * N * Bsz + row) * DS + n  # per channel block, summed by torch
            tl.store(g_B_ptr + part, tl.sum(g * dx[None, :], axis=1), n_ok)
            tl.store(g_C_ptr + part, tl.sum(h * gy[None, :], axis=1), n_ok)
            carry = dA * g
    tl.store(g_A_ptr + (b * DS + n[:, None]) * D + d[None, :], g_A, nd_ok)


def _sizes(A: torch.Tensor, x: torch.Tensor) -> tuple[int, int, int, int, int]:
    N, B, D = x.shape
    DS = A.shape[-2]
    groups = A.numel() // (DS * D)
    return N, B, D, DS, groups


class TritonScan(torch.autograd.Function):
    """:class:`models.mamba.SelectiveScan` with the fused kernels above (float32)."""

    @staticmethod
    def forward(ctx: Any, delta, A, Bm, Cm, x):
        N, B, D, DS, groups = _sizes(A, x)
        y = torch.empty_like(x)
        starts = x.new_zeros(triton.cdiv(N, CHUNK) + 1, B, DS, D)
        grid = (B, triton.cdiv(D, BLOCK_D))
        _scan_forward[grid](
            delta,
            A,
            Bm,
            Cm,
            x,
            y,
            starts,
            N,
            B,
            D,
            B // groups,
            DS=DS,
            N_P2=triton.next_power_of_2(DS),
            BLOCK=BLOCK_D,
            CHUNK_=CHUNK,
        )
        ctx.save_for_backward(delta, A, Bm, Cm, x, starts)
        return y

    @staticmethod
    def backward(ctx: Any, gy):
        delta, A, Bm, Cm, x, starts = ctx.saved_tensors
        N, B, D, DS, groups = _sizes(A, x)
        blocks = triton.cdiv(D, BLOCK_D)
        n_p2 = triton.next_power_of_2(DS)
        scratch = x.new_empty(B * blocks * CHUNK * n_p2 * BLOCK_D)
        g_delta, g_x = torch.empty_like(delta), torch.empty_like(x)
        g_B, g_C = x.new_empty(blocks, N, B, DS), x.new_empty(blocks, N, B, DS)
        g_A = x.new_empty(B, DS, D)
        _scan_backward[(B, blocks)](
            delta,
            A,
            Bm,
            Cm,
            x,
            gy.contiguous(),
            starts,
            scratch,
            g_delta,
            g_x,
            g_B,
            g_C,
            g_A,
            N,
            B,
            D,
            B // groups,
            DS=DS,
            N_P2=n_p2,
            BLOCK=BLOCK_D,
            CHUNK_=CHUNK,
        )
        g_A = g_A.view(groups, B // groups, DS, D).sum(1).view_as(A)
        return g_delta, g_A, g_B.sum(0), g_C.sum(0), g_x


def selective_scan_triton(
    delta: torch.Tensor, A: torch.Tensor, Bm: torch.Tensor, Cm: torch.Tensor, x: torch.Tensor
) -> torch.Tensor:
    """The SSM outputs of a whole sequence, time-major, by the fused kernels (float32 inputs)."""
    return TritonScan.apply(*(t.contiguous() for t in (delta, A, Bm, Cm, x)))
