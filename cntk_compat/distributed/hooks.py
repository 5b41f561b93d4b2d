"""DDP communication hooks (``torch.nn.parallel.DistributedDataParallel.register_comm_hook``) that sum the
workers' gradients, at full precision or quantized as CNTK's 1-bit SGD and its n-bit variants did.

Both hooks have the standard signature ``hook(state, bucket) -> torch.futures.Future[torch.Tensor]`` and need
nothing of cntk_compat: they can be registered on any model wrapped in DDP::

    from cntk_compat.distributed import hooks
    ddp = DistributedDataParallel(model)
    state = hooks.QuantizedGradientState(bits=1, module=ddp.module)
    ddp.register_comm_hook(state, hooks.quantized_gradient_hook)

Unlike DDP's default hook they **sum** the gradients (no division by the number of workers), as CNTK's
aggregation does: scale the learning rate, or the loss, accordingly.

The quantized aggregation keeps each worker's traffic independent of the number of workers N, as CNTK's
striped aggregation did. Each parameter's gradient is viewed as columns (see :mod:`.quantization`) and its
columns are cut into N stripes; worker k owns stripe k of every parameter. Per bucket:

1. every worker adds its residual to the gradient, quantizes each column and keeps what the reconstruction
   misses as the new residual (error feedback);
2. ``all_to_all``: worker k receives stripe k of every worker's codes (a quantized reduce-scatter; the hook
   waits for it, so only step 4 overlaps the rest of the backward pass);
3. worker k dequantizes them, sums them, adds its second residual (kept for its stripes) and quantizes the sum
   again, keeping that error too;
4. ``all_gather``: every worker receives every stripe's quantized sum and dequantizes it.

Every worker ends with the same values (also the owner of a stripe uses the dequantized sum). Each worker sends
and receives about ``2 (N - 1) / N`` times the quantized gradient, like a ring all-reduce of the full-precision
one; a column costs its packed codes plus two floats (its range).

The residuals belong to each worker: save :meth:`QuantizedGradientState.state_dict` per worker with the rest of
the training state, so that a resumed run continues exactly as an uninterrupted one.
"""
import torch
import torch.distributed as dist

from .quantization import as_columns, check_bits, dequantize, pack, packed_size, quantization_range, quantize, \
    unpack

__all__ = ["SumState", "allreduce_sum_hook", "QuantizedGradientState", "quantized_gradient_hook"]


class SumState(object):
    """The state of :func:`allreduce_sum_hook`: the process group (None: the default group)."""

    def __init__(self, process_group=None):
        self.process_group = process_group


def allreduce_sum_hook(state, bucket):
    """Sums the bucket's gradients over the workers with one full-precision all-reduce (DDP's default hook
    without the division by the number of workers)."""
    group = state.process_group if state is not None else None
    buffer = bucket.buffer()
    work = dist.all_reduce(buffer, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


class QuantizedGradientState(object):
    """The state of :func:`quantized_gradient_hook`: the bit count, the process group and this worker's
    quantization residuals.

    Args:
        bits (int): bits a gradient value travels with: 1, 2, 4, 8 or 16.
        module (torch.nn.Module): the model whose gradients are quantized (the one wrapped in DDP); it names the
         residuals in :meth:`state_dict`. May be None when no state is saved.
        process_group: the workers (None: the default group).
    """

    def __init__(self, bits, module=None, process_group=None):
        self.bits = check_bits(bits)
        self.process_group = process_group
        self._module = module
        # by parameter: the residual of this worker's gradient, and of the stripe sums this worker owns
        self._residual = {}
        self._stripe_residual = {}

    def _names(self):
        if self._module is None:
            raise ValueError("QuantizedGradientState: give the module (module=...) to save or load the residuals")
        return [(name, p) for name, p in self._module.named_parameters() if p.requires_grad]

    def state_dict(self):
        """This worker's residuals by parameter name (tensors, or None before the parameter's first step)."""
        out = {"bits": self.bits, "residual": {}, "stripe_residual": {}}
        for name, p in self._names():
            for key, kept in (("residual", self._residual), ("stripe_residual", self._stripe_residual)):
                value = kept.get(p)
                out[key][name] = None if value is None else value.detach().cpu().clone()
        return out

    def load_state_dict(self, state):
        """Restores the residuals that :meth:`state_dict` saved (on this worker)."""
        if state.get("bits") != self.bits:
            raise ValueError("QuantizedGradientState.load_state_dict: the state was saved with %r bits, this "
                             "state quantizes to %d bits" % (state.get("bits"), self.bits))
        self._residual.clear()
        self._stripe_residual.clear()
        for name, p in self._names():
            for key, kept in (("residual", self._residual), ("stripe_residual", self._stripe_residual)):
                if name not in state[key]:
                    raise ValueError("QuantizedGradientState.load_state_dict: no %s for parameter '%s'"
                                     % (key, name))
                value = state[key][name]
                if value is not None:
                    kept[p] = value.to(device=p.device, dtype=p.dtype)

    def reset(self):
        """Forgets all residuals."""
        self._residual.clear()
        self._stripe_residual.clear()


class _Layout(object):
    """How one parameter's gradient travels: its columns, their stripes and the bytes of each column."""

    def __init__(self, gradient, bits, workers):
        columns = as_columns(gradient)
        self.shape = gradient.shape
        self.columns, self.rows = columns.shape
        self.stripes = [len(s) for s in torch.arange(self.columns).tensor_split(workers)]
        self.starts = [sum(self.stripes[:k]) for k in range(workers)]
        self.code_bytes = packed_size(self.rows, bits)
        self.record_bytes = self.code_bytes + 2 * gradient.element_size()


def _records(columns, bits):
    """Each column quantized: (records (columns, bytes) uint8: packed codes then lower and upper, reconstruction)."""
    lower, upper = quantization_range(columns, bits)
    codes = quantize(columns, lower, upper, bits)
    ranges = torch.stack([lower, upper], dim=1).contiguous().view(torch.uint8)
    return torch.cat([pack(codes, bits), ranges], dim=1), dequantize(codes, lower, upper, bits)


def _values(records, layout, bits, dtype):
    """The columns that records (..., columns, bytes) reconstruct to."""
    codes = unpack(records[..., :layout.code_bytes], bits, layout.rows)
    ranges = records[..., layout.code_bytes:].clone(memory_format=torch.contiguous_format).view(dtype)
    return dequantize(codes, ranges[..., 0], ranges[..., 1], bits)


def _split_records(flat, layouts, stripe):
    """The records of one stripe of every parameter, from their concatenation."""
    parts, at = [], 0
    for layout in layouts:
        size = layout.stripes[stripe] * layout.record_bytes
        shape = flat.shape[:-1] + (layout.stripes[stripe], layout.record_bytes)
        parts.append(flat[..., at:at + size].reshape(shape))
        at += size
    return parts


def quantized_gradient_hook(state, bucket):
    """Sums the bucket's gradients over the workers, quantized column by column to ``state.bits`` bits with
    error feedback, striped so that each worker's traffic does not grow with the number of workers (see the
    module docstring)."""
    group = state.process_group
    bits = state.bits
    workers = dist.get_world_size(group)
    rank = dist.get_rank(group)
    buffer = bucket.buffer()
    parameters = bucket.parameters()
    gradients = bucket.gradients()
    layouts = [_Layout(g, bits, workers) for g in gradients]

    outgoing = [[] for _ in range(workers)]
    for p, g, layout in zip(parameters, gradients, layouts):
        residual = state._residual.get(p)
        value = g if residual is None else g + residual
        columns = as_columns(value)
        records, sent = _records(columns, bits)
        state._residual[p] = (columns - sent).reshape(layout.shape)
        for k in range(workers):
            start = layout.starts[k]
            outgoing[k].append(records[start:start + layout.stripes[k]].reshape(-1))
    send_sizes = [sum(part.numel() for part in parts) for parts in outgoing]
    mine = send_sizes[rank]
    send = torch.cat([part for parts in outgoing for part in parts])
    received = torch.empty(workers * mine, dtype=torch.uint8, device=buffer.device)
    # waited for here, not in a callback: a callback that waited for another collective could block the
    # backend's thread that has to run it
    dist.all_to_all_single(received, send, [mine] * workers, send_sizes, group=group, async_op=True).wait()
    own = []
    for p, layout, records in zip(parameters, layouts, _split_records(received.view(workers, mine), layouts, rank)):
        total = _values(records, layout, bits, buffer.dtype).sum(dim=0)
        residual = state._stripe_residual.get(p)
        if residual is not None:
            total = total + residual
        own_records, sent = _records(total, bits)
        state._stripe_residual[p] = total - sent
        own.append(own_records.reshape(-1))
    longest = max(send_sizes)
    own.append(torch.zeros(longest - mine, dtype=torch.uint8, device=buffer.device))
    gathered = torch.empty(workers * longest, dtype=torch.uint8, device=buffer.device)
    exchange = dist.all_gather_single(gathered, torch.cat(own), group=group, async_op=True)

    def dequantize_all(fut):
        fut.wait()
        rows = gathered.view(workers, longest)
        stripes = [_split_records(rows[k], layouts, k) for k in range(workers)]
        for index, (g, layout) in enumerate(zip(gradients, layouts)):
            columns = torch.cat([_values(stripes[k][index], layout, bits, buffer.dtype) for k in range(workers)])
            g.copy_(columns.reshape(layout.shape))      # a view into the bucket's buffer
        return buffer

    return exchange.get_future().then(dequantize_all)
