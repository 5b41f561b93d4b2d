"""CNTK's convolution/pooling geometry: per spatial axis, the output size and the padding (or cropping).

Without padding the first window starts at the first cell. With auto padding the output has ceil(n / stride)
cells and CNTK places the first kernel centre at ``extra // 2``, where ``extra`` is what is left of the input
after the cells spanned by the output's centres; the kernel's left half is ``(k - 1) // 2`` cells (an even kernel
has its extra cell on the right). Pooling's ``ceil_out_dim`` with auto padding gives ceil((n - 1) / stride) + 1
cells (CNTK 2.7's count, as Caffe's padded pooling), the extra last window placed after the others (CNTK 2.7's own
values in such a window are unreliable: its kernels read cells they never wrote). Explicit lower/upper pads
override both. The result is (out, lo, hi): pad ``lo`` cells before and ``hi`` after (negative values crop) and
then run a plain 'valid' torch kernel. A free dimension (negative size, fixed only by the data) gives (n, 0, 0):
the ops then compute the geometry at run time.
"""
import numpy as np


def option_tuple(v):
    """A per-axis option as CNTK's sanitize_shape reads it: any sequence (a numpy array or a range too) per axis, a
    scalar for all axes."""
    return tuple(v) if isinstance(v, (tuple, list, np.ndarray, range)) else (v,)


def per_axis(values, rank, what, op_name):
    """CNTK's rule for per-axis options: given for the trailing axes; missing leading axes repeat the first."""
    if isinstance(values, (bool, int)):
        values = (values,)
    values = tuple(values)
    if not values:
        raise ValueError("%s: %s must not be empty" % (op_name, what))
    if len(values) > rank:
        values = values[len(values) - rank:]
    return (values[0],) * (rank - len(values)) + values


def axis_geometry(n, k, s, d=1, auto_pad=False, lower=0, upper=0, ceil_out=False):
    if n < 0:
        return n, 0, 0
    ke = (k - 1) * d + 1
    if lower or upper:
        out = (n + lower + upper - ke) // s + 1
        return out, lower, upper
    if not auto_pad:
        out = (-(-(n - ke) // s) if ceil_out else (n - ke) // s) + 1
        return out, 0, (out - 1) * s + ke - n
    out = (n - 1) // s + 1
    start = (n - ((out - 1) * s + 1)) // 2
    if ceil_out:   # pooling's ceil_out_dim: one more window where the centres do not fit evenly, same placement
        out = -(-(n - 1) // s) + 1
    left = (ke - 1) // 2
    return out, left - start, start + (out - 1) * s + (ke - 1 - left) - (n - 1)


def torch_pad_list(los, his):
    """F.pad's argument (last axis first)."""
    pads = []
    for lo, hi in zip(reversed(los), reversed(his)):
        pads += [lo, hi]
    return pads


def kernel_padding(spatial, extents, strides, geo):
    """How to run the geometry geo on torch kernels: (F.pad list or None, padding the kernel applies itself).

    Cells past the last window need no cropping (torch's kernels leave them out as well), and padding that is
    the same on both sides of every axis is passed to the kernel instead of copying the input into a padded one.
    """
    los, his = [], []
    for n, ke, s, (out, lo, hi) in zip(spatial, extents, strides, geo):
        if hi < 0 <= lo and (n + lo - ke) // s + 1 == out:
            hi = 0
        los.append(lo)
        his.append(hi)
    if all(lo == hi >= 0 for lo, hi in zip(los, his)):
        return None, tuple(los)
    return torch_pad_list(los, his), 0
