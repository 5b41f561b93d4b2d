"""The recurrent cells LSTM, GRU and RNNStep: one step of a recurrence as a block Function of
(previous states..., x). Recurrence() (layers/sequence.py) runs them over a sequence.

The gate projections are stacked along the last axis (input gate, cell input, forget gate, output gate for
LSTM; update, reset and candidate for GRU), so one ``times`` computes all gates and ``slice`` splits them.
"""
import warnings

from ..core.variables import InferredDimension, Parameter
from ..default_options import default_override_or, get_default_override
from ..initializer import glorot_uniform
from ..ops import sigmoid, slice, tanh, times
from .building import Stabilizer, _as_tuple, block

__all__ = ["LSTM", "GRU", "RNNStep", "RNNUnit"]

_STACKED_INPUT = {"RNNStep": 1, "GRU": 3, "LSTM": 4}   # gate blocks in W and b
_STACKED_HIDDEN = {"RNNStep": 1, "GRU": 2, "LSTM": 4}  # gate blocks in H


def _gate(stacked, index, dim):
    # stacked along the last axis, as CNTK's stack_axis = -1: the projection of an input with leading axes
    # (e.g. an attention context of shape (1, 1, d) spliced into x) keeps them
    return slice(stacked, -1, index * dim, (index + 1) * dim)


def _recurrent_cell(kind, shape, cell_shape, activation, use_peepholes, init, init_bias,
                    enable_self_stabilization, name):
    shape = _as_tuple(shape)
    has_projection = cell_shape is not None
    cell_shape = _as_tuple(cell_shape) if has_projection else shape
    if len(shape) != 1 or len(cell_shape) != 1:
        raise ValueError("%s: shape and cell_shape must be vectors (rank-1 tensors), got shape %s and cell_shape %s"
                         % (kind, shape, cell_shape))
    dim = cell_shape[0]
    b = Parameter((dim * _STACKED_INPUT[kind],), init=init_bias, name="b")
    W = Parameter((InferredDimension, dim * _STACKED_INPUT[kind]), init=init, name="W")
    H = Parameter(shape + (dim * _STACKED_HIDDEN[kind],), init=init, name="H")
    H1 = Parameter(shape + cell_shape, init=init, name="H1") if kind == "GRU" else None
    peepholes = [Parameter(cell_shape, init=init, name=n) for n in ("Ci", "Cf", "Co")] if use_peepholes else None
    P = Parameter(cell_shape + shape, init=init, name="P") if has_projection else None

    def stabilizer(n):
        return Stabilizer(enable_self_stabilization=enable_self_stabilization, name=n)
    s_dh, s_dc = stabilizer("dh_stabilizer"), stabilizer("dc_stabilizer")
    s_c, s_h = stabilizer("c_stabilizer"), stabilizer("P_stabilizer")

    def project(h):
        return times(s_h(h), P) if has_projection else h

    def lstm(dh, dc, x):
        dhs, dcs = s_dh(dh), s_dc(dc)
        gates = b + times(x, W) + times(dhs, H)
        i_in, c_in, f_in, o_in = (_gate(gates, k, dim) for k in range(4))
        if use_peepholes:
            Ci, Cf, Co = peepholes
            i_in, f_in = i_in + Ci * dcs, f_in + Cf * dcs
        c = sigmoid(f_in) * dc + sigmoid(i_in) * activation(c_in)
        if use_peepholes:
            o_in = o_in + Co * s_c(c)
        h = sigmoid(o_in) * activation(c)
        return project(h), c

    def gru(dh, x):
        dhs = s_dh(dh)
        from_x = b + times(x, W)
        from_h = times(dhs, H)
        z = sigmoid(_gate(from_x, 0, dim) + _gate(from_h, 0, dim))
        r = sigmoid(_gate(from_x, 1, dim) + _gate(from_h, 1, dim))
        candidate = activation(_gate(from_x, 2, dim) + times(dhs * r, H1))
        return project((1 - z) * candidate + z * dhs)

    def rnn_step(dh, x):
        return project(activation(times(x, W) + times(s_dh(dh), H) + b))

    step = {"LSTM": lstm, "GRU": gru, "RNNStep": rnn_step}[kind]
    return block(step, kind, name)


def LSTM(shape, cell_shape=None, activation=default_override_or(tanh), use_peepholes=default_override_or(False),
         init=default_override_or(glorot_uniform()), init_bias=default_override_or(0),
         enable_self_stabilization=default_override_or(False), name=""):
    """One LSTM step (prev_h, prev_c, x) -> (h, c); parameters W (input, 4*cell), H (shape, 4*cell), b (4*cell),
    peepholes Ci/Cf/Co, projection P (cell_shape, shape) when cell_shape is given."""
    return _recurrent_cell(
        "LSTM", shape, cell_shape,
        activation=get_default_override(LSTM, activation=activation),
        use_peepholes=get_default_override(LSTM, use_peepholes=use_peepholes),
        init=get_default_override(LSTM, init=init), init_bias=get_default_override(LSTM, init_bias=init_bias),
        enable_self_stabilization=get_default_override(LSTM, enable_self_stabilization=enable_self_stabilization),
        name=name)


def GRU(shape, cell_shape=None, activation=default_override_or(tanh), init=default_override_or(glorot_uniform()),
        init_bias=default_override_or(0), enable_self_stabilization=default_override_or(False), name=""):
    """One GRU step (prev_h, x) -> h: h = (1 - z) * activation(Wc x + bc + (r * prev_h) H1) + z * prev_h."""
    return _recurrent_cell(
        "GRU", shape, cell_shape, activation=get_default_override(GRU, activation=activation), use_peepholes=False,
        init=get_default_override(GRU, init=init), init_bias=get_default_override(GRU, init_bias=init_bias),
        enable_self_stabilization=get_default_override(GRU, enable_self_stabilization=enable_self_stabilization),
        name=name)


def RNNStep(shape, cell_shape=None, activation=default_override_or(sigmoid),
            init=default_override_or(glorot_uniform()), init_bias=default_override_or(0),
            enable_self_stabilization=default_override_or(False), name=""):
    """One plain RNN step (prev_h, x) -> activation(x W + prev_h H + b)."""
    return _recurrent_cell(
        "RNNStep", shape, cell_shape, activation=get_default_override(RNNStep, activation=activation),
        use_peepholes=False, init=get_default_override(RNNStep, init=init),
        init_bias=get_default_override(RNNStep, init_bias=init_bias),
        enable_self_stabilization=get_default_override(RNNStep, enable_self_stabilization=enable_self_stabilization),
        name=name)


def RNNUnit(shape, cell_shape=None, activation=default_override_or(sigmoid),
            init=default_override_or(glorot_uniform()), init_bias=default_override_or(0),
            enable_self_stabilization=default_override_or(False), name=""):
    """Deprecated name of RNNStep."""
    warnings.warn("RNNUnit will be removed in future versions; use RNNStep, which is identical except for its name",
                  DeprecationWarning)
    return _recurrent_cell(
        "RNNStep", shape, cell_shape, activation=get_default_override(RNNUnit, activation=activation),
        use_peepholes=False, init=get_default_override(RNNUnit, init=init),
        init_bias=get_default_override(RNNUnit, init_bias=init_bias),
        enable_self_stabilization=get_default_override(RNNUnit, enable_self_stabilization=enable_self_stabilization),
        name=name)
