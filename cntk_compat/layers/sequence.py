"""Layers over sequences: Delay, PastValueWindow, and the recurrences (Recurrence, RecurrenceFrom, Fold,
UnfoldFrom) that run a step function along a sequence by closing a loop through past_value/future_value."""
import inspect
import types

from ..core.function import Function
from ..core.variables import Constant
from ..default_options import default_override_or, get_default_override
from ..ops import combine, reconcile_dynamic_axes, sequence, splice
from .blocks import ForwardDeclaration
from .building import _get_initial_state_or_default, _inject_name, block
# names CNTK's cntk.layers.sequence also exposes (it is built on cntk.layers.blocks)
from ..variables import Parameter, Record  # noqa: F401,E402
from ..initializer import glorot_uniform  # noqa: F401,E402
from ..ops import alias, placeholder, sigmoid, slice, softplus, tanh, times  # noqa: F401,E402
from .blocks import (GRU, LSTM, BlockFunction, RNNStep, RNNUnit, Stabilizer, UntestedBranchError,  # noqa: F401
                     identity)

__all__ = [
    "Delay", "PastValueWindow", "RecurrenceFrom", "Recurrence", "Fold", "UnfoldFrom", "BlockFunction", "Constant",
    "ForwardDeclaration", "Function", "GRU", "LSTM", "Parameter", "RNNStep", "RNNUnit", "Record", "Stabilizer",
    "UntestedBranchError", "alias", "combine", "default_override_or", "get_default_override", "glorot_uniform",
    "identity", "placeholder", "reconcile_dynamic_axes", "sequence", "sigmoid", "slice", "softplus", "splice",
    "tanh", "times"
]

_MAX_STATES = 10


def Delay(T=1, initial_state=default_override_or(0), name=''):
    """The input sequence delayed by T steps (T < 0: looking -T steps into the future, 0: unchanged)."""
    initial_state = _get_initial_state_or_default(get_default_override(Delay, initial_state=initial_state))

    def delay(x):
        return sequence.delay(x, initial_state=initial_state, time_step=T)
    return block(delay, "Delay", name)


def PastValueWindow(window_size, axis, go_backwards=default_override_or(False), name=''):
    """(value, valid): the last window_size items of a sequence spliced along the static ``axis`` (the latest
    first; the first items with go_backwards), zero-padded, and a 1/0 mask of which rows are real items."""
    go_backwards = get_default_override(PastValueWindow, go_backwards=go_backwards)

    def nth(x, offset):
        if go_backwards:
            return sequence.first(Delay(-offset)(x))
        return sequence.last(Delay(offset)(x))

    def past_value_window(x):
        ones = sequence.broadcast_as(1, x)
        value = splice(*[nth(x, t) for t in range(window_size)], axis=axis, name='value')
        valid = splice(*[nth(ones, t) for t in range(window_size)], axis=axis, name='valid')
        return value, valid
    return block(past_value_window, "PastValueWindow", name)


def _sanitize_function(f):
    """A Python function as a Function (CNTK's helper of this name; libraries built on CNTK import it)."""
    return Function(f) if isinstance(f, types.FunctionType) else f


def _santize_step_function(f):
    """A step function as a Function; a Python one may neither read other CNTK variables nor create
    Parameters (its state must come in through its arguments). Named as CNTK names it, misspelling included:
    libraries built on CNTK (cntkx) import it."""
    if not isinstance(f, types.FunctionType):
        return f
    try:
        cntk_f = Function(f)
    except TypeError as e:
        if "parameters cannot be created" in str(e):
            raise TypeError("Recurrence: a Python step function cannot create Parameters; create them outside "
                            "and let the step function use them, or pass a layer such as LSTM()") from e
        raise
    params = inspect.signature(f).parameters.values()
    py_args = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and
               p.default is p.empty]
    if len(cntk_f.arguments) > len(py_args):
        extra = sorted({a.name or a.uid for a in cntk_f.arguments} - set(py_args))
        raise TypeError("Recurrence: the Python step function reads CNTK variables or placeholders other than "
                        "its arguments (%s); a step function has the signature (prev_state_1, ..., prev_state_n,"
                        " x) -> (state_1, ..., state_n)" % ", ".join(extra))
    return cntk_f


# the argument names of RecurrenceFrom's function, as CNTK names them (for up to _MAX_STATES states)
_STATE_NAMES = ("h", "c", "a", "b", "d", "e", "f", "g", "i", "j")


def RecurrenceFrom(step_function, go_backwards=default_override_or(False), return_full_state=False, name=''):
    """Like Recurrence, but the initial states are data: the result takes (initial_state_1, ...,
    initial_state_n, x). An initial state that is a sequence contributes its last item (first with
    go_backwards)."""
    go_backwards = get_default_override(RecurrenceFrom, go_backwards=go_backwards)
    step_function = _santize_step_function(step_function)
    state_args = step_function.signature[:-1]
    if len(step_function.outputs) != len(state_args):
        raise TypeError("RecurrenceFrom: the step function has %d state arguments but %d outputs; it must map "
                        "(prev_state_1, ..., prev_state_n, x) to n new states"
                        % (len(state_args), len(step_function.outputs)))
    if not 0 < len(state_args) <= _MAX_STATES:
        raise ValueError("RecurrenceFrom: a step function with %d state variables is not supported (1 to %d)"
                         % (len(state_args), _MAX_STATES))

    def recur(*args):
        initial_states, x = args[:-1], args[-1]
        forwards = [ForwardDeclaration(name=s.name) for s in state_args]
        previous = [sequence.delay(fwd, initial_state=init, time_step=-1 if go_backwards else 1)
                    for fwd, init in zip(forwards, initial_states)]
        out = step_function(*(previous + [x]))
        for fwd, var in zip(forwards, out.outputs):
            fwd.resolve_to(var)
        if return_full_state:
            return out
        first = out.outputs[0]
        reached = set(combine([first]).arguments)
        for init, var in zip(initial_states[1:], out.outputs[1:]):
            if init not in reached:
                # a state the first one never reads: CNTK still takes its initial state as an argument (its
                # loop stays in the graph), so the result keeps it, reading only the first state's values
                first = reconcile_dynamic_axes(first, var)
        return combine([first])

    state_names = list(_STATE_NAMES[:len(state_args)])
    recurrence_from = Function(_with_argument_names(recur, state_names + ["x"]))
    return _inject_name(recurrence_from, name)


def _with_argument_names(f, names):
    """f(*args) as a Python function with exactly these positional argument names (Function() reads them)."""
    source = "def recurrence_from(%s):\n    return _recur_(%s)\n" % (", ".join(names), ", ".join(names))
    scope = {"_recur_": f}
    exec(source, scope)  # a signature with one named argument per state; nothing user-supplied is executed
    return scope["recurrence_from"]


def Recurrence(step_function, go_backwards=default_override_or(False), initial_state=default_override_or(0),
               return_full_state=False, name=''):
    """Runs step_function (prev_state..., x) -> state... along the input sequence, starting from
    initial_state (a constant, or a tuple with one per state); returns the sequence of (first) states."""
    go_backwards = get_default_override(Recurrence, go_backwards=go_backwards)
    initial_state = _get_initial_state_or_default(get_default_override(Recurrence, initial_state=initial_state))
    step_function = _santize_step_function(step_function)
    n_states = len(step_function.signature) - 1
    if isinstance(initial_state, tuple) and len(initial_state) == 1:
        initial_state = initial_state[0]
    if not isinstance(initial_state, tuple):
        initial_state = (initial_state,) * max(n_states, 1)
    recurrence_from = RecurrenceFrom(step_function, go_backwards, return_full_state)

    @Function
    def recurrence(x):
        return recurrence_from(*(initial_state + (x,)))
    return _inject_name(recurrence, name)


def Fold(folder_function, go_backwards=default_override_or(False), initial_state=default_override_or(0),
         return_full_state=False, name=''):
    """The final state of Recurrence(folder_function) (the first item's, with go_backwards): a reduction
    over the sequence, e.g. Fold(plus) sums it."""
    go_backwards = get_default_override(Fold, go_backwards=go_backwards)
    initial_state = get_default_override(Fold, initial_state=initial_state)
    recurrence = Recurrence(folder_function, go_backwards=go_backwards, initial_state=initial_state,
                            return_full_state=return_full_state)
    final = sequence.first if go_backwards else sequence.last
    fold = recurrence >> tuple(final for _ in recurrence.outputs)
    return _inject_name(fold, name)


def UnfoldFrom(generator_function, until_predicate=None, length_increase=1, name=''):
    """Generates a sequence from an initial state: each step applies generator_function (state -> output,
    or (output, new_state)) to the previous state. The result takes (initial_state, dynamic_axes_like): its
    length is that of dynamic_axes_like times length_increase, cut after the first step for which
    until_predicate is true."""
    generator_function = _as_function(generator_function)
    until_predicate = _as_function(until_predicate)
    if len(generator_function.signature) != 1 or not 1 <= len(generator_function.outputs) <= 2:
        raise TypeError("UnfoldFrom: generator_function must take one argument (the state) and return an output "
                        "or a tuple (output, new_state)")

    @Function
    def unfold_from(initial_state, dynamic_axes_like):
        out_axis = dynamic_axes_like
        if length_increase != 1:
            factors = sequence.broadcast_as(length_increase, out_axis)
            out_axis = sequence.where(factors)
        state_fwd = ForwardDeclaration(name='unfold_state_fwd')
        prev_state = sequence.delay(state_fwd, initial_state=initial_state, name='unfold_prev_state')
        z = generator_function(prev_state)
        output = z.outputs[0]
        new_state = z.outputs[1] if len(z.outputs) > 1 else output
        new_state = combine([reconcile_dynamic_axes(new_state, out_axis)], name='unfold_new_state')
        state_fwd.resolve_to(new_state.output)
        output = combine([output], name='unfold_output')
        if until_predicate is not None:
            valid_frames = Recurrence(lambda h, x: (1 - sequence.past_value(x)) * h, initial_state=1,
                                      name='valid_frames')(until_predicate(output))
            output = sequence.gather(output, valid_frames, name='valid_output')
        return output
    return _inject_name(unfold_from, name)


def _as_function(f):
    if isinstance(f, types.FunctionType):
        return Function(f)
    return f
