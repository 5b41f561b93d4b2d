"""Helpers shared by the op families: operand conversion, CNTK broadcasting rules, result construction."""
import numpy as np

from ..core.axis import BATCH_AXIS_NAME, dynamic_axes_checks_active, dynamic_axes_mismatch, is_sequence_axis
from ..core.dtypes import operands_dtype, promote, refuse_object_data
from ..core.function import Function, as_block, as_variable
from ..core.native_errors import RuntimeValueError
from ..core.registry import OutputSpec, get_op, register_op
from ..core.variables import Constant, Variable, typed_placeholder


# CNTK 2.7's errors for an op meeting a sequence that continues from the previous call (OpDef.refuses_continued): the
# ops it computes on whole unpacked sequences, and those that read steps by their place in the sequence
CONTINUED_REDUCTION = ("Node '{uid}' ({op} operation): node cannot perform sequence axis reduction for truncated "
                       "sequence.")
CONTINUED_STEP_ACCESS = ("GetColumnIndex: Attempted to access a time step that is accessing a portion of a sequence "
                         "that is not included in current minibatch.")


def is_symbolic(x):
    return isinstance(x, (Variable, Function))


def _as_data(x):
    """CNTK's data objects (NDArrayView, Value, MinibatchData: what has ``asarray``) as the numpy array they hold,
    as CNTK 2.7's sanitize_input reads them (a user learner's gradients enter expressions this way)."""
    return x.asarray() if hasattr(x, "asarray") and not is_symbolic(x) else x


def sanitize_operand(x, dtype=None, argument="operand"):
    """A Variable for x; numbers, arrays and data objects become Constants (in the dtype of the other operands)."""
    if is_symbolic(x):
        return as_variable(x, argument)
    x = _as_data(x)
    if isinstance(x, Variable._Type):
        raise ValueError("Input is a type object (%s). Did you mean to pass 'input_variable(**%s)'?" % (x, x))
    # as CNTK's sanitize_input: data that numpy cannot read as floats is a ValueError
    if isinstance(x, list) and not x:
        raise ValueError("%s: input is empty" % argument)
    if isinstance(x, (list, tuple)):
        refuse_object_data(x, ragged=False)
    if not isinstance(x, (bool, int, float, np.number, np.ndarray, list, tuple)):
        raise ValueError("%s: could not convert instance of type %s to an array" % (argument, type(x)))
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(x, dtype=np.float32)
        except (ValueError, TypeError) as e:
            raise ValueError("%s: %s" % (argument, e)) from None
    return Constant(arr, dtype=dtype or np.float32)


def refuse_integer_arrays(*xs):
    """CNTK 2.7's binary ops (and times) type their operands with get_data_type, which refuses numpy arrays of
    other than the float types and complex numpy scalars (numpy integer scalars and lists of Python numbers
    pass)."""
    for x in xs:
        if isinstance(x, (np.ndarray, np.inexact)) and x.dtype not in (np.float32, np.float64, np.float16):
            raise ValueError('NumPy type "%s" is not supported' % x.dtype)


def _numpy_operands_dtype(xs):
    """CNTK 2.7's precision of an operation on several operands, all numpy data: the widest float type among the
    numpy arrays and scalars (float64, float32, float16), float32 for anything else."""
    kinds = {np.dtype(x.dtype) for x in xs if isinstance(x, (np.ndarray, np.inexact)) and x.dtype.kind == "f"}
    for dtype in (np.float64, np.float32, np.float16):
        if np.dtype(dtype) in kinds:
            return np.dtype(dtype)
    return None


def data_type_of(x):
    """CNTK 2.7's get_data_type of one operand: a Variable's dtype, numpy data's float type (None: float32)."""
    return operands_dtype([as_variable(x)]) if is_symbolic(x) else _numpy_operands_dtype([_as_data(x)])


def sanitize_operands(*xs, names=None, numpy_precision=True):
    """Variables for the operands of one op. Without a symbolic operand, numpy data keep their widest float type
    when the op takes several operands and ``numpy_precision`` holds (CNTK 2.7's binary ops); otherwise they
    become float32 Constants (its single-operand ops, splice, element_select and the logical ops)."""
    xs = [_as_data(x) for x in xs]
    symbolic = [as_variable(x) for x in xs if is_symbolic(x)]
    dtype = operands_dtype(symbolic) if symbolic else \
        _numpy_operands_dtype(xs) if len(xs) > 1 and numpy_precision else None
    names = names or ["operand %d" % i for i in range(len(xs))]
    return [sanitize_operand(x, dtype, n) for x, n in zip(xs, names)]


def native_axis(axis, rank):
    """CNTK's name of static axis ``axis`` (Python order, negative from the end) of a rank-``rank`` operand:
    the Axis of its column-major index, as CNTK's Function.attributes report it."""
    from ..core.axis import Axis
    axis = int(axis)
    return Axis(rank - 1 - (axis + rank if axis < 0 else axis))


def make(op_name, inputs, attributes=None, name=""):
    """Apply a registered op: the composite Function whose root is the new primitive."""
    if get_op(op_name).reconciles and len(inputs) == 2:
        inputs = _reconciled([as_variable(v, "operand %d of %s" % (k, op_name)) for k, v in enumerate(inputs)])
    prim = Function._primitive(op_name, inputs, attributes, name)
    return Function._composite(prim.outputs)


def _reconciled(operands):
    """As CNTK 2.7's binary elementwise ops: of a sequence operand and an operand with the batch axis alone, the
    latter enters through a ReconcileDynamicAxis node laid out like the former (a node of the graph, which printing,
    .inputs and graph walks show; it lowers to a view along the sequence axis)."""
    axes = [v._dynamic_axes for v in operands]
    if not all(axes):
        return operands
    on_sequence = [any(is_sequence_axis(a) for a in ax) for ax in axes]
    if on_sequence[0] == on_sequence[1]:
        return operands
    k = on_sequence.index(False)
    if not any(a.name == BATCH_AXIS_NAME for a in axes[k]):
        return operands
    out = list(operands)
    out[k] = Function._primitive("ReconcileDynamicAxis", [operands[k], operands[1 - k]]).outputs[0]
    return out


def block_of(op_name, body, operands, name=""):
    """CNTK's block ``op_name`` (a criterion CNTK composes of primitives): ``body`` applied to placeholders that stand
    for ``operands`` (named as they are), packaged as one Block node named ``name`` whose inputs are the constants
    the body captures, then the operands."""
    holders = [typed_placeholder(v._shape, v._dtype, v._is_sparse, v._dynamic_axes, v.name) for v in operands]
    return as_block(body(*holders), list(zip(holders, operands)), op_name, name)


def has_matrix_operand(*operands):
    """Whether an operand's sample has rank 2 or more (where CNTK 2.7's criteria with the default axis, built on
    TransposeTimes, differ from their per-row form)."""
    return any(v._shape is not None and len(v._shape) >= 2 for v in operands)


def dynamic_axes_of(inputs):
    """The dynamic axes of an elementwise result: the richest among the inputs whose axes are known. As in CNTK
    2.7, an input of unknown axes (one reading a placeholder) leaves the result unknown (None) only when no other
    input has dynamic axes: ``placeholder + input_variable`` has the input's batch axis."""
    best = ()
    unknown = False
    for i in inputs:
        if i._dynamic_axes is None:
            unknown = True
        elif len(i._dynamic_axes) > len(best):
            best = i._dynamic_axes
    return None if unknown and not best else best


def operand_dynamic_axes(op_name, operands, broadcast=True):
    """The dynamic axes of an op's result as CNTK 2.7 derives them from its ``operands`` (in CNTK's operand order).
    Every operand with dynamic axes must have the same ones (else CNTK's error naming ``op_name``), except that a
    binary op of CNTK's (``broadcast``) first broadcasts an operand without a sequence axis along the other's
    single one (CNTK's AutoBroadcastSequence). Operands whose axes are still unknown (reading a placeholder) take
    no part; the result is unknown (None) only when no other operand has dynamic axes (``placeholder + input``
    has the input's)."""
    present = [v for v in operands if v._dynamic_axes]
    if not present:
        return None if any(v._dynamic_axes is None for v in operands) else ()
    if broadcast and len(operands) == 2 and len(present) == 2:
        sequence_axes = [sum(1 for a in v._dynamic_axes if is_sequence_axis(a)) for v in present]
        if sum(sequence_axes) == 1:
            return present[sequence_axes.index(1)]._dynamic_axes
    return require_matching_dynamic_axes(op_name, present)


def require_matching_dynamic_axes(op_name, operands):
    """The common dynamic axes of ``operands`` (in CNTK's operand order), refused as CNTK 2.7 refuses them when
    they differ; operands without dynamic axes, or whose axes are still unknown, take part in no comparison."""
    expected = None
    for v in operands:
        if not v._dynamic_axes:
            continue
        if expected is None:
            expected = v._dynamic_axes
        elif _axes_key(v._dynamic_axes) != _axes_key(expected) and dynamic_axes_checks_active():
            raise dynamic_axes_mismatch(op_name, v, expected)
    return expected if expected is not None else ()


def _axes_key(axes):
    """What identifies a set of dynamic axes here. The sequences sequence.where makes carry their new axis alone
    where CNTK has it with the batch axis, and a where's axis is named after its condition, which a model loaded
    again may reach through another node than the one it was named after: where axes are told apart by neither."""
    names = {"whereNodeDynamicAxis" if a.name.startswith("whereNodeDynamicAxis") else a.name for a in axes}
    if names == {"whereNodeDynamicAxis"}:
        names.add(BATCH_AXIS_NAME)
    return names


class IncompatibleShapesError(RuntimeValueError):
    """Operands of an elementwise op whose static shapes do not broadcast. CNTK 2.7 raises a RuntimeError ("Binary
    elementwise operation Plus: Left operand ... is not compatible with right operand ...")."""


def broadcast_shape(shapes, op_name="op"):
    """Numpy-style broadcast of static shapes (right aligned); None when any is unknown."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(rank):
        dims = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
        known = {d for d in dims if d not in (1, -1, -3)}
        if len(known) > 1:
            raise IncompatibleShapesError("%s: operand shapes %s cannot be broadcast together (axis %d has sizes %s)"
                                          % (op_name, [tuple(s) for s in shapes], k - rank, sorted(known)))
        if known:
            out.append(known.pop())
        elif -1 in dims:
            out.append(-1)
        elif -3 in dims:
            out.append(-3)
        else:
            out.append(1)
    return tuple(out)


def normalize_axis(axis, rank, op_name, argument="axis"):
    """A non-negative static axis index from an int or a static Axis.

    With rank None (the input's shape is not known yet, e.g. a placeholder) the index is returned as given,
    possibly negative; the op's shape rule resolves it once the shape is known (see resolve_axes)."""
    if hasattr(axis, "static_axis_index"):
        axis = axis.static_axis_index()
    if not isinstance(axis, (int, np.integer)):
        raise TypeError("%s: %s must be an int or a static Axis, got %r" % (op_name, argument, axis))
    a = int(axis)
    if rank is None:
        return a
    if a < 0:
        a += rank
    if not 0 <= a < max(rank, 1):
        raise ValueError("%s: %s %d is out of range for an input of rank %d" % (op_name, argument, axis, rank))
    return a


def refuse_axis_of_rank0(axis, x, op_name):
    """CNTK 2.7's refusals of a static axis (an int or static Axis) of an operand of rank 0: a non-negative one is
    beyond its rank (ValueError), a negative one reaches a reduction over more axes than it has (RuntimeError)."""
    if axis is None or x._shape is None or len(x._shape):
        return
    index = int(axis.static_axis_index() if hasattr(axis, "static_axis_index") else axis)
    if index >= 0:
        raise ValueError("%s: axis %d is out of bounds for the rank 0 of '%s'" % (op_name, index, x.name or x.uid))
    raise RuntimeError("%s: axis %d reduces over one axis of '%s', which has rank 0" % (op_name, index,
                                                                                       x.name or x.uid))


def resolve_axes(axes, rank, op_name):
    """Static axis indices made non-negative for an input of known rank; None means all static axes."""
    if axes is None:
        return tuple(range(rank))
    return tuple(sorted({normalize_axis(a, rank, op_name) for a in axes}))


def spec_like(x, shape, dtype=None, dynamic_axes=None, is_sparse=False):
    return OutputSpec(shape, dtype if dtype is not None else x._dtype,
                      x._dynamic_axes if dynamic_axes is None else dynamic_axes, is_sparse)


def elementwise_infer(op_name, matching_axes_op=None):
    def infer(inputs, attributes):
        shape = broadcast_shape([i._shape for i in inputs], op_name)
        if shape is not None:
            _infer_parameter_dims(inputs, shape)
        axes = operand_dynamic_axes(matching_axes_op or op_name, inputs, broadcast=matching_axes_op is None)
        return [OutputSpec(shape, operands_dtype(inputs), axes)]
    return infer


def _infer_parameter_dims(inputs, shape):
    """A Parameter or Constant with inferred (-1) dimensions takes them from the broadcast result shape."""
    for v in inputs:
        if (v.is_parameter or v.is_constant) and v._shape is not None and -1 in v._shape:
            tail = shape[len(shape) - len(v._shape):]
            if len(tail) == len(v._shape) and all(t >= 0 for t, own in zip(tail, v._shape) if own == -1):
                v._resolve_inferred_shape(tuple(t if own == -1 else own for own, t in zip(v._shape, tail)))


def elementwise_infer_partial(inputs, guess):
    """An elementwise result typed by the operands whose types are known: inside a loop the other operand
    (a delayed copy of the result) takes its type from the result. guess 1 trusts only operands with a dimension
    above 1 (a scalar such as a stabilizer's factor says nothing of the result's shape); guess 2, the last
    resort of a loop that settles no other way, trusts any."""
    known = [i for i in inputs if i._shape is not None and i._dynamic_axes is not None]
    if not known or (guess < 2 and all(all(d == 1 for d in i._shape) for i in known)):
        return None
    return [OutputSpec(broadcast_shape([i._shape for i in known]), promote(*[i._dtype for i in known]),
                       dynamic_axes_of(known))]


def register_elementwise(op_name, compute, prepare=None, matching_axes_op=None, **options):
    """An elementwise op. Its operands' dynamic axes follow CNTK's binary ops (one without a sequence axis is
    broadcast along the other's), or, for ``matching_axes_op`` (the name of the CNTK primitive that refuses them: a
    CNTK block whose body sees its operands through placeholders, or an op of three operands), must match."""
    return register_op(op_name, elementwise_infer(op_name, matching_axes_op), compute, prepare=prepare,
                       elementwise=True, infer_partial=elementwise_infer_partial,
                       reconciles=matching_axes_op is None, **options)


def static_dim(node, k=0):
    """The torch dim of static axis 0 of input k (after its dynamic axes)."""
    return node._inputs[k]._n_dynamic
