"""CNTK's convolution/pooling geometry: per spatial axis, the output size and the padding (or cropping).

CNTK places the first kernel centre at ``extra // 2`` where ``extra`` is what is left of the input after the
cells spanned by the output's centres; the kernel's left half is ``(k - 1) // 2`` cells (an even kernel has its
extra cell on the right). Explicit lower/upper pads override that. The result is (out, lo, hi): pad ``lo``
cells before and ``hi`` after (negative values crop) and then run a plain 'valid' torch kernel.
"""


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
    ke = (k - 1) * d + 1
    if lower or upper:
        out = (n + lower + upper - ke) // s + 1
        return out, lower, upper
    if auto_pad:
        out = (n - 1) // s + 1
    elif ceil_out:
        out = -(-(n - ke) // s) + 1
    else:
        out = (n - ke) // s + 1
    if out < 1:
        return out, 0, 0
    extra = n - ((out - 1) * s + 1)
    start = int(extra / 2) if extra >= 0 else -((-extra) // 2)
    left = ((ke - 1) // 2)
    lo = left - start
    hi = (start + (out - 1) * s + (ke - 1 - left)) - (n - 1)
    return out, lo, hi


def torch_pad_list(los, his):
    """F.pad's argument (last axis first)."""
    pads = []
    for lo, hi in zip(reversed(los), reversed(his)):
        pads += [lo, hi]
    return pads
