"""Helpers shared by the Trainer and the Evaluator: criterion and argument forms, sample counts and sums,
one test minibatch."""
import torch

from ..core import graph_version
from ..core.sequence_masks import host_mask
from ..core.engine import evaluate_tensors, normalize_arguments
from ..core.function import Function, as_variable
from ..io.minibatch_data import MinibatchData


def as_function(f, argument):
    if isinstance(f, Function):
        return f
    return Function._composite([as_variable(f, argument)])


def criterion_pair(criterion):
    """(loss Function, metric Function or None) from a Function (1 or 2 outputs) or a 1/2-tuple."""
    if isinstance(criterion, Function) and len(criterion.outputs) == 1:
        return criterion, None
    parts = criterion.outputs if isinstance(criterion, Function) else criterion
    if not isinstance(parts, (list, tuple)):
        parts = [parts]
    if len(parts) not in (1, 2):
        raise ValueError("criterion must be a loss Function, a (loss, metric) pair or a Function with 2 outputs; "
                         "got %d parts" % len(parts))
    if parts[0] is None:
        raise ValueError("criterion: the loss must not be None")
    loss = as_function(parts[0], "criterion loss")
    metric = as_function(parts[1], "criterion metric") if len(parts) == 2 and parts[1] is not None else None
    for name, f in (("loss", loss), ("metric", metric)):
        if f is not None and len(f.outputs) != 1:
            raise ValueError("criterion: the %s must have exactly one output, it has %d" % (name, len(f.outputs)))
    return loss, metric


def progress_writer_list(progress_writers):
    if progress_writers is None:
        return []
    return list(progress_writers) if isinstance(progress_writers, (list, tuple)) else [progress_writers]


def argument_map(known, arguments):
    """{Variable: data} for ``arguments`` (a dict by Variable or name, or bare data for a single input); data
    given with sequence start flags stays a (data, flags) pair for the engine."""
    args, starts = normalize_arguments(known, arguments, "the criterion")
    return {k: (v, starts[k]) if k in starts else v for k, v in args.items()}


def sweep_end_of(args):
    """Whether reader data (MinibatchData) ends a sweep; None when the data does not come from a reader."""
    flags = [v.end_of_sweep for v in args.values() if isinstance(v, MinibatchData)]
    return any(flags) if flags else None


def _mask(var, tensor, info):
    axis = var._sequence_axis
    if axis is None or not var._has_batch:
        return None
    lengths = info.lengths_by_axis.get(axis.name)
    if lengths is None or all(n == tensor.shape[1] for n in lengths):
        return None
    # made once per minibatch and axis on the host, sent in one copy; the loss and the metric share it
    made = info.__dict__.setdefault("_criterion_masks", {})
    key = (axis.name, tensor.shape[1], tensor.device)
    mask = made.get(key)
    if mask is None:
        mask = made[key] = host_mask(lengths, tensor.shape[1], tensor.device)
    return mask.reshape(mask.shape + (1,) * (tensor.dim() - 2))


def sample_count(var, tensor, info):
    """The number of samples a criterion value covers, by CNTK's rule: its batch (x valid sequence steps); for
    a value without a batch axis (a loss summed over the batch), those of the first variable with a batch axis
    met in a depth-first walk of the graph below it."""
    if not var._has_batch:
        var = _first_batched_variable(var)
        if var is None:
            return info.num_samples or 1
        tensor = None
    if var._sequence_axis is None:
        return int(tensor.shape[0]) if tensor is not None else int(info.num_sequences)
    lengths = info.lengths_by_axis.get(var._sequence_axis.name)
    if lengths is not None:
        return int(sum(lengths))
    return int(tensor.shape[0] * tensor.shape[1]) if tensor is not None else int(info.num_samples)


_BATCHED_BELOW = {}  # (uid of a variable without a batch axis, graph version) -> the variable counted for it


def _first_batched_variable(var):
    key = (var.uid, graph_version.current())
    if key not in _BATCHED_BELOW:
        found, seen, stack = None, set(), [var]
        while stack and found is None:
            v = stack.pop()
            if v.uid in seen:
                continue
            seen.add(v.uid)
            if v is not var and v._has_batch:
                found = v
            elif v.is_output:
                stack.extend(reversed(v.owner.root_function.inputs))
        if len(_BATCHED_BELOW) > 1024:
            _BATCHED_BELOW.clear()
        _BATCHED_BELOW[key] = found
    return _BATCHED_BELOW[key]


def exact_sum(tensor):
    """The sum of a criterion's values as CNTK 2.7's aggregation nodes ('aggregateLoss', 'aggregateEvalMetric')
    give it: the float64 sum rounded to the values' type (a float32 sum is an ulp or more off: the last digits
    of the printed averages differed)."""
    return tensor.sum(dtype=torch.float64).to(tensor.dtype)


def summed(var, tensor, info):
    """The sum of a criterion value over all its valid entries (padding of sequences left out)."""
    mask = _mask(var, tensor, info)
    if mask is not None:
        tensor = torch.where(mask, tensor, 0.0)
    return exact_sum(tensor)


# the aggregation node CNTK 2.7's Trainer and Evaluator add to a metric, named in its error for missing data
AGGREGATE_METRIC = "Output('aggregateEvalMetric', [], [])"


def summed_without_gradients(output, args, device):
    """(sum over the samples, number of samples) of ``output`` on one minibatch, evaluated without gradients."""
    with torch.no_grad():
        (value,), info = evaluate_tensors([output], args, device=device,
                                          requested=lambda: "%s, %r" % (AGGREGATE_METRIC, output))
        return summed(output, value, info), sample_count(output, value, info)


def test_step(output, known, arguments, device, total, progress_writers):
    """Evaluates ``output`` on one test minibatch (no gradients) and tells the progress writers.

    Returns (the average per sample on this minibatch, the running total including it)."""
    step_total, n = summed_without_gradients(output, argument_map(known, arguments), device)
    total = step_total if total is None else total + step_total
    for writer in progress_writers:
        writer.update_test(n, total)
    return (float(step_total) / n if n else 0.0), total


def write_test_summary(progress_writers, total):
    """Writes the test summary of the running total to the progress writers."""
    for writer in progress_writers:
        writer.write_test_summary(0.0 if total is None else total)
