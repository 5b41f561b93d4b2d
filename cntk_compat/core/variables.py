"""Variables: the typed leaves and edges of a CNTK graph.

Kinds: Input (data fed by the user), Placeholder (to be substituted), Parameter (learnable, owns a
torch.nn.Parameter), Constant (owns a torch tensor) and Output (produced by a Function).
"""
import numpy as np
import torch

from . import device as _device
from ..default_options import default_override_or, get_default_override
from .axis import Axis, BATCH_AXIS_NAME, UNKNOWN_AXES_NAME, dynamic_axes_text
from .dtypes import data_type_code, is_storage_only, refuse_object_data, sanitize_dtype, to_torch_dtype
from .handles import GraphHandle
from .operators import TensorOpsMixin
from .uid import new_uid

InferredDimension = -1
FreeDimension = -3
_UNKNOWN_SHAPE = (-2,)


class VariableKind(object):
    INPUT = "Input"
    OUTPUT = "Output"
    PARAMETER = "Parameter"
    CONSTANT = "Constant"
    PLACEHOLDER = "Placeholder"


# CNTK 2.7's VariableKind codes (Variable.kind(), cntk_py.VariableKind_*)
KIND_NUMBERS = {VariableKind.INPUT: 0, VariableKind.OUTPUT: 1, VariableKind.PARAMETER: 2, VariableKind.CONSTANT: 3,
                 VariableKind.PLACEHOLDER: 4}


def sanitize_shape(shape, argument="shape"):
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer, float, np.floating)):
        shape = (shape,)  # a number is a rank-1 shape; a float dimension is truncated, as CNTK 2.7 does
    try:
        if isinstance(shape, (str, bytes)):
            raise TypeError(shape)
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError("%s: expected an int or a tuple of ints, got %r" % (argument, shape)) from None
    for d in dims:
        if d < 0 and d not in (InferredDimension, FreeDimension):
            raise ValueError("%s: dimensions must be >= 0 (or InferredDimension=-1), got %r" % (argument, shape))
    return dims


def sanitize_dynamic_axes(axes):
    if axes is None:
        return None
    if isinstance(axes, Axis):
        axes = (axes,)
    axes = tuple(axes)
    for a in axes:
        if not isinstance(a, Axis):
            raise TypeError("dynamic_axes: expected Axis objects, got %r" % (a,))
    return axes


def shape_is_known(shape):
    return shape is not None and all(d >= 0 for d in shape)


class VariableMixin(object):
    """The read-only properties CNTK exposes on every Variable (shape, dtype, name, kind, ...)."""

    # a type that shape inference guessed inside a recurrent loop some of whose inputs are still untyped (from the
    # loop's parameters alone), or computed from such a type: the graph works with it, but CNTK 2.7, which types
    # nothing there yet, shows it unknown (core/reinference.py)
    _guessed_type = False

    @property
    def shape(self):
        return _UNKNOWN_SHAPE if self._shape is None or self._guessed_type else self._shape

    @property
    def dtype(self):
        return None if self._dtype is None else self._dtype.type

    def get_data_type(self):
        """CNTK's DataType code of the elements (1 float32, 2 float64, 4 float16; 0, DataType_Unknown, while the
        type is still to be inferred)."""
        return data_type_code(self._dtype)

    @property
    def name(self):
        return self._name

    @property
    def uid(self):
        return self._uid

    @property
    def is_sparse(self):
        return self._is_sparse

    @property
    def dynamic_axes(self):
        """The dynamic axes as CNTK's Python API lists them: the batch axis first, then the sequence axis."""
        if self._dynamic_axes is None or self._guessed_type:
            return Axis.unknown_dynamic_axes()
        return tuple(sorted(self._dynamic_axes, key=lambda a: a.name != BATCH_AXIS_NAME))

    def has_batch_axis(self):
        """Whether the batch axis is among the dynamic axes."""
        return any(a.is_batch_axis for a in (self._dynamic_axes or ()))

    def has_sequence_axis(self):
        """Whether a sequence axis is among the dynamic axes."""
        return any(a.is_sequence_axis for a in (self._dynamic_axes or ()))

    @property
    def needs_gradient(self):
        return self._needs_gradient

    @property
    def owner(self):
        """The Function this variable is an output of; CNTK 2.7 raises a RuntimeError for any other variable."""
        if self._kind != VariableKind.OUTPUT:
            raise RuntimeError("called owner() on a variable that is not an output variable")
        return self._owner

    @property
    def is_input(self):
        return self._kind == VariableKind.INPUT

    @property
    def is_output(self):
        return self._kind == VariableKind.OUTPUT

    @property
    def is_parameter(self):
        return self._kind == VariableKind.PARAMETER

    @property
    def is_constant(self):
        return self._kind == VariableKind.CONSTANT

    @property
    def is_placeholder(self):
        return self._kind == VariableKind.PLACEHOLDER

    def kind(self):
        """The kind of Variable as CNTK 2.7's int (cntk_py.VariableKind_*): Input 0, Output 1, Parameter 2,
        Constant 3, Placeholder 4."""
        return KIND_NUMBERS[self._kind]

    @property
    def _type(self):
        """The Variable's type as one record (shape, dtype, needs_gradient, is_sparse, dynamic_axes), printed as
        CNTK prints types (Tensor[3], Sequence[SparseTensor[10]], ...)."""
        return self._Type(shape=None if self._guessed_type else self._shape, dtype=self._dtype,
                          needs_gradient=self._needs_gradient, is_sparse=self._is_sparse,
                          dynamic_axes=tuple(self.dynamic_axes))


class Variable(VariableMixin, TensorOpsMixin, GraphHandle):
    """A symbolic typed value: its static shape (no batch/sequence axes), dtype and dynamic axes.

    The public constructor creates an input Variable; Functions create Output Variables.
    """

    def __init__(self, shape=None, dtype=None, needs_gradient=False, is_sparse=False,
                 dynamic_axes=Axis.default_input_variable_dynamic_axes(), name=""):
        self._init_variable(VariableKind.INPUT, sanitize_shape(shape),
                            sanitize_dtype(dtype, storage=True) or np.dtype(np.float32), is_sparse,
                            sanitize_dynamic_axes(dynamic_axes), name, needs_gradient)

    def _init_variable(self, kind, shape, dtype, is_sparse, dynamic_axes, name, needs_gradient=False,
                       owner=None, uid=None):
        if not isinstance(name, str):
            raise TypeError("name: expected a str, got %r" % (name,))
        self._kind = kind
        self._shape = shape
        self._dtype = dtype
        self._is_sparse = bool(is_sparse)
        self._dynamic_axes = dynamic_axes
        self._name = name
        self._needs_gradient = bool(needs_gradient)
        self._owner = owner
        self._uid = uid or new_uid(kind)

    def as_parameter(self):
        if not self.is_parameter:
            raise TypeError("%s is not a Parameter and cannot be converted into one" % self._uid)
        return self

    def as_constant(self):
        if not self.is_constant:
            raise TypeError("%s is not a Constant and cannot be converted into one" % self._uid)
        return self

    # -- engine-side helpers
    @property
    def _n_dynamic(self):
        """How many leading dynamic dims this variable's run-time tensors carry (batch, then sequence)."""
        return len(self._dynamic_axes or ())

    @property
    def _has_batch(self):
        return any(a.name == BATCH_AXIS_NAME for a in (self._dynamic_axes or ()))

    @property
    def _sequence_axis(self):
        for a in self._dynamic_axes or ():
            if a.name != BATCH_AXIS_NAME:
                return a
        return None

    def _resolve_inferred_shape(self, shape):
        """Called by shape rules: fill in InferredDimension entries (CNTK's deferred inference)."""
        if self._shape is None or len(self._shape) != len(shape):
            self._shape = tuple(shape)
            return
        merged = []
        for have, got in zip(self._shape, shape):
            if have in (InferredDimension, FreeDimension):
                merged.append(got)
            elif got >= 0 and have != got:
                raise ValueError("%s '%s' has shape %s, incompatible with the inferred shape %s"
                                 % (self._kind, self._name or self._uid, self._shape, tuple(shape)))
            else:
                merged.append(have)
        self._shape = tuple(merged)

    def __repr__(self):
        """As CNTK prints a variable: ``Input('x', [#, *], [2 x 3])``: kind, name (else uid), dynamic axes
        (``#`` the batch axis, ``*`` the default sequence axis), static shape (``?`` inferred, ``*`` free)."""
        axes = "[???]" if self._dynamic_axes is None or self._guessed_type else dynamic_axes_text(self.dynamic_axes)
        shape = "[???]" if self._shape is None or self._guessed_type else shape_text(self._shape)
        return "%s('%s', %s, %s)" % (self._kind, self._name or self._uid, axes, shape)

    def __str__(self):
        return self.__repr__()


def shape_text(shape):
    """A shape as CNTK prints it (its messages too): [2 x 3] (``?`` an inferred dimension, ``*`` a free one)."""
    return "[%s]" % " x ".join("?" if d == InferredDimension else "*" if d == FreeDimension else str(d) for d in shape)


def _warn_not_c_contiguous(value):
    from .value import warn_not_c_contiguous
    warn_not_c_contiguous(value)


def _is_unknown_data_type(dtype):
    """Whether dtype is CNTK's DataType_Unknown code (0), which leaves the element type to the first op."""
    return isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool) and int(dtype) == 0


def _ndarrayview_values(value):
    """An NDArrayView given as a value (CNTK takes one: a UserLearner gets its gradients so) as its numpy array."""
    from .value import NDArrayView
    return value.asarray() if isinstance(value, NDArrayView) else value


def _dtype_of_value(value):
    """numpy float arrays (0-d ones too) keep their precision; scalars (numpy ones too) and lists default to
    float32, as in CNTK."""
    if isinstance(value, np.ndarray) and value.dtype in (np.float32, np.float64, np.float16):
        return value.dtype
    return np.dtype(np.float32)


def _value_array(value, shape, dtype, what):
    arr = np.asarray(value, dtype=dtype)
    if shape is not None and shape_is_known(shape) and arr.shape != tuple(shape):
        if arr.ndim == 0:
            arr = np.full(shape, arr, dtype=dtype)
        else:
            try:
                arr = np.broadcast_to(arr, shape).copy()
            except ValueError:
                raise ValueError("%s: value of shape %s does not fit the given shape %s"
                                 % (what, arr.shape, tuple(shape))) from None
    return arr


class _TensorHolder(Variable):
    """Shared logic of Parameters and Constants: a value held in a torch tensor."""

    _tensor = None

    def _setup_holder(self, shape, init, dtype, device, name, kind):
        self._init_variable(kind, shape, dtype, False, (), name)
        self._init = init
        self._device = _device.resolve(device)

    def _materialize(self, requires_grad):
        if self._tensor is not None:
            return self._tensor
        if not shape_is_known(self._shape):
            raise ValueError("%s '%s': the value is not available before the shape %s is fully inferred; "
                             "apply the Function to an input of known shape first"
                             % (self._kind, self._name or self._uid, self.shape))
        if self._dtype is None:
            self._dtype = np.dtype(np.float32)
        init = self._init
        if hasattr(init, "generate") and is_storage_only(self._dtype):
            raise ValueError("%s '%s': random initializers fill float tensors only; give this %s %s a number or "
                             "an array as its init" % (self._kind, self._name or self._uid,
                                                       np.dtype(self._dtype).name, self._kind))
        fresh = hasattr(init, "generate")  # an initializer's draw is a new array that nothing else holds
        if fresh:
            data = init.generate(self._shape, self._dtype)
        else:
            data = _value_array(init, self._shape, self._dtype, "%s '%s'" % (self._kind, self._name))
        t = torch.as_tensor(np.ascontiguousarray(data) if isinstance(data, np.ndarray) else data)
        t = t.to(device=self._device, dtype=to_torch_dtype(self._dtype)).reshape(self._shape)
        if not fresh:  # a value the caller gave may be shared with the caller's array: this holder owns a copy
            t = t.clone()
        if requires_grad and t.is_floating_point():
            self._tensor = torch.nn.Parameter(t, requires_grad=True)
        else:
            self._tensor = t
        self._init = None
        return self._tensor

    def _shared_initializer(self):
        """This holder's initializer, made to give every holder that uses it the same draw."""
        if not isinstance(self._init, _SharedDraw):
            self._init = _SharedDraw(self._init)
        return self._init

    @property
    def value(self):
        return self.tensor.detach().cpu().numpy().copy()

    @value.setter
    def value(self, val):
        # as CNTK 2.7: a numpy array (converted to the element type) or an NDArrayView of the very shape
        from .value import NDArrayView
        if isinstance(val, np.ndarray):
            val = val.astype(self._dtype)
        elif not isinstance(val, NDArrayView):
            raise TypeError("Unsupported value type: %s" % type(val))
        if tuple(val.shape) != tuple(self.shape):
            from .native_errors import announced
            raise announced(RuntimeError, "Variable '%r' SetValue(): 'source' shape '%s' differs 'destination' shape "
                            "'%s'." % (self, shape_text(val.shape), shape_text(self.shape)))
        self.set_value(val)

    def asarray(self):
        """The current value as a numpy array (a copy)."""
        return self.value

    def set_value(self, value):
        from .value import NDArrayView, Value
        if isinstance(value, (NDArrayView, Value)):
            value = value.tensor
        t = self.tensor
        src = torch.as_tensor(np.asarray(value) if not isinstance(value, torch.Tensor) else value)
        if tuple(src.shape) != tuple(t.shape):
            if src.numel() != t.numel():
                raise ValueError("%s '%s': cannot set a value of shape %s, expected %s"
                                 % (self._kind, self._name or self._uid, tuple(src.shape), tuple(t.shape)))
            src = src.reshape(t.shape)
        with torch.no_grad():
            t.copy_(src.to(dtype=t.dtype, device=t.device))

class OwnedValue(object):
    """A float array handed over to a new Parameter or Constant as its value, which takes it without a copy (a
    model reader's freshly read tensors): the holder owns it from then on."""

    def __init__(self, array):
        self.array = array

    def generate(self, shape, dtype=np.float32):
        return np.asarray(self.array, dtype=dtype).reshape(shape)


class _SharedDraw(object):
    """An initializer shared by a Parameter and its clones: the first to materialize draws, the others copy."""

    def __init__(self, initializer):
        self.initializer = initializer
        self._drawn = {}

    def generate(self, shape, dtype=np.float32):
        key = (tuple(shape), np.dtype(dtype).str)
        if key not in self._drawn:
            self._drawn[key] = np.asarray(self.initializer.generate(shape, dtype))
        return self._drawn[key].copy()


class Parameter(_TensorHolder):
    """A learnable tensor. ``init`` is a value (scalar, list, ndarray) or an initializer."""

    def __init__(self, shape=None, init=None, dtype=default_override_or(np.float32), device=None, name=""):
        if get_default_override(None, pure=default_override_or(False)):
            raise TypeError("parameters cannot be created inside a @Function def")
        # as CNTK: the class converts its init to float32 (or default_options' dtype); a dtype of None (what
        # cntk.parameter() passes) keeps a numpy array's precision
        dtype = get_default_override(Parameter, dtype=dtype)
        unknown = _is_unknown_data_type(dtype)
        dtype = sanitize_dtype(dtype, storage=True)
        if init is None:
            init = 0
        init = _ndarrayview_values(init)
        if isinstance(init, (np.ndarray, list, tuple)) or (np.isscalar(init) and not isinstance(init, str)):
            if dtype is None and not (unknown and np.isscalar(init)):
                dtype = _dtype_of_value(init)
                unknown = False
            _warn_not_c_contiguous(init)
            refuse_object_data(init)
            init = arr = np.array(init)  # a copy: callers may reshape or overwrite their array later
            if shape is None or (np.ndim(init) > 0 and not isinstance(init, (int, float))):
                shape = arr.shape if np.ndim(init) > 0 else sanitize_shape(shape)
        elif not hasattr(init, "generate"):
            raise TypeError("Parameter init: expected a number, an array or an initializer, got %r" % (init,))
        elif hasattr(init, "for_new_parameter"):
            init = init.for_new_parameter()  # a random initializer takes its seed now, in creation order
        shape = sanitize_shape(shape)
        # DataType_Unknown (with a scalar or an initializer): the first op that uses it gives the type
        self._setup_holder(shape, init, dtype or (None if unknown else np.dtype(np.float32)), device, name,
                           VariableKind.PARAMETER)
        self._needs_gradient = True

    @property
    def tensor(self):
        """The torch.nn.Parameter holding this parameter's value."""
        return self._materialize(requires_grad=True)

    @property
    def is_parameter(self):
        return True


class Constant(_TensorHolder):
    """A tensor that training does not change (assign() may)."""

    def __init__(self, value=None, shape=None, dtype=default_override_or(np.float32), device=None, name=""):
        dtype = get_default_override(Constant, dtype=dtype)  # as Parameter's
        unknown = _is_unknown_data_type(dtype)
        dtype = sanitize_dtype(dtype, storage=True)
        if value is None:
            value = 0
        if hasattr(value, "generate"):
            init = value
        else:
            if isinstance(value, torch.Tensor):
                value = value.detach().cpu().numpy()
            value = _ndarrayview_values(value)
            _warn_not_c_contiguous(value)
            refuse_object_data(value)
            arr = np.array(value)
            if dtype is None and not (unknown and np.isscalar(value)):
                dtype = _dtype_of_value(value)
            if shape is None:
                shape = arr.shape
            init = arr
        shape = sanitize_shape(shape)
        self._setup_holder(shape, init, dtype, device, name, VariableKind.CONSTANT)

    @property
    def tensor(self):
        return self._materialize(requires_grad=False)


def new_placeholder(shape=None, dynamic_axes=None, name=""):
    """A placeholder Variable (as in CNTK, a plain Variable of kind Placeholder), its type to come from what
    replaces it."""
    if isinstance(shape, str):
        # placeholder("name") passes the name as the shape: CNTK 2.7 makes an unnamed placeholder with one
        # inferred dimension then (its own test suite does this)
        shape = (InferredDimension,)
    return typed_placeholder(None if shape is None else sanitize_shape(shape), None, False,
                             sanitize_dynamic_axes(dynamic_axes), name)


def typed_placeholder(shape, dtype, is_sparse, dynamic_axes, name=""):
    """A placeholder that already has a type (a stand-in for a Variable whose type is known), unlike the public
    placeholder(), whose type comes from what replaces it."""
    v = Variable.__new__(Variable)
    v._init_variable(VariableKind.PLACEHOLDER, shape, dtype, is_sparse, dynamic_axes, name)
    return v


def make_output(shape, dtype, is_sparse, dynamic_axes, name, owner, index, needs_gradient=False):
    """Output ``index`` of ``owner``, its uid CNTK's: the owner's uid followed by ``_Output_<index>``."""
    v = Variable.__new__(Variable)
    v._init_variable(VariableKind.OUTPUT, shape, dtype, is_sparse, dynamic_axes, name, needs_gradient,
                     owner=owner, uid="%s_Output_%d" % (owner.uid, index))
    return v


# -- the public constructors ------------------------------------------------------------------

def input_variable(shape, dtype=default_override_or(np.float32), needs_gradient=False, is_sparse=False,
                   dynamic_axes=(Axis.default_batch_axis(),), name=""):
    """A data input with the batch axis (and whatever dynamic_axes says); dtype: default_options' dtype, else
    float32, as in CNTK."""
    dtype = get_default_override(input_variable, dtype=dtype)
    return Variable(_input_shape(shape, "input_variable"), dtype, needs_gradient, is_sparse, dynamic_axes, name)


def _input_shape(shape, who):
    dims = sanitize_shape(shape, "%s: shape" % who)
    if 0 in dims:
        raise ValueError("%s: shape %r has a zero dimension; an input holds at least one value per sample"
                         % (who, shape))
    return dims


def sequence_input_variable(shape, dtype=np.float32, needs_gradient=False, is_sparse=False,
                            sequence_axis=Axis.default_dynamic_axis(), name=""):
    return Variable(_input_shape(shape, "sequence.input_variable"), dtype, needs_gradient, is_sparse,
                    (sequence_axis, Axis.default_batch_axis()), name)


def placeholder(shape=None, dynamic_axes=None, name=""):
    return new_placeholder(shape, dynamic_axes, name)


def parameter(shape=None, init=None, dtype=None, device=None, name=""):
    return Parameter(shape, init, dtype, device, name)


def constant(value=None, shape=None, dtype=None, device=None, name=""):
    return Constant(value, shape, dtype, device, name)


def output_variable(shape, dtype, dynamic_axes, needs_gradient=True, name=""):
    """An output of a user function's infer_outputs(). The type of a placeholder not yet replaced (its shape
    (-2,), its dynamic axes (UnknownAxes,)) stays unknown, to be inferred once the inputs are known."""
    shape = None if isinstance(shape, (tuple, list)) and tuple(shape) == _UNKNOWN_SHAPE else sanitize_shape(shape)
    axes = sanitize_dynamic_axes(dynamic_axes)
    if axes is not None and len(axes) == 1 and axes[0].name == UNKNOWN_AXES_NAME:
        axes = None
    v = Variable.__new__(Variable)
    v._init_variable(VariableKind.OUTPUT, shape, sanitize_dtype(dtype), False, axes, name, needs_gradient)
    return v
