"""Recurrent loops that are CNTK's GRU run as one autograd Function with a hand-written backward pass.

CNTK's GRU forms its candidate from ``(r ⊙ h)·H1``, torch's GRU kernel from ``r ⊙ (h·U + b)``: a different
function, so torch's kernel cannot run it. What makes a step loop slow is not the arithmetic but the work per
step around it (the fx step module, dozens of autograd nodes per step, the input projection per step). Here
the input projection ``x·W + b`` runs once over all steps (under autograd, outside the Function); the Function
runs the recurrence over length-sorted sequences (packed: step t computes only the sequences still running)
with five tensor ops per step forward, and its backward runs the recurrence back with the per-step products
only, computing the gradients of H and H1 as one product each over all steps after the loop.

The loop is recognized by its math (OpDef.algebra), as the LSTM is (core.fused_recurrence): one delay of h
(time_step 1) with

    X = x·W [+ b]                       (b without dynamic axes; or X any value computed outside the loop)
    Y = h_prev·H
    z = sigmoid(X[0:d] + Y[0:d]),  r = sigmoid(X[d:2d] + Y[d:2d])
    h = (1 - z) * tanh(X[2d:3d] + (h_prev * r)·H1) + z * h_prev      (products and sums in any order)

It falls back to the step loop under the rules of core.fused_recurrence (time_step, a sequence as initial
state, carried state at run time) and while torch.export / torch.compile traces the graph. The Function is
differentiable once: for higher-order gradients lower with ``use_fused_kernels(False)``.
"""
import torch
from torch.autograd.function import once_differentiable

from .device import copy_to
from .fused_recurrence import (_ENABLED, _Resolver, _slice_block, _split_pair, _static_shape, _unary,
                               _reversal_index)
from .initial_state import initial_state_steps
from .sequence_masks import host_lengths


class GRUMatch(object):
    """Variables of x, W (None when x is the projection itself), b (or None), H, H1, and the delay."""

    def __init__(self, h_delay, x, W, b, H, H1, dim):
        self.h_delay, self.x, self.W, self.b, self.H, self.H1, self.dim = h_delay, x, W, b, H, H1, dim


def _is_one(e):
    v = e.var
    return e.algebra is None and not e.in_loop and v is not None and v.is_constant and \
        v._shape is not None and int(torch.Size(v._shape).numel()) == 1 and bool((v.tensor == 1).all())


def _is_delay(e, delay):
    return e.algebra is None and e.node is delay


def match_gru(loop):
    """A GRUMatch if the loop computes CNTK's GRU with default settings (see the module docstring), else None."""
    if not _ENABLED[0] or len(loop.delays) != 1 or loop.delays[0]._attributes.get("time_step") != 1:
        return None
    delay = loop.delays[0]
    shape = _static_shape(delay._outputs[0])
    if shape is None or len(shape) != 1:
        return None
    dim = shape[0]
    resolver = _Resolver(loop)
    h = resolver.expr(delay._inputs[0])
    if h.algebra != "add" or len(h.args) != 2:
        return None
    for keep_term, new_term in (h.args, h.args[::-1]):
        keep = _split_pair(keep_term, lambda a: _is_delay(a, delay))
        new = _split_pair(new_term, lambda a: a.algebra == "sub")
        if keep is None or new is None:
            continue
        z, (one_minus_z, candidate) = keep[1], new
        if z.algebra != "sigmoid" or len(one_minus_z.args) != 2 or not _is_one(one_minus_z.args[0]) or \
                one_minus_z.args[1].node is not z.node:
            continue
        found = _match_gates(z, candidate, delay, dim)
        if found is not None:
            return found
    return None


def _two_slices(e, dim):
    """(slice of X, slice of Y) of a sum of two slices, as ((expr, block), (expr, block)) pairs, else None."""
    if e is None or e.algebra != "add" or len(e.args) != 2 or any(a.algebra != "slice" for a in e.args):
        return None
    return tuple((a.args[0], _slice_block(a, a.args[0], dim)) for a in e.args)


def _match_gates(z, candidate, delay, dim):
    zs = _two_slices(_unary(z, "sigmoid"), dim)
    cand = _unary(candidate, "tanh")
    if zs is None or cand is None or cand.algebra != "add" or len(cand.args) != 2:
        return None
    # the candidate: a slice of X plus (h_prev * r)·H1
    recurrent = [a for a in cand.args if a.algebra == "matmul"]
    x_part = [a for a in cand.args if a.algebra == "slice"]
    if len(recurrent) != 1 or len(x_part) != 1:
        return None
    (gated, H1), X = recurrent[0].args, x_part[0].args[0]
    if recurrent[0].node._attributes.get("output_rank") != 1 or _slice_block(x_part[0], X, dim) != 2:
        return None
    pair = _split_pair(gated, lambda a: _is_delay(a, delay))
    if pair is None or pair[1].algebra != "sigmoid":
        return None
    rs = _two_slices(_unary(pair[1], "sigmoid"), dim)
    if rs is None:
        return None
    # z and r: X and Y blocks 0 and 1, X being the one the candidate reads
    by_source = {}
    for gate, block in ((zs, 0), (rs, 1)):
        for source, index in gate:
            if index != block:
                return None
            by_source.setdefault(source.node, []).append(source)
    if len(by_source) != 2 or X.node not in by_source:
        return None
    Y = [v[0] for k, v in by_source.items() if k is not X.node][0]
    if Y.algebra != "matmul" or Y.node._attributes.get("output_rank") != 1 or not _is_delay(Y.args[0], delay):
        return None
    H = Y.args[1]
    if not _outside_matrix(H, (dim, 2 * dim)) or not _outside_matrix(H1, (dim, dim)):
        return None
    projection = _projection(X, dim)
    if projection is None:
        return None
    x, W, b = projection
    dtypes = {v._dtype for v in (x, W, b, H.var, H1.var) if v is not None}
    if len(dtypes) != 1 or x._sequence_axis is None:
        return None
    return GRUMatch(delay, x, W, b, H.var, H1.var, dim)


def _outside_matrix(e, shape):
    return not e.in_loop and e.var is not None and not e.var._n_dynamic and _static_shape(e.var) == shape


def _projection(X, dim):
    """(x, W, b) of X = x·W [+ b]; (X, None, None) when X is a value computed outside the loop."""
    if X.in_loop:
        return None
    if X.algebra is None and X.var is not None and _static_shape(X.var) == (3 * dim,):
        return X.var, None, None
    terms = X.args if X.algebra == "add" else (X,)
    x = W = b = None
    for term in terms:
        if term.algebra == "matmul" and term.node._attributes.get("output_rank") == 1 and x is None:
            left, right = term.args
            if left.var is None or right.var is None or right.var._n_dynamic or \
                    _static_shape(right.var) is None or len(_static_shape(right.var)) != 2 or \
                    _static_shape(right.var)[1] != 3 * dim or _static_shape(left.var) is None or \
                    len(_static_shape(left.var)) != 1:
                return None
            x, W = left.var, right.var
        elif term.algebra is None and term.var is not None and b is None and term.var._n_dynamic == 0 and \
                _static_shape(term.var) == (3 * dim,):
            b = term.var
        else:
            return None
    return None if x is None else (x, W, b)


def _gpu_kernels(x, dim):
    """core.gru_triton if its kernels can run this recurrence, else None. Imported at the first call on a GPU:
    triton takes a fifth of a second to load, which a CPU-only user need not pay."""
    if not x.is_cuda:
        return None
    from . import gru_triton
    return gru_triton if gru_triton.available(x, dim) else None


class _GRUSequence(torch.autograd.Function):
    """(gx (T, B, 3d): the input projections, time-major, sequences sorted by length, longest first; H (d, 2d);
    H1 (d, d); h0 (B, d); batch_sizes: per step the number of sequences still running) -> h (T, B, d), zero past
    each sequence's end. Time-major, so that each step's rows are one contiguous block."""

    @staticmethod
    def forward(ctx, gx, H, H1, h0, batch_sizes):
        steps, batch, d = gx.shape[0], gx.shape[1], H1.shape[0]
        out = gx.new_zeros(steps, batch, d)
        gates = gx.new_empty(steps, batch, 2 * d)     # sigmoid(z), sigmoid(r)
        candidates = gx.new_empty(steps, batch, d)
        gated = gx.new_zeros(steps, batch, d)         # h_prev * r, the operand of H1
        h = h0
        for t, n in enumerate(batch_sizes):
            h_prev = h[:n]
            zr = torch.addmm(gx[t, :n, :2 * d], h_prev, H, out=gates[t, :n]).sigmoid_()
            rh = torch.mul(h_prev, zr[:, d:], out=gated[t, :n])
            c = torch.addmm(gx[t, :n, 2 * d:], rh, H1, out=candidates[t, :n]).tanh_()
            h = torch.lerp(c, h_prev, zr[:, :d], out=out[t, :n])
        ctx.save_for_backward(H, H1, h0, out, gates, candidates, gated)
        ctx.batch_sizes = batch_sizes
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        H, H1, h0, out, gates, candidates, gated = ctx.saved_tensors
        batch_sizes = ctx.batch_sizes
        d = H1.shape[0]
        steps, batch = out.shape[0], out.shape[1]
        grad_gx = grad_out.new_zeros(steps, batch, 3 * d)
        grad_h = grad_out.new_zeros(batch, d)
        H_t, H1_t = H.t(), H1.t()
        for t in range(len(batch_sizes) - 1, -1, -1):
            n = batch_sizes[t]
            g = grad_h[:n] + grad_out[t, :n]
            zr, c = gates[t, :n], candidates[t, :n]
            z, r = zr[:, :d], zr[:, d:]
            h_prev = out[t - 1, :n] if t > 0 else h0[:n]
            grad_c = grad_gx[t, :n, 2 * d:]
            torch.mul(g - g * z, 1 - c * c, out=grad_c)            # through h = (1 - z) c + z h_prev, and tanh
            grad_rh = grad_c.mm(H1_t)
            grad_zr = torch.cat([g * (h_prev - c), grad_rh * h_prev], 1)
            grad_zr_pre = torch.mul(grad_zr, zr - zr * zr, out=grad_gx[t, :n, :2 * d])
            grad_h[:n] = torch.addmm(g * z + grad_rh * r, grad_zr_pre, H_t)
        h_prev_all = torch.cat([h0[None], out[:-1]], 0).reshape(-1, d)
        grad_H = h_prev_all.t().mm(grad_gx[..., :2 * d].reshape(-1, 2 * d))
        grad_H1 = gated.reshape(-1, d).t().mm(grad_gx[..., 2 * d:].reshape(-1, d))
        return grad_gx, grad_H, grad_H1, grad_h, None


class FusedGRU(torch.nn.Module):
    """forward(mask, slots, x, W, b, H, H1, init_h, *generic_externals) -> (B, T, dim) sequence of h.

    W is None when x is the input projection itself; generic, generic_index: the step-loop module of the same
    loop and the position of h among its outputs (for carried state and for tracing)."""

    def __init__(self, dim, backward, init_dynamic, dtype, generic, generic_index):
        super(FusedGRU, self).__init__()
        self.dim, self.backward, self.init_dynamic, self.dtype = dim, backward, init_dynamic, dtype
        self.generic, self.generic_index = generic, generic_index

    def forward(self, mask, slots, x, W, b, H, H1, init_h, *generic_externals):
        if (slots is not None and not self.backward) or torch.compiler.is_compiling():
            return self.generic(mask, slots, *generic_externals)[self.generic_index]
        batch, steps = mask.shape[0], mask.shape[1]
        if steps == 0:
            raise ValueError("a recurrent loop cannot run over empty sequences")
        x = x.to(self.dtype)
        kernels = _gpu_kernels(x, self.dim) if batch else None
        if kernels is not None:
            return self._padded_kernels(kernels, mask, x, W, b, H, H1, init_h, batch, steps)
        lengths = host_lengths(mask)  # on the host: the batch sizes below are Python numbers
        if self.backward:
            index = _reversal_index(copy_to(lengths, x.device), steps, x.device)
            x = x.gather(1, index[..., None].expand(x.shape))
        order = torch.argsort(lengths, descending=True, stable=True)
        sorted_lengths = lengths.index_select(0, order)
        order = copy_to(order, x.device)
        x = x.index_select(0, order).transpose(0, 1)
        if W is not None:
            gx = torch.matmul(x, W)
            gx = gx + b if b is not None else gx
        else:
            gx = x
        h0 = initial_state_steps(init_h, self.init_dynamic, batch, 1, (self.dim,), self.dtype)[:, 0]
        h0 = h0.index_select(0, order) if self.init_dynamic else h0.contiguous()
        batch_sizes = (sorted_lengths[None, :] > torch.arange(steps)[:, None]).sum(1).tolist()
        out = _GRUSequence.apply(gx.contiguous(), H, H1, h0, batch_sizes)
        out = out.transpose(0, 1).index_select(0, torch.argsort(order))
        if self.backward:
            out = out.gather(1, index[..., None].expand(out.shape))
        return out

    def _padded_kernels(self, kernels, mask, x, W, b, H, H1, init_h, batch, steps):
        """The recurrence as core.gru_triton's two kernels over the padded batch: no sorting, no host lengths."""
        lengths = mask.sum(1, dtype=torch.int32)
        if self.backward:
            index = _reversal_index(lengths, steps, x.device)
            x = x.gather(1, index[..., None].expand(x.shape))
        x = x.transpose(0, 1)
        gx = x if W is None else torch.matmul(x, W)
        gx = gx + b if b is not None else gx
        h0 = initial_state_steps(init_h, self.init_dynamic, batch, 1, (self.dim,), self.dtype)[:, 0]
        out = kernels.GRUSequence.apply(gx, H, H1, h0.expand(batch, self.dim), lengths).transpose(0, 1)
        if self.backward:
            out = out.gather(1, index[..., None].expand(out.shape))
        return out
