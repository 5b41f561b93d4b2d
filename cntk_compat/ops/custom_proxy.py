"""custom_proxy_op: a node that stands for a custom op in a saved model (CNTK uses it to export models whose
custom ops take a different number of operands). It records the op's name, its output's shape and element
type (int8 and int16 included) and its operands; it saves and loads like any op, but computes nothing."""
import numpy as np

from ..core.dtypes import data_type_code, sanitize_dtype
from ..core.registry import OutputSpec, register_op
from ..core.variables import sanitize_shape
from ._common import dynamic_axes_of, make
from ..core.function import as_variable


def _infer(inputs, attributes):
    return [OutputSpec(attributes["output_shape"], attributes["output_dtype"], dynamic_axes_of(inputs),
                       needs_gradient=False)]


def _compute(*inputs, custom_op=None):
    raise RuntimeError("custom_proxy_op: the proxy of custom op %r records it for a saved model and cannot be "
                       "evaluated; build the graph with the op itself to compute it" % custom_op)


def _public(attributes, node):
    return {"customOp": attributes["custom_op"], "outputShape": tuple(attributes["output_shape"]),
            "newDataType": data_type_code(attributes["output_dtype"])}


register_op("CustomProxyOp", _infer, _compute, prepare=lambda node: {"custom_op": node._attributes["custom_op"]},
            public_attributes=_public, mixed_dtypes=True)


def custom_proxy_op(custom_op, output_shape, output_data_type, *operands, **kw_name):
    """A proxy node for the custom op named ``custom_op`` with an output of ``output_shape`` and
    ``output_data_type`` (float16/32/64, int8 or int16) over ``operands`` (or one list of them); the operands'
    own types are kept. ``name`` may be given as a keyword."""
    unknown = set(kw_name) - {"name"}
    if unknown:
        raise TypeError("custom_proxy_op: unexpected keyword arguments %s (only name)" % ", ".join(sorted(unknown)))
    if not isinstance(custom_op, str):
        raise TypeError("custom_proxy_op: custom_op must be the op's name (a str), got %r" % (custom_op,))
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = operands[0]
    inputs = []
    for o in operands:
        outputs = getattr(o, "outputs", None)
        inputs.extend(outputs if outputs is not None and len(outputs) > 1 else [as_variable(o)])
    dtype = sanitize_dtype(output_data_type, "custom_proxy_op: output_data_type", storage=True)
    if dtype is None:
        raise ValueError("custom_proxy_op: output_data_type must be a data type, got %r" % (output_data_type,))
    attributes = {"custom_op": custom_op, "output_shape": sanitize_shape(output_shape, "custom_proxy_op: output_shape"),
                  "output_dtype": np.dtype(dtype)}
    return make("CustomProxyOp", inputs, attributes, kw_name.get("name", ""))


__all__ = ["custom_proxy_op"]
