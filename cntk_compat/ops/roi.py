"""roipooling: max pooling of each region of interest of a feature map onto a fixed grid (Fast R-CNN, with
Caffe's rounding of the region's corners, as CNTK 2.1+ does); torchvision's roi_pool kernel does the work."""
import torch

from ..core.dtypes import promote
from ..core.native_errors import announced
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from .pooling import MAX_POOLING


def _infer(inputs, attributes):
    x, rois = inputs
    if x._shape is None or rois._shape is None:
        return [OutputSpec(None, promote(x._dtype, rois._dtype), x._dynamic_axes)]
    if len(x._shape) != 3:
        raise ValueError("roipooling: operand must be a (channels, height, width) feature map, got shape %s"
                         % (x._shape,))
    if len(rois._shape) != 2 or rois._shape[1] != 4:
        raise ValueError("roipooling: rois must have shape (number of rois, 4) with rows (x1, y1, x2, y2), got %s"
                         % (rois._shape,))
    return [OutputSpec((rois._shape[0], x._shape[0]) + attributes["output_shape"], promote(x._dtype, rois._dtype),
                       x._dynamic_axes)]


def _roipooling(x, rois, n_dyn, output_shape, spatial_scale):
    from torchvision.ops import roi_pool   # here: importing torchvision takes about as long as importing torch
    lead = tuple(x.shape[:n_dyn])
    x = x.reshape((-1,) + tuple(x.shape[n_dyn:]))
    rois = rois.reshape(x.shape[0], -1, 4)
    per_image = rois.shape[1]
    image = torch.arange(x.shape[0], device=x.device, dtype=x.dtype).repeat_interleave(per_image)
    boxes = torch.cat([image[:, None], rois.reshape(-1, 4).to(x.dtype)], 1)
    y = roi_pool(x, boxes, output_shape, spatial_scale)
    return y.reshape(lead + (per_image,) + tuple(y.shape[1:]))


def _prepare(node):
    x, rois = node._inputs
    if rois._n_dynamic < x._n_dynamic:   # CNTK reads each image's regions from the rois' own minibatch
        raise announced(RuntimeError, "ColumnRangeWithMBLayoutFor: FrameRange's dynamic axis is inconsistent with "
                        "matrix. They are compatible though--are you missing a ReconcileDynamicAxis operation?\n\n"
                        "(cntk-compat: roipooling '%s' needs the regions of interest %r on the dynamic axes of its "
                        "operand %r: one set of regions per image)" % (node.name or node.uid, rois, x))
    return {"n_dyn": x._n_dynamic, "output_shape": node._attributes["output_shape"],
            "spatial_scale": node._attributes["spatial_scale"]}


register_op("ROIPooling", _infer, _roipooling, prepare=_prepare,
            public_attributes=lambda attrs, node: {"poolingType": MAX_POOLING,
                                                   "roiOutputShape": tuple(attrs["output_shape"]),
                                                   "spatialScale": float(attrs["spatial_scale"])})


def roipooling(operand, rois, pooling_type, roi_output_shape, spatial_scale, name=""):
    """operand (C, H, W) and rois (R, 4) rows (x1, y1, x2, y2) in original image coordinates (scaled onto the
    feature map by spatial_scale); the result (R, C, *roi_output_shape) holds each region's max pooling."""
    if pooling_type != MAX_POOLING:
        raise ValueError("roipooling: only MAX_POOLING is supported, got %r" % (pooling_type,))
    output_shape = tuple(int(d) for d in (roi_output_shape if isinstance(roi_output_shape, (tuple, list))
                                           else (roi_output_shape,)))
    if len(output_shape) != 2:
        raise ValueError("roipooling: roi_output_shape must have 2 elements (height, width), got %r"
                         % (roi_output_shape,))
    x, r = sanitize_operands(operand, rois, names=["operand", "rois"])
    return make("ROIPooling", [x, r], {"output_shape": output_shape, "spatial_scale": float(spatial_scale)}, name)
