"""cntk.internal.utils"""
import numbers

import numpy as np

from ..core.function import Function
from ..core.hooks import hook
from ..core.value import NDArrayView, Value
from ..core.variables import Variable
from ..ops._common import is_symbolic, sanitize_operand

__all__ = [
    "NDArrayView", "get_python_function_arguments", "map_function_arguments", "get_data_type", "eval"
]


def sanitize_input(arg, fallback_dtype=np.float32, reshape=None):
    """As CNTK's: Variables and Functions as they are; data (numbers, arrays, lists) a Constant of
    ``fallback_dtype`` (reshaped to ``reshape``); anything else, or an empty list, a ValueError."""
    if is_symbolic(arg):
        return arg
    if reshape is not None and isinstance(arg, (numbers.Number, np.ndarray, list, tuple)) and \
            not (isinstance(arg, list) and not arg):
        arg = np.reshape(np.asarray(arg, dtype=fallback_dtype), reshape)
    return sanitize_operand(arg, fallback_dtype, "input")


def _ones_like(batch, precision):
    if isinstance(batch, list):
        return [np.ones_like(b, dtype=precision) for b in batch]
    return np.ones_like(batch, dtype=precision)


def eval(op, arguments=None, precision=None, device=None, backward_pass=False, expected_backward=None):
    """Forward (and optionally backward with all-ones root gradients) of ``op``; used by CNTK's op tests."""
    if backward_pass:
        state, forward_output = op.forward(arguments, op.outputs, op.outputs, device=device)
        if expected_backward is None:
            expected_backward = arguments
        root_gradients = {v: _ones_like(o, precision) for v, o in forward_output.items()}
        backward_output = op.backward(state, root_gradients, expected_backward)
        return forward_output, backward_output
    _, forward_output = op.forward(arguments, op.outputs, None, device=device)
    return forward_output, None


def get_python_function_arguments(f):
    """(names of the parameters without defaults, annotations) of a Python function: a parameter with a
    default always keeps it when a CNTK Function is made of f."""
    import inspect
    params = inspect.signature(f).parameters
    names = [n for n, p in params.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    return names, dict(getattr(f, "__annotations__", {}))


def map_function_arguments(params, params_dict, *args, **kwargs):
    """{parameter: argument} from positional and keyword arguments, as Python binds them, except that every
    parameter must be given (CNTK Functions have no optional arguments)."""
    arg_map = dict(zip(params, args))
    for name, arg in kwargs.items():
        if name not in params_dict:
            raise TypeError("got an unexpected keyword argument '%s'" % name)
        param = params_dict[name]
        if param in arg_map:
            raise SyntaxError("got multiple values for argument '%s'" % name)
        arg_map[param] = arg
    if len(arg_map) != len(params):
        missing = [getattr(p, "name", p) for p in params if p not in arg_map]
        raise TypeError("missing argument(s): %s" % ", ".join(str(m) for m in missing))
    return arg_map


def _dtype_of(arg):
    if isinstance(arg, Function):
        if len(arg.outputs) > 1:
            raise ValueError("expected single output, but got %i" % len(arg.outputs))
        arg = arg.outputs[0]
    return None if arg.dtype is None else np.dtype(arg.dtype).type


def get_data_type(*args):
    """The widest float type among the arguments: graph objects (Variables, Functions, Values, NDArrayViews)
    decide over plain data; placeholders are skipped; Python numbers and numpy integers count as float32."""
    graph_types, data_types = set(), set()
    for arg in args:
        if isinstance(arg, Variable) and arg.is_placeholder:
            continue
        if isinstance(arg, (Variable, Function, Value, NDArrayView)):
            dt = _dtype_of(arg) if isinstance(arg, (Variable, Function)) else np.dtype(arg.dtype).type
            if dt in (np.float64, np.float32, np.float16):
                graph_types.add(dt)
        elif isinstance(arg, (np.ndarray, np.inexact)):
            if arg.dtype not in (np.float32, np.float64, np.float16):
                raise ValueError('NumPy type "%s" is not supported' % arg.dtype)
            data_types.add(arg.dtype.type)
        else:
            np.asarray(arg, dtype=np.float32)  # raises for what cannot be data
            data_types.add(np.float32)
    for found in (graph_types, data_types):
        if found:
            for dt in (np.float64, np.float32, np.float16):
                if dt in found:
                    return dt
    return None


def _to_cntk_dict_value(py_value):
    """CNTK's conversion of a Python value (a numpy array as a tensor) to a cntk_py.DictionaryValue."""
    return hook("dictionary_value")(py_value)
