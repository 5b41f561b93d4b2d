"""Evaluating Functions on data: feeding, running the lowered module, and converting results back."""
import sys
import weakref

import numpy as np
import scipy.sparse
import torch

from . import device as _device
from . import graph_version
from .deferred_writes import one_pass
from .feeding import to_value
from .function import Function, as_variable, keyed_as_requested, output_variables
from .graph import node_inputs_and_body, walk
from .fused_recurrence import fused_kernels_enabled
from .hooks import provide
from .lowering import lower
from .axis import dynamic_axes_text
from .native_errors import announce, announced
from .reinference import infer_in_place, primitive_nodes
from .sequence_masks import expand_mask, host_mask
from .variables import InferredDimension, Variable
from .value import Value, fresh_array


class BatchInfo(object):
    def __init__(self, num_samples, num_sequences, lengths):
        self.num_samples = num_samples
        self.num_sequences = num_sequences
        self.lengths = lengths


class CallPlan(object):
    """What a computation of some output Variables needs, worked out once per graph version: the arguments
    (in CNTK's order), the ones still unbound, and the lowered modules per (argument order, training)."""

    def __init__(self, outputs):
        self.version = graph_version.current()
        self.outputs = list(outputs)
        self.needed = list(Function._composite(outputs).arguments)
        self.needed_set = frozenset(self.needed)
        self.unbound = [a for a in self.needed if a.is_placeholder]
        # per needed argument: the name of its sequence axis (or None), and whether it has a batch axis
        self.layout = [_layout(a) for a in self.needed]
        # per needed argument: (numpy dtype, sample shape, array rank) when every argument takes plain samples
        # (a batch axis only, dense, a fully known shape), so that a C-contiguous array of that dtype and shape
        # is its tensor as it is; None when some argument does not
        self.plain = _plain_specs(self.needed)
        # the needed inputs with inferred (-1) dimensions, still to be fixed by the first data they are fed
        self.inferred = [a for a in self.needed if _has_inferred_dimension(a)]
        self.modules = {}
        self.known_uids = None  # uids of every variable of the graph, when forward() asked for them
        self._continued_refusers = None

    def continued_refusers(self):
        """[(node, its template, the names of the sequence axes it reads)] for the graph's nodes whose op refuses a
        sequence continuing from the previous call (the registry's refuses_continued), in the order CNTK evaluates
        them; worked out on first use."""
        if self._continued_refusers is None:
            self._continued_refusers = [
                (node, node._op.refuses_continued,
                 {i._sequence_axis.name for i in node._inputs if i._sequence_axis is not None})
                for node in walk(self.outputs, node_inputs_and_body).nodes if node._op.refuses_continued]
        return self._continued_refusers

    def module(self, order, training):
        key = (tuple(order), training, fused_kernels_enabled())
        module = self.modules.get(key)
        if module is None:
            # CNTK compiles a network at the first computation, and another the first time it differentiates one it
            # compiled only for evaluation
            if not self.modules or (training and not any(k[1] for k in self.modules)):
                for node in walk(self.outputs, node_inputs_and_body).nodes:
                    if node._op.compile_notice is not None:
                        node._op.compile_notice(node)
            module = self.modules[key] = lower(self.outputs, order, training)
        return module


def _layout(a):
    axis = a._sequence_axis
    return (None if axis is None else axis.name), a._has_batch


def _has_inferred_dimension(a):
    return a.is_input and a._shape is not None and InferredDimension in a._shape


def _plain_specs(needed):
    specs = []
    for a in needed:
        dyn, shape = a._dynamic_axes, a._shape
        if not dyn or len(dyn) != 1 or not a._has_batch or a._is_sparse or a.is_placeholder or shape is None or \
                any(d < 0 for d in shape) or a._dtype is None:
            return None
        specs.append((np.dtype(a._dtype), tuple(shape), len(shape) + 1))
    return specs


_PLANS = weakref.WeakKeyDictionary()  # first output Variable -> {output uids: CallPlan}


def call_plan(outputs):
    """The CallPlan of a computation of ``outputs`` (a list of Variables), cached beside the graph."""
    per_output = _PLANS.get(outputs[0])
    if per_output is None:
        per_output = _PLANS[outputs[0]] = {}
    key = tuple(o.uid for o in outputs)
    plan = per_output.get(key)
    if plan is None or plan.version != graph_version.current():
        plan = per_output[key] = CallPlan(outputs)
    return plan


def has_run(outputs):
    """Whether a computation of ``outputs`` (the outputs of one Function) has been planned, i.e. run."""
    return bool(_PLANS.get(outputs[0]))


def _split_seq_starts(data):
    """CNTK's (data, sequence start flags) pair as it is; (data, None) for any other data."""
    if isinstance(data, tuple) and len(data) == 2 and isinstance(data[1], list) and data[1] and \
            all(isinstance(b, (bool, np.bool_)) for b in data[1]):
        return data
    return data, None


def _names(variables):
    return ", ".join(a.name or a.uid for a in variables)


def normalize_arguments(known, arguments, what="the Function"):
    """({Variable: data}, {Variable: sequence start flags}) from CNTK's argument forms: a dict by Variable (or
    a Function with one output) or by name, or bare data for a single argument; the whole or each argument's
    data may come as a (data, seq_starts) pair. ``known``: the arguments of the computation, in order. This is
    the one parser of arguments for eval, forward, grad, the Trainer and the Evaluator."""
    if arguments is None:
        return {}, {}
    arguments, global_starts = _split_seq_starts(arguments)
    if not isinstance(arguments, dict):
        if len(known) != 1:
            raise ValueError("%s has %d arguments (%s); pass a dict mapping each to its data"
                             % (what, len(known), _names(known)))
        arguments = {known[0]: arguments}
    result, starts = {}, {}
    by_name = None
    for k, v in arguments.items():
        if isinstance(k, str):
            if by_name is None:
                by_name = {}
                for a in known:
                    by_name.setdefault(a.name, a)
            if k not in by_name:
                raise ValueError("no argument named %r (arguments: %s)" % (k, _names(known)))
            k = by_name[k]
        elif not hasattr(k, "uid"):
            raise TypeError("argument keys must be Variables or names, got %r" % (k,))
        elif not hasattr(k, "_kind"):
            k = k.output
        v, own_starts = _split_seq_starts(v)
        if own_starts is not None and global_starts is not None:
            raise ValueError("sequence start flags were given both for all arguments and for %s; give them once"
                             % (k.name or k.uid))
        result[k] = v
        if (own_starts or global_starts) is not None:
            if isinstance(v, Value):
                raise ValueError("sequence start flags cannot be given with a Value for %s; build the Value with "
                                 "Value.create(variable, data, seq_starts) instead" % (k.name or k.uid))
            starts[k] = own_starts or global_starts
    return result, starts


def _quoted(variable):
    return "'%s'" % variable.name if variable.name else variable.uid


def _brief(lengths):
    return str(list(lengths[:8])) + ("..." if len(lengths) > 8 else "")


def _fix_inferred_dimensions(outputs, values):
    """As CNTK does when it first computes a graph: an input's inferred (-1) dimensions take the sizes of the
    data it is first fed, for good (later data of other sizes is refused), and the graph's shapes follow. If
    the graph cannot take those sizes (say times by a weight of another size), a ValueError says so.
    ``values``: {input with inferred dimensions: its Value}. The inputs' types change in place, so the graph's
    version moves on and call plans made before are made again (without inferred inputs to fix)."""
    fixed = []
    for a, v in values.items():
        shape = a._shape
        data = tuple(v.tensor.shape[v.tensor.dim() - len(shape):])
        fixed.append((a, shape))
        a._shape = tuple(n if d == InferredDimension else d for d, n in zip(shape, data))
    graph_version.bump()
    try:
        infer_in_place(outputs)
    except ValueError as e:
        for a, shape in fixed:
            a._shape = shape
        infer_in_place(outputs)
        raise ValueError("the data for %s do not fit the graph: %s"
                         % (", ".join("%s (shape %s)" % (_quoted(a), tuple(s)) for a, s in fixed), e)) from None


def prepare_inputs(outputs, arguments, device=None, plan=None, requested=None):
    """(call plan, lowering arguments, their tensors + masks, BatchInfo, per-axis lengths) for a computation;
    the plan is made again when the data fixed inferred dimensions of the graph's inputs. ``requested``: when
    they are not ``outputs`` (a Trainer's), a function giving the outputs as CNTK's error for missing data names
    them (only that error calls it)."""
    plan = plan or call_plan(outputs)
    needed = plan.needed
    args, seq_starts = normalize_arguments(needed, arguments)
    dev = _device.resolve(device)
    if plan.plain is not None and not seq_starts and len(args) == len(needed):
        plain = _plain_inputs(plan, args, dev)
        if plain is not None:
            return plan, needed, plain[0], plain[1], {}
    order, layout = needed, plan.layout
    if len(args) != len(needed) or not all(a in args for a in needed):
        missing = [a for a in needed if a not in args]
        if missing and not args:
            # no data at all (None, an empty dict: a reader's next_minibatch with another reader's input map, or
            # past its end): CNTK's message
            raise ValueError("function expects %i arguments" % len(needed))
        if missing:
            # CNTK 2.7's message (its Function::Forward announces it), which lists the missing inputs in the
            # reverse of the Function's argument order
            message = ("Values for %d required arguments '%s', that the requested output(s) '%s' depend on, have "
                       "not been provided." % (len(missing), ", ".join(repr(a) for a in reversed(missing)),
                                               requested() if requested else
                                               ", ".join(repr(o) for o in outputs)))
            raise announced(ValueError, message)
        extra = [a for a in args if a not in plan.needed_set and (a.is_input or a.is_placeholder)]
        order, layout = needed + extra, layout + [_layout(a) for a in extra]
        inferred = plan.inferred + [a for a in extra if _has_inferred_dimension(a)]
    else:
        inferred = plan.inferred
    if plan.unbound:
        # CNTK 2.7 cannot type the data of a placeholder: "Unknown DataType." (a RuntimeError)
        announce("Unknown DataType.")
        raise RuntimeError("Unknown DataType.: the Function still has unbound placeholders (%s); apply it to input "
                           "variables first, e.g. model(x)" % ", ".join(repr(a.name or a.uid) for a in plan.unbound))
    values = [to_value(a, Value.create(a, args[a], seq_starts[a], dev) if a in seq_starts else args[a], dev)
              for a in order]
    unused = len(args) - len(needed)
    if unused:
        # CNTK 2.7's native Forward says so on stderr, each time (once every argument's data is converted)
        sys.stderr.write("WARNING: Function::Forward provided values for (%d) extra arguments which are not "
                         "required for evaluating the specified Function outputs!\n" % unused)
        sys.stderr.flush()
    if inferred:
        by_input = dict(zip(order, values))
        _fix_inferred_dimensions(outputs, {a: by_input[a] for a in inferred})
        plan = call_plan(outputs)
    lengths_by_axis, masks, slots = {}, [], []
    info, first_of_axis, first_batched = None, {}, None
    for a, (axis, has_batch), v in zip(order, layout, values):
        if axis is not None and v.lengths is not None and 0 in v.lengths:
            # CNTK 2.7 refuses a sequence without steps when it evaluates: beside longer ones its mask starts with
            # an invalid entry; when every sequence is empty, its packing of them refuses
            raise announced(RuntimeError, "The first entry of a Value mask must be Valid or SequenceBegin" if any(
                v.lengths) else "AddSequence: Sequences must be a least one frame long.")
        needed_argument = a in plan.needed_set  # an extra argument's data need not match (CNTK 2.7 only warns)
        if axis is not None and axis not in lengths_by_axis:
            lengths_by_axis[axis] = v.lengths
            first_of_axis[axis] = a
            masks.append(v.mask_tensor())
            slots.append(v.slots)
        elif axis is not None and needed_argument and v.lengths != lengths_by_axis[axis]:
            raise _different_layouts(a, first_of_axis[axis], ["sequences of lengths %s" % _brief(n)
                                                              for n in (lengths_by_axis[axis], v.lengths)])
        if has_batch and needed_argument:
            if first_batched is None:
                first_batched = (a, v.tensor.shape[0])
            elif v.tensor.shape[0] != first_batched[1]:
                if _layout(a) == _layout(first_batched[0]):
                    raise _different_layouts(a, first_batched[0], ["%d samples or sequences" % n
                                                                   for n in (first_batched[1], v.tensor.shape[0])])
                raise ValueError("arguments %s and %s have data for different numbers of samples or sequences "
                                 "(%d vs %d); every argument needs one per batch entry"
                                 % (_quoted(first_batched[0]), _quoted(a), first_batched[1], v.tensor.shape[0]))
        if info is None and has_batch:
            n_seq = v.tensor.shape[0]
            n_samples = int(sum(v.lengths)) if v.lengths is not None else n_seq
            info = BatchInfo(n_samples, n_seq, v.lengths)
    # sequence slots (truncated BPTT) follow the masks only when some batch has them
    if any(s is not None for s in slots):
        _refuse_continued(plan, [axis for axis, s in zip(lengths_by_axis, slots)
                                 if s is not None and len(s.continuing)])
        tail = masks + slots
    else:
        tail = masks
    return plan, order, [v.tensor for v in values] + tail, info or BatchInfo(0, 0, None), lengths_by_axis


def _different_layouts(argument, first, detail):
    """CNTK 2.7's error for data of two arguments on the same dynamic axes that do not match (other numbers of
    sequences or other lengths): ``first`` is the earlier of the two in the Function's argument order; ``detail``
    says how they differ."""
    message = ("Different minibatch layouts detected (difference in sequence lengths or count or start flags) in data "
               "specified for the Function's arguments '%r' vs. '%r', though these arguments have the same dynamic "
               "axes '%s'" % (argument, first, dynamic_axes_text(argument.dynamic_axes)))
    announce(message)
    return ValueError("%s\n\n(cntk-compat: %s has %s, %s %s)" % (message, _quoted(first), detail[0], _quoted(argument),
                                                                 detail[1]))


def _refuse_continued(plan, axes):
    """CNTK 2.7's error where an op that refuses a sequence continuing from the previous call (the registry's
    refuses_continued) reads one on ``axes`` (the first such node in the order CNTK evaluates them)."""
    if not axes:
        return
    for node, template, read in plan.continued_refusers():
        if read.intersection(axes):
            raise announced(RuntimeError, template.format(uid=node.uid, op=node.op_name) +
                            "\n\n(cntk-compat: %s '%s' reads a sequence whose start flag is False: it continues the "
                            "previous call's, truncated)" % (node.op_name, node.name or node.uid))


def _plain_inputs(plan, args, dev):
    """(tensors, BatchInfo) when the data of every argument is a C-contiguous array of whole samples of the
    argument's dtype and shape, all with the same batch size: what ``to_value`` would make of them, without its
    checks and conversions (they share the arrays' memory on the CPU). None for any other data."""
    tensors, batch = [], None
    for a, (dtype, shape, rank) in zip(plan.needed, plan.plain):
        data = args.get(a)
        if type(data) is not np.ndarray or data.ndim != rank or data.dtype != dtype or data.shape[1:] != shape \
                or not data.flags.c_contiguous:
            return None
        if batch is None:
            batch = data.shape[0]
            if not batch:  # refused by to_value, as CNTK refuses data of no samples
                return None
        elif data.shape[0] != batch:
            return None
        tensors.append(_device.copy_to(torch.from_numpy(data), dev))
    return tensors, BatchInfo(batch, batch, None)


def evaluate_tensors(outputs, arguments, requires_grad=False, training=False, device=None, requested=None):
    """Outputs (batch-first torch tensors) of the given output Variables on the given data."""
    plan = call_plan(outputs)
    plan, order, tensors, info, lengths = prepare_inputs(outputs, arguments, device, plan, requested)
    module = plan.module(order, bool(training))
    info.gradient_inputs = []
    if requires_grad:
        # as in CNTK's backward pass, inputs declared with needs_gradient=True get gradients too (so a user
        # function that only they feed has its backward called)
        tensors = list(tensors)
        for k, a in enumerate(order):
            if a.needs_gradient and tensors[k].is_floating_point():
                tensors[k] = tensors[k].detach().requires_grad_(True)
                info.gradient_inputs.append(tensors[k])
    with torch.set_grad_enabled(requires_grad), one_pass():
        results = _take_made_masks(module, _run(module, tensors), lengths)
    info.lengths_by_axis = lengths
    return list(results), info


def _run(module, tensors):
    """module(*tensors) through nn.Module's call (hooks, tracing) without fx's wrapper of it, which only decorates
    errors raised by the generated code itself (~0.8 us a call)."""
    return _MODULE_CALL(module, *tensors)


_MODULE_CALL = torch.nn.Module.__call__


def _take_made_masks(module, results, lengths_by_axis):
    """The output tensors; the lengths of sequence axes that ops made go into lengths_by_axis."""
    n = len(results) - len(module.made_mask_axes)
    for name, mask in zip(module.made_mask_axes, results[n:]):
        lengths_by_axis[name] = [int(k) for k in mask.sum(1).tolist()]
    return results[:n]


def _as_csr(arr):
    """Sparse outputs come back as scipy CSR matrices (as in CNTK) when they are matrices of rows."""
    return scipy.sparse.csr_matrix(arr) if arr.ndim == 2 else arr


def to_numpy(var, tensor, lengths_by_axis):
    arr = fresh_array(tensor)
    axis = var._sequence_axis
    if axis is not None and var._has_batch:
        lengths = lengths_by_axis.get(axis.name)
        # as CNTK returns sequences: a list with one array per sequence, also when all have the same length
        lengths = lengths or [arr.shape[1]] * arr.shape[0]
        if var._is_sparse:
            return [_as_csr(arr[i, :n]) for i, n in enumerate(lengths)]
        return [arr[i, :n] for i, n in enumerate(lengths)]
    return _as_csr(arr) if var._is_sparse else arr


def _convert(var, tensor, lengths, as_numpy):
    if as_numpy:
        return to_numpy(var, tensor, lengths)
    axis = var._sequence_axis
    seq_lengths = lengths.get(axis.name) if axis is not None else None
    return Value(_tensor=tensor.detach(), _lengths=seq_lengths)


def evaluate(function, arguments, outputs, device=None, as_numpy=True, training=False):
    tensors, info = evaluate_tensors(outputs, arguments, False, training, device)
    return {o: _convert(o, t, info.lengths_by_axis, as_numpy) for o, t in zip(outputs, tensors)}


class BackPropState(object):
    """What forward() keeps for backward() (CNTK's class name): the Function, the outputs computed, their
    tensors, the tensors gradients may be taken for, the sequence lengths."""

    def __init__(self, function, outputs, results, wrt, lengths):
        self.function = function
        self.outputs = outputs
        self.results = results
        self.wrt = wrt
        self.lengths = lengths


def forward(function, arguments, outputs=None, keep_for_backward=None, device=None, as_numpy=True):
    outs = list(function.outputs) if outputs is None else output_variables(outputs)
    keep = output_variables(keep_for_backward or [], "keep_for_backward")
    compute = outs + [k for k in keep if k not in outs]
    _check_in_graph(function, compute)
    plan = call_plan(compute)
    plan, order, tensors, info, lengths = prepare_inputs(compute, arguments, device, plan)
    # as in CNTK, a forward pass that keeps state for backward runs in training mode (dropout is active)
    module = plan.module(order, bool(keep))
    wrt = {}
    if keep:
        for a, t in zip(order, tensors):
            if a.needs_gradient:
                t.requires_grad_(True)
                wrt[a] = t
        for p in function.parameters:
            wrt[p] = p.tensor
        with one_pass():
            results = _take_made_masks(module, _run(module, tensors), lengths)
    else:
        with torch.no_grad(), one_pass():
            results = _take_made_masks(module, _run(module, tensors), lengths)
    by_var = dict(zip(compute, results))
    # as in CNTK 2.7, a forward pass keeping nothing for backward gives no state
    state = BackPropState(function, compute, by_var, wrt, lengths) if keep else None
    values = {o: _convert(o, by_var[o], lengths, as_numpy) for o in outs}
    return state, values if outputs is None else keyed_as_requested(outputs, values)


def _check_in_graph(function, variables):
    """Each requested output must be computed by function's graph (or be one of its leaves)."""
    plan = call_plan(function.outputs)
    known = plan.known_uids
    if known is None:
        known = {o.uid for n in primitive_nodes(function.outputs) for o in n._outputs}
        known.update(v.uid for v in function.inputs)
        known.update(o.uid for o in function.outputs)
        plan.known_uids = known
    for v in variables:
        if v.uid not in known:
            raise ValueError("output %s ('%s') is not part of the Function being evaluated" % (v.uid, v.name))


def _pad_sequences(sequences, like):
    """Per-sequence gradients (of different lengths) as one zero-padded (B, T, ...) array shaped like ``like``."""
    out = np.zeros(tuple(like.shape), dtype=np.float64)
    for i, seq in enumerate(sequences):
        seq = np.asarray(seq)
        out[i, :seq.shape[0]] = seq
    return out


def backward(state, root_gradients, variables, as_numpy=True):
    if state is None:
        raise ValueError("You are attempting to backpropagate on a minibatch for which the corresponding forward "
                         "operation did not keep any intermediate results, Please set keep_for_backward in forward "
                         "to the variables in root_gradients.keys()")   # CNTK 2.7's words
    if not state.wrt:
        raise ValueError("backward: the forward pass did not keep anything for backward "
                         "(pass keep_for_backward=outputs to forward())")
    if not isinstance(root_gradients, dict):  # the gradient of the (single) output
        outputs = {o for o in state.outputs if o in state.results and state.results[o].requires_grad}
        if len(outputs) != 1:
            raise ValueError("backward: root_gradients must be a dict mapping outputs to their gradients when "
                             "%d outputs were kept for backward" % len(outputs))
        root_gradients = {outputs.pop(): root_gradients}
    roots, grads = [], []
    for var, g in root_gradients.items():
        var = as_variable(var)
        t = state.results[var]
        if isinstance(g, Value):
            g = g.tensor
        if isinstance(g, (list, tuple)) and var._sequence_axis is not None:
            g = _pad_sequences(g, t)
        users = isinstance(g, torch.Tensor)
        g = _device.copy_to(g if users else torch.as_tensor(np.asarray(g)), t.device, t.dtype, users=users)
        roots.append(t)
        grads.append(g.reshape(t.shape))
    wanted = [as_variable(v) for v in variables]
    _check_gradients_wanted(state.function, wanted, state.wrt)
    # without a differentiable path from the roots to a variable, CNTK's gradient is zero
    live = [(r, g) for r, g in zip(roots, grads) if r.requires_grad]
    sources = [k for k, v in enumerate(wanted) if state.wrt[v].requires_grad]
    got = [None] * len(wanted)
    if live and sources:
        found = torch.autograd.grad([r for r, _ in live], [state.wrt[wanted[k]] for k in sources],
                                    [g for _, g in live], retain_graph=True, allow_unused=True)
        for k, g in zip(sources, found):
            got[k] = g
    result = {}
    sparse = None
    for v, g in zip(wanted, got):
        if g is None:
            g = torch.zeros_like(state.wrt[v])
        if as_numpy or not v.is_parameter:
            result[v] = _convert(v, g, state.lengths, as_numpy)
            continue
        # as_numpy=False gives a Parameter's gradient as a Value too (.data, .asarray()), like CNTK, marked
        # sparse where CNTK's is
        if sparse is None:
            sparse = _sparse_gradients(state.outputs)
        result[v] = Value(_tensor=g.detach(), _lengths=None, _is_sparse=sparse(v))
    return result


def _check_gradients_wanted(function, wanted, kept=None):
    """CNTK's errors for gradients asked of grad (before its forward pass) or of backward (``kept``: the tensors
    its forward pass kept gradients for): none at all, one of a variable that is not a leaf of the Function (an
    output inside it, a parameter of another graph), one of a leaf without a gradient (a Constant, an input
    without needs_gradient)."""
    if not wanted:
        raise announced(ValueError, "Function '%r' Backward: List of inputs to compute gradients for, must not be "
                        "empty." % (function,))
    leaves = None
    for v in wanted:
        if kept is not None and v in kept:
            continue
        if leaves is None:
            leaves = {leaf.uid for leaf in function._leaves()}
        if v.is_output or v.uid not in leaves:
            raise announced(ValueError, "Gradient requested for Variable '%r' which is not a leaf input (Input, "
                            "Parameter or Constant) of the Function '%r'; this is currently unsupported."
                            % (v, function))
        if kept is not None or not (v.is_parameter or (v.is_input and v.needs_gradient)):
            raise announced(ValueError, "Gradient value incorrectly requested for Variable '%r', an Output or "
                            "Constant or Input Variable with NeedsGradient setting of false, or an input for which "
                            "gradient computation was explicitly excluded." % (v,))


def _sparse_gradients(roots):
    """A predicate: whether CNTK's gradient of the graph below ``roots`` with respect to a variable is sparse,
    i.e. every use of the variable passes a sparse gradient to it (the ops' registry rule sparse_gradient)."""
    uses = {}
    for node in walk(list(roots)).nodes:
        for k, v in enumerate(node._inputs):
            uses.setdefault(id(v), []).append((node, k))
    memo = {}

    def sparse(v):
        key = id(v)
        if key not in memo:
            memo[key] = False  # while deciding (a loop): dense
            found = uses.get(key)
            memo[key] = bool(found) and all(
                node._op.sparse_gradient is not None and
                node._op.sparse_gradient(node, k, lambda node=node: all(sparse(o) for o in node._outputs))
                for node, k in found)
        return memo[key]
    return sparse


def _valid_steps(var, tensor, lengths_by_axis):
    """tensor with the padded steps of var's sequences zeroed (a root gradient seeds only real steps)."""
    axis = var._sequence_axis
    lengths = lengths_by_axis.get(axis.name) if axis is not None else None
    if lengths is None:
        return tensor
    return tensor * expand_mask(host_mask(lengths, tensor.shape[1], tensor.device), tensor).to(tensor.dtype)


def grad(function, at, wrt=None, outputs=None, device=None, as_numpy=True, grad_root=None):
    root = as_variable(grad_root) if grad_root is not None else function.output
    if wrt is None:
        wrt = [a for a in function.arguments if a.needs_gradient]
        if not wrt:
            raise ValueError("None of the Function '%s' arguments have 'needs_gradient == True'" % (function,))
    # any iterable of Variables (a dict's keys, a set, a generator), as CNTK 2.7 takes it; one Variable or Function
    # alone gives its gradient alone (CNTK would iterate over its slices and fail)
    single = isinstance(wrt, (Variable, Function))
    wrt_list = [as_variable(v) for v in ([wrt] if single else wrt)]
    wrt_list = list(dict.fromkeys(wrt_list))  # a variable named twice is one
    _check_gradients_wanted(function, wrt_list)
    outs = output_variables(outputs or [])
    state, out_values = forward(function, at, outs + [root], keep_for_backward=[root], device=device,
                                as_numpy=as_numpy)
    for v in wrt_list:
        if v not in state.wrt:  # a Parameter that the root does not depend on: a zero gradient
            state.wrt[v] = v.tensor
    ones = _valid_steps(root, torch.ones_like(state.results[root]), state.lengths)
    g = backward(state, {root: ones}, wrt_list, as_numpy)
    result = g[wrt_list[0]] if single or len(wrt_list) == 1 else g
    if outputs:
        return result, (out_values[outs[0]] if len(outs) == 1 else keyed_as_requested(outputs, out_values))
    return result


provide(evaluate=evaluate, forward=forward, backward=backward, grad=grad, has_run=has_run)
