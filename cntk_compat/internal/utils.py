"""cntk.internal.utils"""
import numpy as np

from ..core.function import as_variable
from ..ops._common import is_symbolic, sanitize_operand


def sanitize_input(arg, fallback_dtype=np.float32, reshape=None):
    if is_symbolic(arg):
        return as_variable(arg)
    return sanitize_operand(np.asarray(arg, dtype=fallback_dtype) if reshape is None else
                            np.asarray(arg, dtype=fallback_dtype).reshape(reshape), fallback_dtype)


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
    import inspect
    params = inspect.signature(f).parameters
    names = [n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names, dict(getattr(f, "__annotations__", {}))
