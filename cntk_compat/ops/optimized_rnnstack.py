"""optimized_rnnstack: CNTK's cuDNN RNN stack (OptimizedRNNStack), run by torch's fused RNN kernels on any device.

All weights live in one flat Parameter in cuDNN's packed order (what CNTK's files hold and its converter to
layers reads): first, layer by layer and within a layer direction by direction (forward, then backward), the
input matrix (gates*hidden x layer_input, row-major) and the recurrent matrix (gates*hidden x hidden); then,
in the same order, the input bias and the recurrent bias (gates*hidden each). Gate order is cuDNN's, which is
torch's: LSTM i, f, g, o; GRU r, z, n (with the reset gate applied to the recurrent product plus its bias).
The result of a bidirectional layer is [forward, backward] per step; CNTK 2.7 ran the op on GPUs only.
"""
import numpy as np
import torch
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from ..core.function import as_variable
from ..core.registry import register_op
from ._common import make, spec_like

RECURRENT_OPS = {"lstm": 4, "gru": 3, "rnnReLU": 1, "rnnTanh": 1}
_KERNELS = {"lstm": "lstm", "gru": "gru", "rnnReLU": "rnn_relu", "rnnTanh": "rnn_tanh"}


def parameter_count(input_size, hidden_size, num_layers, bidirectional, recurrent_op):
    """How many values the flat weight of such a stack holds."""
    gates, directions = RECURRENT_OPS[recurrent_op], 2 if bidirectional else 1
    total, layer_input = 0, input_size
    for _ in range(num_layers):
        total += (layer_input + hidden_size + 2) * hidden_size * gates * directions
        layer_input = hidden_size * directions
    return total


def _infer(inputs, attributes):
    x, w = inputs
    hidden, layers = attributes["hiddenSize"], attributes["numLayers"]
    bidirectional, op = attributes["bidirectional"], attributes["recurrentOp"]
    if x._shape is not None:
        if len(x._shape) != 1:
            raise ValueError("optimized_rnnstack: the operand must have rank 1 (one vector per step), got shape %s"
                             % (x._shape,))
        if x._shape[0] >= 0 and w._shape is not None:
            need = parameter_count(x._shape[0], hidden, layers, bidirectional, op)
            known = int(np.prod([d for d in w._shape if d >= 0])) if w._shape else 1
            unknown = [i for i, d in enumerate(w._shape) if d < 0]
            if len(unknown) == 1 and (w.is_parameter or w.is_constant) and need % known == 0:
                shape = list(w._shape)
                shape[unknown[0]] = need // known
                w._resolve_inferred_shape(tuple(shape))
            elif not unknown and known != need:
                raise ValueError("optimized_rnnstack: a %d-layer %s%s stack with hidden_size %d over inputs of "
                                 "dimension %d needs %d weights, but the weights %s hold %d"
                                 % (layers, "bidirectional " if bidirectional else "", op, hidden, x._shape[0],
                                    need, w._shape, known))
    return [spec_like(x, (hidden * (2 if bidirectional else 1),))]


def _split_weights(flat, input_size, hidden, layers, directions, gates):
    """The flat cuDNN weight as torch's list: per layer, per direction, w_ih, w_hh, b_ih, b_hh."""
    flat = flat.reshape(-1)
    matrices, offset, layer_input = [], 0, input_size
    for _ in range(layers):
        for _ in range(directions):
            pair = []
            for cols in (layer_input, hidden):
                size = gates * hidden * cols
                pair.append(flat[offset:offset + size].reshape(gates * hidden, cols))
                offset += size
            matrices.append(pair)
        layer_input = hidden * directions
    weights = []
    for w_ih, w_hh in matrices:
        b_ih = flat[offset:offset + gates * hidden]
        b_hh = flat[offset + gates * hidden:offset + 2 * gates * hidden]
        offset += 2 * gates * hidden
        weights += [w_ih, w_hh, b_ih, b_hh]
    if offset != flat.numel():
        raise ValueError("optimized_rnnstack: the weights hold %d values, the stack needs %d" % (flat.numel(), offset))
    return weights


def _rnnstack(x, w, masks, hidden, layers, bidirectional, recurrent_op, training):
    mask = masks[0]
    if mask is None:  # no sequence axis: each sample is a sequence of one step
        x = x[:, None]
        mask = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
    directions = 2 if bidirectional else 1
    weights = _split_weights(w.to(x.dtype), x.shape[-1], hidden, layers, directions, RECURRENT_OPS[recurrent_op])
    batch, steps = mask.shape
    lengths = mask.sum(1)
    if bool((lengths == 0).any()):
        raise ValueError("optimized_rnnstack: cannot run over an empty sequence")
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    h0 = x.new_zeros((layers * directions, batch, hidden))
    kernel = getattr(torch._VF, _KERNELS[recurrent_op])
    hx = (h0, h0) if recurrent_op == "lstm" else h0
    data = kernel(packed.data, packed.batch_sizes, hx, weights, True, layers, 0.0, training, bidirectional)[0]
    out = pad_packed_sequence(PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices),
                              batch_first=True, total_length=steps)[0]
    return out if masks[0] is not None else out[:, 0]


def _prepare(node):
    a = node._attributes
    return {"hidden": a["hiddenSize"], "layers": a["numLayers"], "bidirectional": a["bidirectional"],
            "recurrent_op": a["recurrentOp"]}


register_op("OptimizedRNNStack", _infer, _rnnstack, prepare=_prepare, uses_masks=True, uses_training=True)


def optimized_rnnstack(operand, weights, hidden_size, num_layers, bidirectional=False, recurrent_op='lstm',
                       name=''):
    """A stack of num_layers RNN layers (recurrent_op 'lstm', 'gru', 'rnnReLU' or 'rnnTanh') whose weights are
    one flat Parameter in cuDNN's packed layout (give it an InferredDimension to have its size inferred)."""
    if recurrent_op not in RECURRENT_OPS:
        raise ValueError("optimized_rnnstack: unsupported recurrent_op value %r (expected one of %s)"
                         % (recurrent_op, ", ".join(sorted(RECURRENT_OPS))))
    for arg, value in (("hidden_size", hidden_size), ("num_layers", num_layers)):
        if int(value) != value or value < 1:
            raise ValueError("optimized_rnnstack: %s must be a positive integer, got %r" % (arg, value))
    operand, weights = as_variable(operand, "operand"), as_variable(weights, "weights")
    return make("OptimizedRNNStack", [operand, weights],
                {"hiddenSize": int(hidden_size), "numLayers": int(num_layers), "bidirectional": bool(bidirectional),
                 "recurrentOp": recurrent_op}, name)
