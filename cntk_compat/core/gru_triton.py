"""CNTK's GRU recurrence as two GPU kernels (forward, backward), each one launch for all time steps.

No cuDNN kernel computes CNTK's GRU (its candidate reads ``(r ⊙ h)·H1``), and a step loop of torch ops on a
GPU spends its time launching a dozen small kernels per step. The recurrence of one sequence depends on no
other sequence, so here one program owns a block of sequences and the whole hidden state, and walks the time
steps itself: nothing is launched per step. The programs pass values between the phases of a step through
global memory, behind a barrier; the products run in IEEE float32 (CNTK computed float32 in full precision).

Sequences are padded, time-major, with their lengths on the device: a program computes every step of its
block and writes zeros past each sequence's end. Only float32 on CUDA takes this path (core.fused_gru falls
back to its packed step loop otherwise), and only for hidden sizes up to MAX_DIM: one program computes
BLOCK_B x 3d products per step on one multiprocessor, which stops paying beside cuBLAS when d is large. On an
H100, forward and backward over 50 steps, kernels / step loop: 0.12-0.28 at 128 units, 0.46-0.53 at 256,
1.21-1.37 at 512 (batches of 32 to 2048).
"""
import os

import torch
from torch.autograd.function import once_differentiable

try:
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice
except ImportError:  # torch builds without triton (CPU-only wheels, some platforms)
    triton = None

MAX_DIM = 256
BLOCK_B = 16


def available(tensor, dim):
    """Whether the kernels can run the recurrence of hidden size dim over tensor's device and dtype."""
    return triton is not None and tensor.is_cuda and tensor.dtype == torch.float32 and dim <= MAX_DIM


if triton is not None:
    if os.environ.get("TRITON_INTERPRET") == "1":
        # triton's CPU interpreter (the tests' path without a GPU) has no libdevice
        @triton.jit
        def _tanh(x):
            e = tl.exp(-2.0 * tl.abs(x))
            return tl.where(x < 0, -1.0, 1.0) * (1.0 - e) / (1.0 + e)
    else:
        @triton.jit
        def _tanh(x):
            return libdevice.tanh(x)

    @triton.jit
    def _product(a_ptr, a_stride, b_ptr, b_row_stride, b_col_stride, rows, row_mask, k_size, n0, n_size,
                 SCALE_PTR: tl.constexpr, scale_ptr, scale_stride,
                 BLOCK_B_: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """Σ_k a[rows, k] (* scale[rows, k]) · b[k, n0:n0+BLOCK_N], a (BLOCK_B, BLOCK_N) float32 block."""
        cols = n0 + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_B_, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, k_size, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a_mask = row_mask[:, None] & (ks[None, :] < k_size)
            a = tl.load(a_ptr + rows[:, None] * a_stride + ks[None, :], mask=a_mask, other=0.0,
                        cache_modifier=".cg")
            if SCALE_PTR:
                a = a * tl.load(scale_ptr + rows[:, None] * scale_stride + ks[None, :], mask=a_mask, other=0.0,
                                cache_modifier=".cg")
            b = tl.load(b_ptr + ks[:, None] * b_row_stride + cols[None, :] * b_col_stride,
                        mask=(ks[:, None] < k_size) & (cols[None, :] < n_size), other=0.0)
            acc += tl.dot(a, b, input_precision="ieee")
        return acc

    @triton.jit
    def _forward_kernel(gx, H, H1, lengths, hs, gates, cands, steps, batch, d,
                        BLOCK_B_: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        # gx (T, B, 3d); hs (T + 1, B, d) with hs[0] = h0; gates (T, B, 2d): z, r; cands (T, B, d)
        rows = tl.program_id(0) * BLOCK_B_ + tl.arange(0, BLOCK_B_)
        row_mask = rows < batch
        length = tl.load(lengths + rows, mask=row_mask, other=0)
        for t in range(0, steps):
            h_prev = hs + t * batch * d
            gx_t = gx + t * batch * 3 * d
            gates_t = gates + t * batch * 2 * d
            for n0 in range(0, 2 * d, BLOCK_N):
                cols = n0 + tl.arange(0, BLOCK_N)
                m = row_mask[:, None] & (cols[None, :] < 2 * d)
                acc = _product(h_prev, d, H, 2 * d, 1, rows, row_mask, d, n0, 2 * d, False, h_prev, 0,
                               BLOCK_B_, BLOCK_N, BLOCK_K)
                pre = acc + tl.load(gx_t + rows[:, None] * 3 * d + cols[None, :], mask=m, other=0.0)
                tl.store(gates_t + rows[:, None] * 2 * d + cols[None, :], tl.sigmoid(pre), mask=m)
            tl.debug_barrier()
            for n0 in range(0, d, BLOCK_N):
                cols = n0 + tl.arange(0, BLOCK_N)
                m = row_mask[:, None] & (cols[None, :] < d)
                acc = _product(h_prev, d, H1, d, 1, rows, row_mask, d, n0, d, True, gates_t + d, 2 * d,
                               BLOCK_B_, BLOCK_N, BLOCK_K)
                c = _tanh(acc + tl.load(gx_t + rows[:, None] * 3 * d + 2 * d + cols[None, :], mask=m,
                                                 other=0.0))
                z = tl.load(gates_t + rows[:, None] * 2 * d + cols[None, :], mask=m, other=0.0, cache_modifier=".cg")
                hp = tl.load(h_prev + rows[:, None] * d + cols[None, :], mask=m, other=0.0, cache_modifier=".cg")
                h = tl.where((t < length)[:, None], c + z * (hp - c), 0.0)
                tl.store(cands + t * batch * d + rows[:, None] * d + cols[None, :], c, mask=m)
                tl.store(h_prev + batch * d + rows[:, None] * d + cols[None, :], h, mask=m)
            tl.debug_barrier()

    @triton.jit
    def _backward_kernel(grad_out, H, H1, lengths, hs, gates, cands, grad_gx, grad_hs, steps, batch, d,
                         BLOCK_B_: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        # grad_hs (2, B, d), zero: the gradient of h at the step after t (read) and at t (written), by parity
        rows = tl.program_id(0) * BLOCK_B_ + tl.arange(0, BLOCK_B_)
        row_mask = rows < batch
        length = tl.load(lengths + rows, mask=row_mask, other=0)
        for i in range(0, steps):
            t = steps - 1 - i
            grad_next = grad_hs + (i % 2) * batch * d
            grad_here = grad_hs + ((i + 1) % 2) * batch * d
            valid = (t < length)[:, None]
            gates_t = gates + t * batch * 2 * d
            grad_gx_t = grad_gx + t * batch * 3 * d
            h_prev = hs + t * batch * d
            for n0 in range(0, d, BLOCK_N):
                cols = n0 + tl.arange(0, BLOCK_N)
                m = row_mask[:, None] & (cols[None, :] < d)
                at = rows[:, None] * d + cols[None, :]
                g = tl.load(grad_next + at, mask=m, other=0.0, cache_modifier=".cg") + \
                    tl.load(grad_out + t * batch * d + at, mask=m, other=0.0)
                g = tl.where(valid, g, 0.0)
                z = tl.load(gates_t + rows[:, None] * 2 * d + cols[None, :], mask=m, other=0.0, cache_modifier=".cg")
                c = tl.load(cands + t * batch * d + at, mask=m, other=0.0)
                hp = tl.load(h_prev + at, mask=m, other=0.0)
                tl.store(grad_gx_t + rows[:, None] * 3 * d + 2 * d + cols[None, :], (g - g * z) * (1 - c * c), mask=m)
                tl.store(grad_gx_t + rows[:, None] * 3 * d + cols[None, :], g * (hp - c) * (z - z * z), mask=m)
                tl.store(grad_here + at, g * z, mask=m)
            tl.debug_barrier()
            for n0 in range(0, d, BLOCK_N):
                cols = n0 + tl.arange(0, BLOCK_N)
                m = row_mask[:, None] & (cols[None, :] < d)
                at = rows[:, None] * d + cols[None, :]
                # the gradient of r ⊙ h_prev: grad_c · H1ᵀ
                grad_rh = _product(grad_gx_t + 2 * d, 3 * d, H1, 1, d, rows, row_mask, d, n0, d, False, grad_gx_t,
                                   0, BLOCK_B_, BLOCK_N, BLOCK_K)
                r = tl.load(gates_t + rows[:, None] * 2 * d + d + cols[None, :], mask=m, other=0.0,
                            cache_modifier=".cg")
                hp = tl.load(h_prev + at, mask=m, other=0.0)
                tl.store(grad_gx_t + rows[:, None] * 3 * d + d + cols[None, :], grad_rh * hp * (r - r * r), mask=m)
                partial = tl.load(grad_here + at, mask=m, other=0.0, cache_modifier=".cg")
                tl.store(grad_here + at, partial + grad_rh * r, mask=m)
            tl.debug_barrier()
            for n0 in range(0, d, BLOCK_N):
                cols = n0 + tl.arange(0, BLOCK_N)
                m = row_mask[:, None] & (cols[None, :] < d)
                at = rows[:, None] * d + cols[None, :]
                # through the gates' recurrent product: grad_zr · Hᵀ
                acc = _product(grad_gx_t, 3 * d, H, 1, 2 * d, rows, row_mask, 2 * d, n0, d, False, grad_gx_t, 0,
                               BLOCK_B_, BLOCK_N, BLOCK_K)
                partial = tl.load(grad_here + at, mask=m, other=0.0, cache_modifier=".cg")
                tl.store(grad_here + at, partial + acc, mask=m)
            tl.debug_barrier()


def _blocks(d):
    return dict(BLOCK_B_=BLOCK_B, BLOCK_N=64 if d >= 64 else 32, BLOCK_K=32)


class GRUSequence(torch.autograd.Function):
    """(gx (T, B, 3d): the input projections, time-major; H (d, 2d); H1 (d, d); h0 (B, d); lengths (B,) int32 on
    gx's device) -> h (T, B, d), zero past each sequence's end. Differentiable once, as core.fused_gru's loop."""

    @staticmethod
    def forward(ctx, gx, H, H1, h0, lengths):
        steps, batch, d = gx.shape[0], gx.shape[1], H1.shape[0]
        gx, H, H1 = gx.contiguous(), H.contiguous(), H1.contiguous()
        hs = gx.new_empty(steps + 1, batch, d)
        hs[0] = h0
        gates = gx.new_empty(steps, batch, 2 * d)
        cands = gx.new_empty(steps, batch, d)
        grid = (triton.cdiv(batch, BLOCK_B),)
        _forward_kernel[grid](gx, H, H1, lengths, hs, gates, cands, steps, batch, d, **_blocks(d))
        ctx.save_for_backward(H, H1, lengths, hs, gates, cands)
        return hs[1:]

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        H, H1, lengths, hs, gates, cands = ctx.saved_tensors
        steps, batch, d = cands.shape
        grad_gx = grad_out.new_empty(steps, batch, 3 * d)
        grad_hs = grad_out.new_zeros(2, batch, d)
        grid = (triton.cdiv(batch, BLOCK_B),)
        _backward_kernel[grid](grad_out.contiguous(), H, H1, lengths, hs, gates, cands, grad_gx, grad_hs, steps,
                               batch, d, **_blocks(d))
        h_prev = hs[:-1].reshape(-1, d)
        grad_H = h_prev.t().mm(grad_gx[..., :2 * d].reshape(-1, 2 * d))
        gated = (hs[:-1] * gates[..., d:]).reshape(-1, d)
        grad_H1 = gated.t().mm(grad_gx[..., 2 * d:].reshape(-1, d))
        return grad_gx, grad_H, grad_H1, grad_hs[steps % 2], None
