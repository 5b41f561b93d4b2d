"""CNTK's CTC criterion: labels_to_graph (LabelsToGraph) and forward_backward (ForwardBackward).

labels_to_graph passes its frame-level labels through unchanged (value and gradient); forward_backward
requires its output as the label graph (CNTK's rule) and returns, for the whole minibatch, minus the sum over
utterances of the CTC log likelihood of the network output (log-softmax over each frame's values), see
_ctc_lattice. Its gradient is CNTK's: softmax(output) - (per-frame normalized) posterior for the network
output, and -log_softmax(output) for the label graph.
"""
import numpy as np
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, register_elementwise, sanitize_operands
from ._ctc_lattice import forward_backward_posteriors

register_elementwise("LabelsToGraph", lambda x: x)


def labels_to_graph(labels, name=''):
    """The label graph forward_backward reads: frame-level one-hot labels, 2 at the first frame of a phone."""
    (labels,) = sanitize_operands(labels, names=["labels"])
    return make("LabelsToGraph", [labels], None, name)


class _ForwardBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, graph, features, mask, blank, delay):
        logp = torch.log_softmax(features, -1)
        log_likelihood, posterior = forward_backward_posteriors(graph, logp, mask, blank, delay)
        ctx.save_for_backward(logp, posterior, mask)
        return -log_likelihood.sum()

    @staticmethod
    def backward(ctx, grad):
        logp, posterior, mask = ctx.saved_tensors
        frames = mask[..., None]
        zero = torch.zeros_like(logp)
        grad_graph = torch.where(frames, -grad * logp, zero) if ctx.needs_input_grad[0] else None
        grad_features = torch.where(frames, grad * (logp.exp() - posterior), zero) \
            if ctx.needs_input_grad[1] else None
        return grad_graph, grad_features, None, None, None


def _per_frame(x, n_dyn):
    """(B, T, C): a value without a sequence axis is one frame per sample."""
    x = x.reshape(tuple(x.shape[:n_dyn]) + (-1,))
    return x.unsqueeze(1) if n_dyn == 1 else x


def _forward_backward(graph, features, masks, blank, delay, n_dyn):
    g, f = _per_frame(graph, n_dyn), _per_frame(features, n_dyn)
    mask = masks[0] if masks[0] is not None else masks[1]
    if mask is None:
        mask = torch.ones(f.shape[:2], dtype=torch.bool, device=f.device)
    return _ForwardBackward.apply(g.to(f.dtype), f, mask, blank, delay)


def _size(v):
    return None if v._shape is None or any(d < 0 for d in v._shape) else int(np.prod(v._shape, dtype=np.int64))


def _graph_maker(graph):
    """The variable that really carries graph (looking inside blocks) and the Function computing it."""
    owner = graph.owner if graph.is_output else None
    while owner is not None and owner.is_block:
        graph = owner.block_root.outputs[[o.uid for o in owner.outputs].index(graph.uid)]
        owner = graph.owner if graph.is_output else None
    return graph, owner


def _infer(inputs, attributes):
    graph, features = inputs
    source, owner = _graph_maker(graph)
    if not source.is_placeholder and (owner is None or owner.op_name != "LabelsToGraph"):
        raise ValueError("forward_backward: graph must be the output of labels_to_graph(labels), got %s"
                         % ("the output of " + owner.op_name if owner is not None else source))
    if graph._dynamic_axes is not None and features._dynamic_axes is not None:
        if not graph._dynamic_axes:
            raise ValueError("forward_backward: graph must have a batch axis (one utterance per sequence)")
        if tuple(graph._dynamic_axes) != tuple(features._dynamic_axes):
            raise ValueError("forward_backward: graph and features must have the same dynamic axes (the same "
                             "sequences), got %s and %s" % (list(graph._dynamic_axes), list(features._dynamic_axes)))
    sizes = _size(graph), _size(features)
    if None not in sizes:
        if sizes[0] != sizes[1]:
            raise ValueError("forward_backward: graph and features must have the same total size per frame, got "
                             "shapes %s and %s" % (graph._shape, features._shape))
        if attributes["blank"] >= sizes[1]:
            raise ValueError("forward_backward: blankTokenId %d is out of range for %d labels per frame"
                             % (attributes["blank"], sizes[1]))
    return [OutputSpec((), promote(graph._dtype, features._dtype), ())]


register_op("ForwardBackward", _infer, _forward_backward, uses_masks=True,
            prepare=lambda node: {"blank": node._attributes["blank"], "delay": node._attributes["delay"],
                                  "n_dyn": node._inputs[1]._n_dynamic},
            public_attributes=lambda attrs, node: {"BlankTokenId": int(attrs["blank"]),
                                                   "DelayConstraint": int(attrs["delay"])})


def forward_backward(graph, features, blankTokenId, delayConstraint=-1, name=''):
    """CNTK's CTC training criterion: minus the summed log likelihood of the label sequences in graph
    (labels_to_graph of frame labels marked with 2 at phone starts) under softmax(features).

    blankTokenId: the label id of the blank; delayConstraint: -1 for plain CTC, or the number of frames after
    the next phone's start by which each phone must have been emitted (CNTK's constrained alignment).
    """
    if isinstance(blankTokenId, bool) or not isinstance(blankTokenId, (int, np.integer)) or blankTokenId < 0:
        raise ValueError("forward_backward: blankTokenId must be a non-negative integer, got %r" % (blankTokenId,))
    if isinstance(delayConstraint, bool) or not isinstance(delayConstraint, (int, np.integer)) \
            or delayConstraint < -1:
        raise ValueError("forward_backward: delayConstraint must be -1 (no constraint) or a non-negative integer, "
                         "got %r" % (delayConstraint,))
    graph, features = sanitize_operands(graph, features, names=["graph", "features"])
    return make("ForwardBackward", [graph, features], {"blank": int(blankTokenId), "delay": int(delayConstraint)},
                name)
