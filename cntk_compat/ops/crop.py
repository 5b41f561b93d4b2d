"""crop_manual (and the graph-analysing crop_automatic variants, which are not supported)."""
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands


def _crop_infer(inputs, attributes):
    x, ref = inputs
    if x._shape is None or ref._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    if len(x._shape) < 2 or len(ref._shape) < 2:
        raise ValueError("crop: node_input and node_referent need two spatial axes (..., height, width), got "
                         "shapes %s and %s" % (x._shape, ref._shape))
    (height, width), (in_h, in_w) = ref._shape[-2:], x._shape[-2:]
    top, left = attributes["offset_y"], attributes["offset_x"]
    if min(top, left) < 0 or (in_h >= 0 and top + height > in_h) or (in_w >= 0 and left + width > in_w):
        raise ValueError("crop: a %dx%d window at offset (y=%d, x=%d) does not fit the input of shape %s"
                         % (height, width, top, left, x._shape))
    return [OutputSpec(tuple(x._shape[:-2]) + (height, width), x._dtype, x._dynamic_axes)]


def _crop(x, ref, top, left, height, width):
    return x[..., top:top + height, left:left + width]


def _crop_prepare(node):
    a, ref = node._attributes, node._inputs[1]
    return {"top": a["offset_y"], "left": a["offset_x"], "height": ref._shape[-2], "width": ref._shape[-1]}


def _crop_public(attrs, node):
    if "offset_x" in attrs:
        return {"offset": [int(attrs["offset_x"]), int(attrs["offset_y"])]}
    return {}


register_op("Crop", _crop_infer, _crop, prepare=_crop_prepare, public_attributes=_crop_public)


def crop_manual(node_input, node_referent, offset_x, offset_y, name=''):
    """node_input cropped over its last two (spatial) axes to the spatial size of node_referent, starting at
    column offset_x and row offset_y."""
    x, ref = sanitize_operands(node_input, node_referent, names=["node_input", "node_referent"])
    return make("Crop", [x, ref], {"offset_x": int(offset_x), "offset_y": int(offset_y)}, name)


def crop_automatic(node_input, node_referent, name=''):
    raise NotImplementedError("crop_automatic: deriving crop offsets from the graph's convolution/pooling "
                              "geometry is not supported; use crop_manual with explicit offsets")


def crop_automatic_with_ancestors(node_input, node_referent, ancestor_input, ancestor_referent, name=''):
    raise NotImplementedError("crop_automatic_with_ancestors: deriving crop offsets from the graph's "
                              "convolution/pooling geometry is not supported; use crop_manual with explicit offsets")
