"""UserFunction: ops written in Python (numpy or Value in, numpy or Value out) with a user backward.

Every user function lowers to the one registered op "UserFunction", whose computation runs the user's
forward/backward inside a torch.autograd.Function.
"""
import copy
import importlib

import numpy as np
import torch

from ..core import device as _device
from ..core import serialization
from ..core.dtypes import to_torch_dtype
from ..core.function import Function, as_variable
from ..core.native_errors import director_failure
from ..core.registry import register_op, udf_loader
from ..core.serialization import decode_attribute, encode_attribute, user_function_classes
from ..core.value import NDArrayView, Value
from ..core.variables import make_output

def _lengths(mask):
    return None if mask is None else [int(n) for n in mask.sum(1).tolist()]


def _to_user(as_numpy, tensor, mask):
    """What the user's forward/backward sees for one tensor: numpy (a list per sequence when the sequences
    differ in length) or a Value."""
    tensor = tensor.detach()
    lengths = _lengths(mask)
    if not as_numpy:
        return Value(_tensor=tensor, _lengths=lengths)
    arr = tensor.cpu().numpy()
    if lengths is not None and any(n != arr.shape[1] for n in lengths):
        return [arr[b, :n] for b, n in enumerate(lengths)]
    return arr


def _as_tensor(data, mask):
    """A tensor from what the user returned: Value, NDArrayView, tensor, array, or a list of sequences."""
    if isinstance(data, (Value, NDArrayView)):
        return data.tensor.detach()
    if isinstance(data, torch.Tensor):
        return data.detach()
    if isinstance(data, list) and mask is not None:
        steps = mask.shape[1]
        padded = []
        for seq in data:
            seq = np.asarray(seq)
            pad = np.zeros((steps - seq.shape[0],) + seq.shape[1:], dtype=seq.dtype)
            padded.append(np.concatenate([seq, pad], 0))
        return torch.as_tensor(np.stack(padded))
    return torch.as_tensor(np.asarray(data))


def _gradient_like(data, like, mask, what):
    """The user's gradient as a tensor of like's (shape, dtype, device), summing over broadcast axes."""
    shape, dtype, device = like
    t = _as_tensor(data, mask).to(device=device, dtype=dtype)
    while t.dim() > len(shape):
        t = t.sum(0)
    if t.dim() == len(shape):
        for d, (have, want) in enumerate(zip(t.shape, shape)):
            if want == 1 and have != 1:
                t = t.sum(d, keepdim=True)
    if t.numel() != int(np.prod(shape)):
        raise ValueError("%s: got data of shape %s, expected %s" % (what, tuple(t.shape), tuple(shape)))
    return t.reshape(shape)


def _output_mask(var, masks_by_axis):
    axis = var._sequence_axis
    return None if axis is None else masks_by_axis.get(axis.name)


def _user_code_errors(method):
    """As in CNTK, where the native engine calls a user function's forward and backward through SWIG directors:
    an exception there (or in what they returned) is printed with its traceback on stderr and reaches the caller
    as RuntimeError('SWIG director method error.'); the original stays its __context__."""
    def run(ctx, *args):
        try:
            return method(ctx, *args)
        except Exception as e:
            if isinstance(e, RuntimeError) and e.args == ("SWIG director method error.",):
                raise       # an inner user function's, already printed
            if isinstance(e, _OutputRankError):
                raise       # CNTK's own check of what the director returned, not an error in user code
            raise director_failure() from None
    return run


class _UserAutograd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, udf, masks, *tensors):
        return _user_code_errors(_UserAutograd._forward)(ctx, udf, masks, *tensors)

    @staticmethod
    def backward(ctx, *grads):
        return _user_code_errors(_UserAutograd._backward)(ctx, *grads)

    @staticmethod
    def _forward(ctx, udf, masks, *tensors):
        args = [_to_user(udf.as_numpy, t, m) for t, m in zip(tensors, masks)]
        arguments = args[0] if len(args) == 1 else tuple(args)   # CNTK 2.7 hands several inputs over as a tuple
        outputs = udf.outputs
        device = tensors[0].device if tensors else _device.resolve(None)
        # as CNTK calls them: forward(arguments, device, outputs_to_retain), or with several outputs
        # forward(arguments, outputs, device, outputs_to_retain); the device a DeviceDescriptor, the outputs to
        # retain a list, of the outputs when a backward pass will follow, else empty
        descriptor = _device.cpu() if device.type != "cuda" else _device.DeviceDescriptor(
            _device.DeviceKind.GPU, device.index or 0)
        retain = list(outputs) if any(ctx.needs_input_grad[2:]) else []
        if len(outputs) == 1:
            state, result = udf.forward(arguments, descriptor, retain)
            results = {outputs[0]: result}
        else:
            results = {o: None for o in outputs}
            state = udf.forward(arguments, results, descriptor, retain)
        by_axis = {i._sequence_axis.name: m for i, m in zip(udf.inputs, masks) if m is not None}
        outs = []
        for o in outputs:
            if results.get(o) is None:
                raise ValueError("user function %s: forward did not provide output %s" % (udf.op_name, o))
            outs.append(_result_tensor(results[o], o, _output_mask(o, by_axis), device))
        ctx.udf, ctx.state, ctx.masks = udf, state, masks
        ctx.inputs_like = [(tuple(t.shape), t.dtype, t.device) for t in tensors]
        ctx.out_masks = [_output_mask(o, by_axis) for o in outputs]
        ctx.mark_non_differentiable(*[t for t, o in zip(outs, outputs) if not o.needs_gradient])
        return tuple(outs)

    @staticmethod
    def _backward(ctx, *grads):
        udf = ctx.udf
        roots = {o: _to_user(udf.as_numpy, g, m)
                 for o, g, m in zip(udf.outputs, grads, ctx.out_masks) if o.needs_gradient}
        root = next(iter(roots.values())) if len(roots) == 1 else roots
        inputs = udf.inputs
        wanted = [i for k, i in enumerate(inputs) if ctx.needs_input_grad[2 + k]]
        if len(inputs) > 1:
            variables = {i: None for i in wanted}
            udf.backward(ctx.state, root, variables)
        else:
            variables = {inputs[0]: udf.backward(ctx.state, root)}
        result = []
        for i, like, m in zip(inputs, ctx.inputs_like, ctx.masks):
            g = variables.get(i) if i in wanted else None
            result.append(None if g is None else _gradient_like(g, like, m, "gradient for %s" % (i.name or i.uid)))
        return (None, None) + tuple(result)


class _OutputRankError(ValueError):
    """CNTK's ValueError about an output the user's forward returned (printed as a plain ValueError)."""


_OutputRankError.__name__ = _OutputRankError.__qualname__ = "ValueError"
_OutputRankError.__module__ = "builtins"


def _result_tensor(data, var, mask, device):
    """An output the user's forward returned, as a tensor with the output's dynamic axes in front. As in CNTK
    2.7: data without some of the leading dynamic axes has 1 there (data of the output's static rank is one
    sample, whatever the input's batch size; of one more rank, for a sequence output, one sequence); data of
    a smaller rank than the static one is refused."""
    dtype = to_torch_dtype(var._dtype) if var._dtype is not None else torch.float32
    t = _as_tensor(data, mask)
    static_rank, dynamic = len(var.shape), len(var.dynamic_axes)
    missing = static_rank + dynamic - t.dim()
    if dynamic and 0 < missing <= dynamic:      # the leading dynamic axes left out are 1: (steps, ...) of a
        t = t.reshape((1,) * missing + tuple(t.shape))      # sequence output is one sequence
    elif t.dim() < static_rank:
        raise _OutputRankError("Value's rank (%d) should be >= the Variable's rank (%d); Variable = '%s', Value shape "
                         "= '[%s]'." % (t.dim(), static_rank, var, " x ".join(str(d) for d in t.shape)))
    return t.to(device=device, dtype=dtype)


class UserFunctionState(torch.nn.Module):
    """The user function a lowered module calls, owned by that module (no global registry): the module keeps
    working after its Function is gone. A deepcopy of the module shares the user function (it is code and the
    user's own state, like a Python callable); pickling pickles it, so its class must be importable."""

    def __init__(self, udf):
        super().__init__()
        self.udf = udf

    def __deepcopy__(self, memo):
        twin = UserFunctionState.__new__(UserFunctionState)
        memo[id(self)] = twin
        twin.__dict__.update({k: (v if k == "udf" else copy.deepcopy(v, memo)) for k, v in self.__dict__.items()})
        return twin


def _run(*tensors, state, masks):
    outs = _UserAutograd.apply(state.udf, masks, *tensors)
    return outs[0] if len(outs) == 1 else outs


def _save_state(node):
    """What a saved model keeps of a user function node: its class and its serialize() state."""
    cls = type(node)
    return {"module": cls.__module__, "class": cls.__qualname__, "op_name": node.op_name,
            "as_numpy": bool(getattr(node, "as_numpy", True)),
            "state": encode_attribute(node.serialize(), "the serialize() state of user function %s" % node.op_name)}


def _user_function_class(info):
    """The class of a saved user function: one this program has defined (imported) itself. Loading imports
    nothing a file names, unless the user allowed that module (allow_user_function_imports)."""
    key = (info["module"], info["class"])
    if key not in user_function_classes and info["module"] in serialization._importable_modules:
        importlib.import_module(info["module"])
    cls = user_function_classes.get(key)
    if cls is None:
        raise ValueError("load_model: the model holds the user function %s.%s (op %r), which this program has not "
                         "defined; loading a model imports nothing that the file names. Import or define the class "
                         "before loading, register a callback with Function.register_udf_deserialize_callback(%r, "
                         "...), or allow importing its module with "
                         "cntk.ops.functions.allow_user_function_imports(%r)"
                         % (info["module"], info["class"], info["op_name"], info["op_name"], info["module"]))
    return cls


def _load_node(info, inputs, name):
    """The user function node a saved model describes: built by the registered deserialize callback, or by
    its class's deserialize()."""
    state = decode_attribute(info["state"])
    callback = udf_loader(info["op_name"]) or _user_function_class(info).deserialize
    udf = callback(list(inputs), name, state)
    if isinstance(udf, Function):
        return udf if not udf.is_composite else udf._root
    raise TypeError("load_model: deserializing user function %s gave %s, expected a UserFunction"
                    % (info["op_name"], type(udf).__name__))


# a user function inside a recurrent loop is called once per step, as in CNTK
_OP = register_op("UserFunction", infer=None, compute=_run, owned_state=UserFunctionState, uses_masks=True,
                  stepwise=True, save_state=_save_state, load_node=_load_node)


class UserFunction(Function):
    """Base class of Python-defined ops. Subclasses implement infer_outputs(), forward(arguments, ...)
    returning (state, result) (or, with several outputs, forward(arguments, outputs) filling the outputs
    dict and returning state), and backward(state, root_gradients[, variables])."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        user_function_classes[(cls.__module__, cls.__qualname__)] = cls  # what loading a model may rebuild

    def __init__(self, inputs, as_numpy=True, attributes=None, name=''):
        for i in inputs:
            if isinstance(i, Function) and len(i.outputs) != 1:
                # CNTK's SWIG layer converts the inputs list element by element: its native library says why
                # (announced) and SWIG raises its own TypeError
                from ..core.native_errors import announce
                announce("A Function instance '%r' with more than one output cannot be implicitly converted to "
                         "a Variable." % (i,))
                raise TypeError("cannot convert list element to CNTK::Variable")
        inputs = [as_variable(i, "input %d of %s" % (k, type(self).__name__)) for k, i in enumerate(inputs)]
        self._set_primitive(_OP, self.op_name, inputs, dict(attributes or {}), name, "UserDefinedFunction")
        self.as_numpy = as_numpy
        # the outputs are inferred when first needed (user_function(), .outputs, ...), not here: as in CNTK, a
        # subclass may set up what its infer_outputs() uses after calling this constructor
        self.__dict__["_pending_outputs"] = True

    @property
    def _outputs(self):
        if self.__dict__.get("_pending_outputs"):
            self.__dict__["_pending_outputs"] = False
            try:
                self.__dict__["_udf_outputs"] = self._make_outputs()
            except BaseException:
                self.__dict__["_pending_outputs"] = True
                raise
        return self.__dict__.get("_udf_outputs", [])

    @_outputs.setter
    def _outputs(self, value):
        self.__dict__["_pending_outputs"] = False
        self.__dict__["_udf_outputs"] = value

    def _make_outputs(self):
        inputs, name = self._inputs, self._name
        grad = any(i._needs_gradient or i.is_output or i.is_placeholder for i in inputs)
        if any(i._shape is None or i._dynamic_axes is None for i in inputs):
            # an input of unknown type (a placeholder): the outputs' types are inferred once it is replaced; how
            # many there are, CNTK takes from infer_outputs() already (where it manages with unknown inputs)
            try:
                count = len(self.infer_outputs())
            except Exception:
                count = 1
            return [make_output(None, None, False, None, name, self, k, needs_gradient=grad)
                    for k in range(max(count, 1))]
        # a declared output needs a gradient as its output_variable() says (True by default), as in CNTK 2.7, also
        # over inputs that need none (backward is still called only where an input needs a gradient)
        return [make_output(o._shape, o._dtype, o._is_sparse, o._dynamic_axes, o.name, self, k,
                            needs_gradient=o.needs_gradient)
                for k, o in enumerate(self._declared_outputs())]

    def _declared_outputs(self):
        try:
            return self.infer_outputs()
        except Exception as e:
            raise RuntimeError("%s.infer_outputs() failed: %s: %s" % (type(self).__name__, type(e).__name__, e)) \
                from e

    def infer_outputs(self):
        raise NotImplementedError("%s must implement infer_outputs()" % type(self).__name__)

    # CNTK's base signatures (those of Function.forward / backward); a subclass overrides them with
    # forward(self, arguments, device=None, outputs_to_retain=None) and backward(self, state, root_gradients[,
    # variables])
    def forward(self, arguments, outputs=None, keep_for_backward=None, device=None, as_numpy=True):
        raise NotImplementedError("%s must implement forward()" % type(self).__name__)

    def backward(self, state, root_gradients, variables=None, as_numpy=True):
        raise NotImplementedError("%s does not implement backward(), so no gradient flows through it"
                                  % type(self).__name__)

    def clone(self, cloned_inputs):
        """A new instance on cloned_inputs (assumes the constructor takes the inputs, then name=)."""
        return self.__class__(*cloned_inputs, name=self.name)

    def _clone_primitive(self, new_inputs):
        return self.clone(list(new_inputs))

    def serialize(self):
        """The state to save with the model (a dict of plain Python values); override to keep some."""
        return {}

    @staticmethod
    def deserialize(inputs, name, state):
        raise NotImplementedError("a user function must implement deserialize(inputs, name, state) to be loaded")

    @classmethod
    def _op_name(cls):
        return "%s.%s" % (cls.__module__, cls.__name__)

    @property
    def op_name(self):
        return type(self)._op_name()

    def _found_view(self):
        return _FoundUserFunction.of(self)


class _FoundUserFunction(Function):
    """A user function as a search by name or uid gives it (CNTK hands out a plain Function, not the Python
    object): the same node, with Function's methods and the user's attributes (forward_calls, ...), and
    serialize() giving CNTK's dictionary of a user function (class, module, op_name, the user's serialize() state
    under 'state', version)."""

    __slots__ = ("_user_function",)

    @staticmethod
    def of(udf):
        view = object.__new__(_FoundUserFunction)
        for field in Function.__slots__:
            if field not in ("__weakref__", "__dict__") and hasattr(udf, field):
                object.__setattr__(view, field, object.__getattribute__(udf, field))
        view.__dict__ = udf.__dict__  # the user's own attributes, shared
        view._user_function = udf
        return view

    def serialize(self):
        udf = self._user_function
        cls = type(udf)
        return {"class": cls.__name__, "module": cls.__module__, "op_name": udf.op_name,
                "state": udf.serialize(), "version": 1}

    @property
    def op_name(self):
        return "UserFunction"

    def _clone_primitive(self, new_inputs):
        return self._user_function._clone_primitive(new_inputs)


def user_function(user_func):
    """The Function computing a UserFunction instance (a Function passes through unchanged). As in CNTK, the
    composite made here has no name of its own (its root keeps the user function's)."""
    if isinstance(user_func, UserFunction):
        return Function._composite(user_func.outputs, name="")
    if isinstance(user_func, Function):
        return user_func
    raise TypeError("user_function: expected a UserFunction instance, got %s" % type(user_func).__name__)
