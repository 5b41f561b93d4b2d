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
striped aggregation did. Each gradient is cut into columns (see :mod:`.quantization`) and its columns into N
stripes, one per worker, shared out so that each worker owns the same bytes of the whole model to within one
column (of the bucket's when the state has no module). Each column is quantized alone, as in CNTK 2.7 (the same
numbers whichever worker owns it). Per bucket:

1. every worker adds its residual to the gradient, quantizes each column and keeps what the reconstruction
   misses as the new residual (error feedback);
2. ``all_to_all``: worker k receives stripe k of every worker's codes (a quantized reduce-scatter; the hook
   waits for it, so only step 4 overlaps the rest of the backward pass);
3. worker k dequantizes them, sums them, adds its second residual (kept for its stripes) and quantizes the sum
   again, keeping that error too;
4. ``all_to_all``: every worker receives every stripe's quantized sum from its owner and dequantizes it.

Every worker ends with the same values (also the owner of a stripe uses the dequantized sum). On average a
worker sends and receives ``2 (N - 1) / N`` times the quantized gradient, as a ring all-reduce of the
full-precision one; a column costs its packed codes plus two floats (its range).

The residuals belong to each worker: save :meth:`QuantizedGradientState.state_dict` per worker with the rest of
the training state, so that a resumed run continues exactly as an uninterrupted one.

A failed collective (another worker died, hung past the process group's timeout, or ran something else) raises
a :class:`~cntk_compat.distributed.communicator.DistributedError` naming this worker, the operation and the
bucket; DDP passes it on from ``backward()`` (inside its own RuntimeError) and the hook state keeps its message
in ``failure``.
"""
import torch
import torch.distributed as dist

from .communicator import DistributedError, describe_failure
from .quantization import check_bits, column_layout, dequantize, pack, packed_size, quantization_range, quantize, \
    unpack

__all__ = ["SumState", "allreduce_sum_hook", "QuantizedGradientState", "quantized_gradient_hook"]


class SumState(object):
    """The state of :func:`allreduce_sum_hook`: the process group (None: the default group); ``failure``: the
    message of the last failed collective, or None."""

    def __init__(self, process_group=None):
        self.process_group = process_group
        self.failure = None


def _failed(state, operation, error, group):
    """The DistributedError of a failed collective of a hook (its message also kept in ``state.failure``)."""
    message = describe_failure(operation, error, dist.get_rank(group), dist.get_world_size(group))
    if state is not None:
        state.failure = message
    return DistributedError(message)


def allreduce_sum_hook(state, bucket):
    """Sums the bucket's gradients over the workers with one full-precision all-reduce (DDP's default hook
    without the division by the number of workers)."""
    group = state.process_group if state is not None else None
    buffer = bucket.buffer()
    work = dist.all_reduce(buffer, group=group, async_op=True)

    def summed(fut):
        try:
            return fut.value()[0]
        except RuntimeError as e:
            raise _failed(state, "the all-reduce of gradient bucket %d (%d values)" % (bucket.index(), buffer.numel()),
                          e, group) from e

    return work.get_future().then(summed)


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
        self.failure = None
        # by parameter: the residual of this worker's gradient, and (first column, residual) of the stripe sums it
        # owns
        self._residual = {}
        self._stripe_residual = {}
        self._layouts = {}

    def _names(self):
        if self._module is None:
            raise ValueError("QuantizedGradientState: give the module (module=...) to save or load the residuals")
        return [(name, p) for name, p in self._module.named_parameters() if p.requires_grad]

    def state_dict(self):
        """This worker's residuals by parameter name: the gradient's (a tensor, or None before the parameter's
        first step) and those of the stripe sums this worker owns (None, or the first column owned and the
        residual of the owned columns)."""
        out = {"bits": self.bits, "residual": {}, "stripe_residual": {}}
        for name, p in self._names():
            value = self._residual.get(p)
            out["residual"][name] = None if value is None else value.detach().cpu().clone()
            kept = self._stripe_residual.get(p)
            out["stripe_residual"][name] = None if kept is None else {
                "first_column": kept[0], "value": kept[1].detach().cpu().clone()}
        return out

    def load_state_dict(self, state):
        """Restores the residuals that :meth:`state_dict` saved (on this worker)."""
        if state.get("bits") != self.bits:
            raise ValueError("QuantizedGradientState.load_state_dict: the state was saved with %r bits, this "
                             "state quantizes to %d bits" % (state.get("bits"), self.bits))
        self.reset()
        for name, p in self._names():
            for key in ("residual", "stripe_residual"):
                if name not in state[key]:
                    raise ValueError("QuantizedGradientState.load_state_dict: no %s for parameter '%s'"
                                     % (key, name))
            value = state["residual"][name]
            if value is not None:
                if tuple(value.shape) != tuple(p.shape):
                    raise ValueError("QuantizedGradientState.load_state_dict: the residual of parameter '%s' has "
                                     "shape %s, the parameter %s" % (name, tuple(value.shape), tuple(p.shape)))
                self._residual[p] = value.to(device=p.device, dtype=p.dtype)
            kept = state["stripe_residual"][name]
            if kept is not None:
                if not isinstance(kept, dict) or set(kept) != {"first_column", "value"}:
                    raise ValueError("QuantizedGradientState.load_state_dict: the stripe residual of parameter '%s' "
                                     "must be None or a dict of 'first_column' and 'value' (a state saved before "
                                     "columns were quantized alone cannot be loaded)" % name)
                self._stripe_residual[p] = (int(kept["first_column"]), kept["value"].to(device=p.device,
                                                                                        dtype=p.dtype))

    def reset(self):
        """Forgets all residuals."""
        self._residual.clear()
        self._stripe_residual.clear()

    def _layout(self, parameters, gradients, workers):
        """The columns of a bucket's gradients and their stripes. With the module, the stripes are shared out over
        all its parameters at once, so that they stay the same when DDP rebuilds its buckets (the first steps
        differ); without it, over each bucket's."""
        key = (workers, tuple(id(p) for p in parameters))
        layout = self._layouts.get(key)
        if layout is None:
            if self._module is not None:
                stripes = self._layouts.get(workers)
                if stripes is None:
                    tensors = [p for _, p in self._names()]
                    stripes = self._layouts[workers] = _balanced_stripes(tensors, self.bits, workers)
            else:
                stripes = _balanced_stripes(parameters, self.bits, workers)
            layout = self._layouts[key] = _bucket_layout(parameters, gradients, self.bits, stripes)
        return layout


class _Columns(object):
    """The columns of one gradient of a bucket (see :func:`column_layout`) and its stripes."""

    def __init__(self, gradient_index, columns, rows, bits, element_size):
        self.gradient_index, self.columns, self.rows = gradient_index, columns, rows
        self.code_bytes = packed_size(rows, bits)
        self.record_bytes = self.code_bytes + 2 * element_size
        self.stripes = self.starts = None

    def values(self, flat):
        return flat.view(self.columns, self.rows)


def _balanced_stripes(tensors, bits, workers):
    """{tensor id: columns of each worker's stripe}: each tensor's columns are shared out evenly and the columns
    left over go to the workers that own the fewest bytes so far, so that all workers own the same bytes (of these
    tensors) to within one column."""
    stripes, load = {}, [0] * workers
    for t in tensors:
        columns, rows = column_layout(t.shape)
        record_bytes = packed_size(rows, bits) + 2 * t.element_size()
        base, extra = divmod(columns, workers)
        lightest = set(sorted(range(workers), key=lambda k: (load[k], k))[:extra])
        counts = [base + (k in lightest) for k in range(workers)]
        for k in range(workers):
            load[k] += counts[k] * record_bytes
        stripes[id(t)] = counts
    return stripes


def _bucket_layout(parameters, gradients, bits, stripes):
    """The columns of the bucket's non-empty gradients, each cut into one contiguous stripe of columns per worker."""
    layout = []
    for index, (p, g) in enumerate(zip(parameters, gradients)):
        if g.numel():
            part = _Columns(index, *column_layout(g.shape), bits, g.element_size())
            part.stripes = stripes[id(p)]
            part.starts = [sum(part.stripes[:k]) for k in range(len(part.stripes))]
            layout.append(part)
    return layout


def _records(columns, bits):
    """Each column quantized: (records (columns, bytes) uint8: packed codes then lower and upper, reconstruction)."""
    lower, upper = quantization_range(columns, bits)
    codes = quantize(columns, lower, upper, bits)
    ranges = torch.stack([lower, upper], dim=1).contiguous().view(torch.uint8)
    return torch.cat([pack(codes, bits), ranges], dim=1), dequantize(codes, lower, upper, bits)


def _values(records, part, bits, dtype):
    """The columns that records (..., columns, bytes) of a gradient's columns reconstruct to."""
    codes = unpack(records[..., :part.code_bytes], bits, part.rows)
    ranges = records[..., part.code_bytes:].clone(memory_format=torch.contiguous_format).view(dtype)
    return dequantize(codes, ranges[..., 0], ranges[..., 1], bits)


def _split_records(flat, layout, stripe):
    """The records of one stripe of every gradient's columns, from their concatenation (flat: (..., bytes))."""
    parts, at = [], 0
    for part in layout:
        size = part.stripes[stripe] * part.record_bytes
        parts.append(flat[..., at:at + size].reshape(flat.shape[:-1] + (part.stripes[stripe], part.record_bytes)))
        at += size
    return parts


def _exchange_device(group, device):
    """Where the quantized codes travel: the gradients' device, or the host for CUDA gradients in a group whose
    CUDA backend is gloo (workers sharing a GPU), since gloo has no all-to-all of CUDA tensors."""
    if device.type == "cuda" and "nccl" not in str(dist.get_backend(group)):
        return torch.device("cpu")
    return device


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
    layout = state._layout(parameters, gradients, workers)

    values = []
    for p, g in zip(parameters, gradients):
        residual = state._residual.get(p)
        values.append((g if residual is None else g + residual).reshape(-1))
    for part in layout:
        p = parameters[part.gradient_index]
        kept = state._stripe_residual.get(p)
        if kept is not None and (kept[0], kept[1].shape[0]) != (part.starts[rank], part.stripes[rank]):
            # DDP rebuilt its buckets and this worker owns other columns now: what its old columns' sums missed
            # joins its own gradient, so that it still reaches the sum
            first, residual = kept
            part.values(values[part.gradient_index])[first:first + residual.shape[0]] += residual
            del state._stripe_residual[p]
    outgoing = [[] for _ in range(workers)]
    for part in layout:
        columns = part.values(values[part.gradient_index])
        records, sent = _records(columns, bits)
        state._residual[parameters[part.gradient_index]] = (columns - sent).view(gradients[part.gradient_index].shape)
        for k in range(workers):
            start = part.starts[k]
            outgoing[k].append(records[start:start + part.stripes[k]].reshape(-1))
    stripe_bytes = [sum(part.numel() for part in parts) for parts in outgoing]
    mine = stripe_bytes[rank]
    via = _exchange_device(group, buffer.device)
    received = torch.empty(workers * mine, dtype=torch.uint8, device=via)
    what = "gradient bucket %d (%d values, %d-bit)" % (bucket.index(), buffer.numel(), bits)
    try:
        # waited for here, not in a callback: a callback that waited for another collective could block the
        # backend's thread that has to run it
        dist.all_to_all_single(received, torch.cat([part for parts in outgoing for part in parts]).to(via),
                               [mine] * workers, stripe_bytes, group=group, async_op=True).wait()
    except RuntimeError as e:
        raise _failed(state, "the quantized reduce-scatter (all-to-all) of " + what, e, group) from e
    received = received.to(buffer.device)
    own = []
    for part, records in zip(layout, _split_records(received.view(workers, mine), layout, rank)):
        total = _values(records, part, bits, buffer.dtype).sum(dim=0)
        p = parameters[part.gradient_index]
        kept = state._stripe_residual.get(p)
        if kept is not None:
            total = total + kept[1]
        own_records, sent = _records(total, bits)
        state._stripe_residual[p] = (part.starts[rank], total - sent)
        own.append(own_records.reshape(-1))
    own = torch.cat(own) if own else torch.empty(0, dtype=torch.uint8, device=buffer.device)
    gathered = torch.empty(sum(stripe_bytes), dtype=torch.uint8, device=via)
    exchange = dist.all_to_all_single(gathered, own.repeat(workers).to(via), stripe_bytes, [mine] * workers,
                                      group=group, async_op=True)

    def dequantize_all(fut):
        try:
            fut.wait()
        except RuntimeError as e:
            raise _failed(state, "the all-gather (all-to-all) of the quantized sums of " + what, e, group) from e
        rows = gathered.to(buffer.device).split(stripe_bytes)
        stripes = [_split_records(row, layout, k) for k, row in enumerate(rows)]
        flats = [g.view(-1) for g in gradients]       # views into the bucket's buffer
        for index, part in enumerate(layout):
            columns = torch.cat([_values(stripes[k][index], part, bits, buffer.dtype) for k in range(workers)])
            part.values(flats[part.gradient_index]).copy_(columns)
        return buffer

    if via == buffer.device:
        return exchange.get_future().then(dequantize_all)
    # a future of host tensors cannot carry the CUDA buffer: finish here and hand DDP a completed one
    done = torch.futures.Future(devices=[buffer.device])
    done.set_result(dequantize_all(exchange.get_future()))
    return done
