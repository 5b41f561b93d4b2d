"""Converting optimized_rnnstack (cuDNN) nodes to Recurrence layers, as CNTK's converter does.

optimized_rnnstack runs on any device here, so the conversion is not needed to run a model on CPU; it gives a
graph of ordinary LSTM/RNNStep layers (names ``<name>_<layer>``, or ``<name>_fw<layer>``/``<name>_bw<layer>``
when bidirectional) whose W/H/b come from the flat cuDNN weight. Like CNTK, GRU stacks are refused: cuDNN's GRU
(reset gate applied to the recurrent product) is not the GRU layer's.
"""
import numpy as np

from ..core.function import Function
from ..core.graph import depth_first_search
from ..ops.optimized_rnnstack import RECURRENT_OPS
from .converter import convert

__all__ = ["convert", "convert_optimized_rnnstack"]

OPTIMIZED_RNN_STACK = "OptimizedRNNStack"


def _is_optimized_rnnstack(node):
    return isinstance(node, Function) and node.root_function.op_name == OPTIMIZED_RNN_STACK


def _to_layer_gate_order(m, op):
    """cuDNN's LSTM gates i, f, g, o (along the last axis) in the LSTM layer's order i, g, f, o."""
    if op != "lstm":
        return m
    i, f, g, o = np.split(m, 4, axis=-1)
    return np.concatenate([i, g, f, o], axis=-1)


def _cell(op, hidden, name):
    from ..layers import LSTM, RNNStep
    from ..ops import relu, tanh
    if op == "lstm":
        return LSTM(hidden, name=name)
    return RNNStep(hidden, activation=relu if op == "rnnReLU" else tanh, name=name)


def _layers_of(stack):
    """A Function of Recurrence layers computing what the optimized_rnnstack Function ``stack`` computes."""
    from ..layers import Recurrence
    from ..ops import splice
    node = stack.root_function
    a = node.attributes
    hidden, layers, bidirectional, op = a["hiddenSize"], a["numLayers"], a["bidirectional"], a["recurrentOp"]
    if op not in RECURRENT_OPS or op == "gru":
        raise ValueError("convert_optimized_rnnstack: unsupported recurrent_op value %r (cuDNN's GRU differs from "
                         "the GRU layer; 'lstm', 'rnnReLU' and 'rnnTanh' convert)" % op)
    operand, weights = node.inputs[0], node.inputs[1]
    if any(d < 0 for d in weights.shape) or any(d < 0 for d in operand.shape):
        raise ValueError("convert_optimized_rnnstack: the weights of %s are not inferred yet" % stack)
    flat = np.asarray(weights.value).reshape(-1)
    gates, directions = RECURRENT_OPS[op], 2 if bidirectional else 1
    base = stack.name
    names = ["_fw", "_bw"] if bidirectional else ["_"]
    x, layer_input, offset, cells = operand, operand.shape[0], 0, []
    for layer in range(layers):
        outs = []
        for d in range(directions):
            cell = _cell(op, hidden, "%s%s%d" % (base, names[d], layer))
            outs.append(Recurrence(cell, go_backwards=d == 1)(x))
            matrices = []
            for cols in (layer_input, hidden):
                size = gates * hidden * cols
                matrices.append(flat[offset:offset + size].reshape(gates * hidden, cols).T)
                offset += size
            cells.append((outs[-1], cell.name, matrices))
        x = splice(*outs) if bidirectional else outs[0]
        layer_input = hidden * directions
    for out, cell_name, (w, h) in cells:
        b = flat[offset:offset + gates * hidden] + flat[offset + gates * hidden:offset + 2 * gates * hidden]
        offset += 2 * gates * hidden
        found = out.find_by_name(cell_name, -1)
        found.W.value = np.ascontiguousarray(_to_layer_gate_order(w, op))
        found.H.value = np.ascontiguousarray(_to_layer_gate_order(h, op))
        found.b.value = _to_layer_gate_order(b, op)
    return x


def convert_optimized_rnnstack(cudnn_model):
    """``cudnn_model`` with each optimized_rnnstack node replaced by Recurrence layers holding a copy of its
    weights; the model itself when it has none."""
    if not depth_first_search(cudnn_model, _is_optimized_rnnstack, depth=-1):
        return cudnn_model
    return convert(cudnn_model, _is_optimized_rnnstack, _layers_of)
