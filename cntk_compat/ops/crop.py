"""crop_manual, and crop_automatic (with_ancestors), which derive the offsets from the graph's geometry."""
import math

from ..core.native_errors import announced
from ..core.registry import OutputSpec, register_op
from ._common import make, require_matching_dynamic_axes, sanitize_operands


def _native_call(inputs):
    """How CNTK 2.7 names a Crop it refuses while building it: its operands (parameters and constants aside),
    its output still unknown."""
    operands = [i for i in inputs if not (i.is_parameter or i.is_constant)]
    return "Function 'Crop: %s -> Unknown'" % ", ".join(repr(i) for i in operands)


def _crop_infer(inputs, attributes):
    x, ref = inputs
    axes = require_matching_dynamic_axes("Crop", inputs) if x._dynamic_axes is not None else None
    if x._shape is None or ref._shape is None:
        return [OutputSpec(None, x._dtype, axes)]
    if len(x._shape) != len(ref._shape):
        raise announced(RuntimeError, "%s: cropped input '%r' and reference input '%r' have different ranks."
                        % (_native_call(inputs), x, ref))
    if len(x._shape) < 2:
        raise announced(RuntimeError, "%s: cropped input '%r' must have rank at least 2." % (_native_call(inputs), x))
    # a window outside the input is refused when the graph is evaluated (CNTK validates it then), see _crop_prepare
    return [OutputSpec(tuple(x._shape[:-2]) + tuple(ref._shape[-2:]), x._dtype, axes)]


def _check_window(node_name, in_h, in_w, top, left, height, width):
    """CNTK 2.7 refuses, when it evaluates the graph, a crop window reaching past the input: columns first."""
    for axis, offset, size, extent in (("x", left, width, in_w), ("y", top, height, in_h)):
        if offset + size > extent:
            raise announced(RuntimeError, "Input is small to be cropped along %s dimension in crop node.\n\n"
                            "(cntk-compat: %s takes %d elements from offset %d of the %s axis, which has %d)"
                            % (axis, node_name, size, offset, axis, extent))


def _crop(x, ref, top, left, height, width, node_name):
    # a free (-3) size of the referent, e.g. of sequence.unpack, is its size in this minibatch
    height, width = (ref.shape[-2] if height < 0 else height), (ref.shape[-1] if width < 0 else width)
    if node_name is not None:   # a free size of the input or the referent: the window is checked on the data
        _check_window(node_name, x.shape[-2], x.shape[-1], top, left, height, width)
    return x[..., top:top + height, left:left + width]


def _crop_prepare(node):
    a, x, ref = node._attributes, node._inputs[0], node._inputs[1]
    top, left = a["offset_y"], a["offset_x"]
    (in_h, in_w), (height, width) = x._shape[-2:], ref._shape[-2:]
    node_name = "crop '%s'" % (node.name or node.uid)
    if a.get("rescaled"):
        raise announced(RuntimeError, "Composite transform has non 1 scale in crop node.\n\n(cntk-compat: the "
                        "positions of the referent %r map onto those of the input %r of %s at another scale)"
                        % (ref, x, node_name))
    if min(in_h, in_w, height, width) < 0:
        return {"top": top, "left": left, "height": height, "width": width, "node_name": node_name}
    _check_window(node_name, in_h, in_w, top, left, height, width)
    return {"top": top, "left": left, "height": height, "width": width, "node_name": None}


def _crop_public(attrs, node):
    if "offset_x" in attrs and not attrs.get("automatic"):  # CNTK reports no attributes for crop_automatic
        return {"offset": [int(attrs["offset_x"]), int(attrs["offset_y"])]}
    return {}


register_op("Crop", _crop_infer, _crop, prepare=_crop_prepare, public_attributes=_crop_public)


def crop_manual(node_input, node_referent, offset_x, offset_y, name=''):
    """node_input cropped over its last two (spatial) axes to the spatial size of node_referent, starting at
    column offset_x and row offset_y."""
    for argument, offset in (("offset_x", offset_x), ("offset_y", offset_y)):
        if not (isinstance(offset, int) and 0 <= offset < 2 ** 64):   # CNTK's size_t arguments
            raise NotImplementedError("Wrong number or type of arguments for overloaded function 'crop': %s=%r is "
                                      "not a size_t (a non-negative Python int)" % (argument, offset))
    x, ref = sanitize_operands(node_input, node_referent, names=["node_input", "node_referent"])
    return make("Crop", [x, ref], {"offset_x": int(offset_x), "offset_y": int(offset_y)}, name)


def _chain(var):
    """The variables from var back toward the graph's inputs along the data path (into blocks, through each op's
    data operand), each with the per-axis (scale, translate) of the last two axes mapping a position of var to
    one of that variable: [(variable, ((scale_y, translate_y), (scale_x, translate_x)))]."""
    transform = ((1.0, 0.0), (1.0, 0.0))
    chain, outer_of = [], {}
    while var is not None:
        chain.append((var, transform))
        if var.is_placeholder and var in outer_of:
            var = outer_of[var]
            continue
        node = var.owner if var.is_output else None
        if node is None:
            break
        if node._block_root is not None:
            outer_of.update(node._block_arguments)
            var = node._block_root._outputs[list(node._outputs).index(var)]
            continue
        step = node._op.spatial_transform(node) if node._op.spatial_transform is not None else None
        if step is not None:
            k, axes = step
            axes = ([(1.0, 0.0)] * 2 + list(axes))[-2:]
            transform = tuple((s * scale, s * translate + t) for (scale, translate), (s, t) in zip(transform, axes))
            var = node._inputs[k]
        else:
            var = next((i for i in node._inputs if not (i.is_parameter or i.is_constant)), None)
    return chain


def _offsets(node_input, node_referent, ancestor_input=None, ancestor_referent=None):
    x_chain, ref_chain = _chain(node_input), _chain(node_referent)
    if ancestor_input is None:
        x_at = {v.uid: t for v, t in x_chain}
        common = next(((v, t) for v, t in ref_chain if v.uid in x_at), None)
        if common is None:
            raise ValueError("crop_automatic: node_input and node_referent have no common ancestor; use "
                             "crop_automatic_with_ancestors or crop_manual")
        x_t, ref_t = x_at[common[0].uid], common[1]
    else:
        x_t = next((t for v, t in x_chain if v.uid == ancestor_input.uid), None)
        ref_t = next((t for v, t in ref_chain if v.uid == ancestor_referent.uid), None)
        if x_t is None or ref_t is None:
            raise ValueError("crop_automatic_with_ancestors: %s does not lie on the data path of %s"
                             % (("ancestor_input", "node_input") if x_t is None else
                                ("ancestor_referent", "node_referent")))
    # the referent's first position, in the input's positions (CNTK rounds down); CNTK refuses, when it evaluates
    # the crop, positions of the referent that map onto the input's at another scale
    return ([int(math.floor((rt - xt) / xs + 1e-9)) for (xs, xt), (_, rt) in zip(x_t, ref_t)],
            any(abs(rs - xs) > 1e-9 for (xs, _), (rs, _) in zip(x_t, ref_t)))


def crop_automatic(node_input, node_referent, name=''):
    """node_input cropped to node_referent's spatial size, at the offsets where the two line up: the positions
    of both are traced back (through convolution, pooling and their transposes) to their common ancestor."""
    x, ref = sanitize_operands(node_input, node_referent, names=["node_input", "node_referent"])
    (offset_y, offset_x), rescaled = _offsets(x, ref)
    return make("Crop", [x, ref], {"offset_x": offset_x, "offset_y": offset_y, "automatic": True,
                                   "rescaled": rescaled}, name)


def crop_automatic_with_ancestors(node_input, node_referent, ancestor_input, ancestor_referent, name=''):
    """crop_automatic where the two have no common ancestor: ancestor_input (below node_input) and
    ancestor_referent (below node_referent) are taken to be aligned."""
    x, ref, ax, ar = sanitize_operands(node_input, node_referent, ancestor_input, ancestor_referent,
                                       names=["node_input", "node_referent", "ancestor_input", "ancestor_referent"])
    (offset_y, offset_x), rescaled = _offsets(x, ref, ax, ar)
    return make("Crop", [x, ref], {"offset_x": offset_x, "offset_y": offset_y, "automatic": True,
                                   "rescaled": rescaled}, name)
