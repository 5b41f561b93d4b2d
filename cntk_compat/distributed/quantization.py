"""Column-wise gradient quantization with error feedback (CNTK's 1-bit SGD and its n-bit variants).

A gradient is viewed as columns: CNTK's column of a tensor runs along its first (CNTK) axis, which is the last
numpy axis, so a tensor of numpy shape (..., r) is ``numel / r`` columns of ``r`` values (a scalar is one
column of one value), as CNTK 2.7 quantizes it (see :func:`column_layout`). Each column is quantized alone to
``bits`` bits per value, described by a pair (lower, upper):

* 1 bit, threshold 0: a value is 1 when it is >= 0; 0 reconstructs to the mean of the column's negative values
  and 1 to the mean of its non-negative ones (0 for an empty side). The pair is placed so that
  ``(q + 0.5) * (upper - lower) / 2 + lower`` gives exactly these two means.
* n > 1 bits: values are cut to ``[-4 s, 4 s]`` (s the root mean square of the column) and that interval is cut
  into ``2**n - 1`` equal steps; ``q = floor((v - lower) / step)`` (0 below the range, ``2**n - 1`` above) and
  reconstructs to ``(q + 0.5) * step + lower``.

A column whose range is empty (all zeros) reconstructs to ``lower``. Error feedback (the quantization residual
added to the next gradient, so that nothing is lost over time) is the business of the users of these functions:
:mod:`.hooks`.
"""
import torch

SUPPORTED_BITS = (1, 2, 4, 8, 16)
_RMS_CUTOFF = 4.0      # the n-bit range spans this many root mean squares on either side of 0
_EMPTY_RANGE = 1e-36   # below this width a column quantizes to its lower bound


def check_bits(bits):
    if isinstance(bits, bool) or not isinstance(bits, int) or bits not in SUPPORTED_BITS:
        raise ValueError("num_quantization_bits must be a power of two from 1 to 32 (32: no quantization), got %r"
                         % (bits,))
    return bits


def column_layout(shape):
    """(columns, rows) of a gradient of (numpy) ``shape``: its values in C order are ``columns`` columns of ``rows``
    values, each quantized alone and sent with its range (two floats), as CNTK 2.7's 1-bit SGD does."""
    numel = 1
    for d in shape:
        numel *= int(d)
    rows = int(shape[-1]) if len(shape) else 1
    return (numel // rows if rows else 0), rows


def _used_steps(bits):
    # 1 bit uses both slots as levels; more bits keep one slot free so that 0 has a code near the middle
    return 2 if bits == 1 else 2 ** bits - 1


def quantization_range(columns, bits):
    """(lower, upper), each of shape (columns,), for the values ``columns`` (columns, rows)."""
    if bits == 1:
        count1 = (columns >= 0).sum(dim=1)
        count0 = (columns.shape[1] - count1).clamp(min=1)
        mean1 = columns.clamp(min=0).sum(dim=1) / count1.clamp(min=1)
        mean0 = columns.clamp(max=0).sum(dim=1) / count0
        middle = 0.5 * (mean0 + mean1)
        half_width = mean1 - mean0
        return middle - half_width, middle + half_width
    rms = columns.square().mean(dim=1).sqrt()
    return -_RMS_CUTOFF * rms, _RMS_CUTOFF * rms


def quantize(columns, lower, upper, bits):
    """Integer codes (int64, same shape as ``columns``) of the values in their columns' ranges."""
    if bits == 1:
        return (columns >= 0).to(torch.int64)
    lower, upper = lower[..., None], upper[..., None]
    width = upper - lower
    scale = torch.where(width < _EMPTY_RANGE, torch.zeros_like(width), _used_steps(bits) / width)
    codes = torch.floor((columns - lower) * scale).to(torch.int64).clamp(0, 2 ** bits - 1)
    codes = torch.where(columns >= upper, torch.full_like(codes, 2 ** bits - 1), codes)
    return torch.where(columns <= lower, torch.zeros_like(codes), codes)


def dequantize(codes, lower, upper, bits):
    """The values that ``codes`` (..., columns, rows) reconstruct to, in the dtype of ``lower`` (..., columns)."""
    width = (upper - lower)[..., None]
    step = torch.where(width < _EMPTY_RANGE, torch.zeros_like(width), width / _used_steps(bits))
    return (codes.to(lower.dtype) + 0.5) * step + lower[..., None]


def pack(codes, bits):
    """The codes (non-negative, < 2**bits) of each row (last axis) packed into uint8: (..., rows) to
    (..., packed_size(rows, bits)), ``8 // bits`` codes a byte (two bytes a code for 16 bits); a row's last byte
    is padded with zero codes."""
    if bits == 16:
        return (codes - 2 ** 15).to(torch.int16).contiguous().view(torch.uint8)
    per_byte = 8 // bits
    padded = torch.nn.functional.pad(codes, (0, (-codes.shape[-1]) % per_byte))
    padded = padded.reshape(codes.shape[:-1] + (padded.shape[-1] // per_byte, per_byte))
    shifts = torch.arange(0, 8, bits, device=codes.device, dtype=torch.int64)
    return (padded << shifts).sum(dim=-1).to(torch.uint8)


def unpack(packed, bits, count):
    """The first ``count`` codes (int64) of each row of ``packed`` (..., bytes), as :func:`pack` wrote them:
    (..., count)."""
    if bits == 16:
        return packed.contiguous().view(torch.int16).to(torch.int64)[..., :count] + 2 ** 15
    shifts = torch.arange(0, 8, bits, device=packed.device, dtype=torch.int64)
    codes = (packed.to(torch.int64)[..., None] >> shifts) & (2 ** bits - 1)
    return codes.reshape(packed.shape[:-1] + (packed.shape[-1] * (8 // bits),))[..., :count]


def packed_size(count, bits):
    """Bytes that :func:`pack` writes for ``count`` codes."""
    return 2 * count if bits == 16 else -(-count // (8 // bits))
