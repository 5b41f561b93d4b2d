"""Converting optimized_rnnstack (cuDNN) nodes to layers.

cntk-compat cannot build optimized_rnnstack nodes (the op raises NotImplementedError), so a graph holding one
cannot exist here: a model without such nodes is returned as it is, as CNTK's converter does.
"""
from ..core.graph import depth_first_search
from .converter import convert

__all__ = ["convert", "convert_optimized_rnnstack"]

OPTIMIZED_RNN_STACK = "OptimizedRNNStack"


def _is_optimized_rnnstack(node):
    return hasattr(node, "root_function") and node.root_function.op_name == OPTIMIZED_RNN_STACK


def convert_optimized_rnnstack(cudnn_model):
    """``cudnn_model`` with its optimized_rnnstack nodes replaced by Recurrence layers (it has none here:
    cntk-compat cannot create them), so the model itself is returned."""
    found = depth_first_search(cudnn_model, _is_optimized_rnnstack, depth=-1)
    if found:
        raise NotImplementedError("convert_optimized_rnnstack: converting %d optimized_rnnstack node(s) is not "
                                  "supported by cntk-compat" % len(found))
    return cudnn_model
