"""What every layer is built from: block() (a Python function as a named block Function), identity,
Stabilizer, and the naming and initializer helpers."""
import numpy as np

from ..core.function import Function
from ..core.variables import Constant, Parameter
from ..default_options import default_override_or, get_default_override
from ..ops import alias, combine, softplus
from ..ops._geometry import option_tuple


def UntestedBranchError(name):
    """Raised by code paths that CNTK never exercised."""
    raise NotImplementedError("Untested code branch: " + name)


def _inject_name(f, name):
    """Give a layer's result the instance name ``name`` (an alias, or a named combine for several outputs)."""
    if not name:
        return f
    if not isinstance(f, Function):
        f = Function(f)
    named = alias(f, name=name) if len(f.outputs) == 1 else combine(list(f.outputs), name=name)
    # f's arguments in f's order (@Function's Python order), as CNTK's graph keeps them
    return Function._composite(list(named.outputs), arg_order=list(f.arguments), same_as=named)


def _initializer_for(init, rank_params=None):
    """init ready for Parameter(): numbers pass through, random initializers get the ranks of rank_params (a dict
    with output_rank and/or filter_rank, CNTK's signature: scripts call it) as CNTK's initializer_with_rank gives
    them, which refuses other values, such as arrays, with a TypeError; without rank_params anything passes."""
    if init is None:
        raise ValueError("init parameter cannot be None")
    if np.isscalar(init) or not rank_params:
        return init
    if not hasattr(init, "with_rank"):
        raise TypeError("init must be a number or a cntk.initializer initializer here, got %s" % type(init).__name__)
    return init.with_rank(rank_params.get("output_rank"), rank_params.get("filter_rank"))


def _get_initial_state_or_default(initial_state):
    """A recurrence's initial state: None is Constant(0), a number a Constant of shape (1,), tuples elementwise."""
    if isinstance(initial_state, tuple):
        return tuple(_get_initial_state_or_default(s) for s in initial_state)
    if initial_state is None:
        return Constant(0)
    if np.isscalar(initial_state):
        return Constant(initial_state, shape=(1,))
    return initial_state


def _as_tuple(x):
    # as CNTK's _as_tuple: any sequence (a numpy array or a range too), a scalar as one element
    return () if x is None else option_tuple(x)


@Function
def identity(keep):
    """The identity function (for layers that take an activation when none is wanted)."""
    return combine([keep])


def Stabilizer(steepness=4, enable_self_stabilization=default_override_or(True), name=""):
    """Self-stabilizer: multiplies its input by a learnable scalar softplus(beta) (1 at the start)."""
    enable_self_stabilization = get_default_override(Stabilizer, enable_self_stabilization=enable_self_stabilization)
    if not enable_self_stabilization:
        return identity
    init_param = np.log(np.exp(steepness) - 1) / steepness  # softplus(steepness * init_param) == 1
    param = Parameter((), init=init_param, name="alpha")
    beta = softplus(param, steepness=steepness)

    def stabilize(x):
        return beta * x
    return block(stabilize, "Stabilizer", name)


def block(fn, op_name, name=""):
    """The block Function op_name wrapping the Python function fn (one placeholder per argument)."""
    return Function._from_python(fn, make_block=True, op_name=op_name, name=name)
