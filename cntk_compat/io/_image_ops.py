"""Applying image transforms to HWC images in BGR channel order (as OpenCV, hence CNTK, holds them)."""
import xml.etree.ElementTree as ET

import numpy as np
from PIL import Image

from . import _image_draws, _image_hsv

_FILTERS = {'nearest': Image.NEAREST, 'linear': Image.BILINEAR, 'cubic': Image.BICUBIC,
            'lanczos': Image.LANCZOS}


def crop(img, t, engine):
    """The crop window CNTK 2.7 draws from ``engine`` (None where the transform draws nothing)."""
    x, y, w, h, flipped = _image_draws.crop_rect(t, img.shape[0], img.shape[1], engine)
    out = img[y:y + h, x:x + w]
    return out[:, ::-1] if flipped else out


def _linear_taps(src, dst, clamp_weights):
    """OpenCV's INTER_LINEAR source indices and 11-bit fixed-point weights (w0, w1) along one axis. Columns
    outside the image take the edge column with weights (2048, 0); rows outside it are the edge row, with
    their fractional weights kept (OpenCV clamps the row index only)."""
    scale = 1.0 / (float(dst) / src)
    f = ((np.arange(dst, dtype=np.float64) + 0.5) * scale - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int64)
    f = (f - s.astype(np.float32)).astype(np.float32)
    if clamp_weights:
        low, high = s < 0, s >= src - 1
        f[low | high] = 0
        s = np.where(low, 0, np.where(high, src - 1, s))
    w1 = np.rint(f.astype(np.float64) * 2048).astype(np.int64)
    w0 = np.rint((np.float32(1) - f).astype(np.float64) * 2048).astype(np.int64)
    return np.clip(s, 0, src - 1), np.clip(s + 1, 0, src - 1), w0, w1


def _resize_linear_u8(img, width, height):
    """cv::resize(INTER_LINEAR) of an 8-bit HWC image as CNTK 2.7's OpenCV 3.1 computes it (bit-exact): a
    horizontal pass in integers with 11-bit weights, then the vertical pass of its SSE2 kernel, which rounds
    (((r0 >> 4) * b0 >> 16) + ((r1 >> 4) * b1 >> 16) + 2) >> 2. An exact 2x reduction is INTER_AREA's
    rounded 2x2 mean."""
    h, w, cn = img.shape
    src = img.astype(np.int64)
    if w == 2 * width and h == 2 * height:
        return ((src[0::2, 0::2] + src[0::2, 1::2] + src[1::2, 0::2] + src[1::2, 1::2] + 2) >> 2).astype(np.uint8)
    x0, x1, a0, a1 = _linear_taps(w, width, True)
    y0, y1, b0, b1 = _linear_taps(h, height, False)
    rows = (src[:, x0] * a0[None, :, None] + src[:, x1] * a1[None, :, None]).reshape(h, width * cn)
    out = ((((rows[y0] >> 4) * b0[:, None]) >> 16) + (((rows[y1] >> 4) * b1[:, None]) >> 16) + 2) >> 2
    return np.clip(out, 0, 255).astype(np.uint8).reshape(height, width, cn)


def _cubic_coefficients(x):
    """OpenCV's interpolateCubic (A = -0.75) of the fractional positions ``x``, in float32 as it computes them."""
    f = np.float32
    a = f(-0.75)
    x = x.astype(np.float32)
    x1 = (x + f(1)).astype(np.float32)
    y = (f(1) - x).astype(np.float32)
    c0 = ((a * x1 - f(5) * a) * x1 + f(8) * a) * x1 - f(4) * a
    c1 = ((a + f(2)) * x - (a + f(3))) * x * x + f(1)
    c2 = ((a + f(2)) * y - (a + f(3))) * y * y + f(1)
    c3 = f(1) - c0 - c1 - c2
    return [np.asarray(c, np.float32) for c in (c0, c1, c2, c3)]


def _cubic_taps(src, dst):
    """OpenCV's INTER_CUBIC source indices (4 per destination pixel, the image's edge repeated outside it) and
    11-bit fixed-point weights along one axis."""
    scale = 1.0 / (float(dst) / src)
    f = ((np.arange(dst, dtype=np.float64) + 0.5) * scale - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int64)
    f = (f - s.astype(np.float32)).astype(np.float32)
    weights = np.stack([np.rint((c * np.float32(2048)).astype(np.float64)) for c in _cubic_coefficients(f)], 1)
    return np.clip(s[:, None] + np.arange(-1, 3)[None, :], 0, src - 1), weights.astype(np.int64)


def _resize_cubic_u8(img, width, height):
    """cv::resize(INTER_CUBIC) of an 8-bit HWC image as CNTK 2.7's OpenCV 3.1 computes it (bit-exact): a
    horizontal pass in integers with 11-bit weights, then the vertical pass of its SSE2 kernel in float32,
    ((S0 b0 + S1 b1) + S2 b2) + S3 b3 with b = weight / 2048^2, rounded to even, for each multiple of 8 values
    of a row; the rest of the row in integers, (sum + 2^21) >> 22."""
    h, w, cn = img.shape
    src = img.astype(np.int64)
    xi, xw = _cubic_taps(w, width)
    yi, yw = _cubic_taps(h, height)
    rows = sum(src[:, xi[:, k]] * xw[None, :, k, None] for k in range(4)).reshape(h, width * cn)
    n = width * cn
    nv = n - n % 8
    b = (yw.astype(np.float32) * np.float32(1.0 / (2048 * 2048))).astype(np.float32)
    acc = rows[yi[:, 0], :nv].astype(np.float32) * b[:, 0:1]
    for k in range(1, 4):
        acc = acc + rows[yi[:, k], :nv].astype(np.float32) * b[:, k:k + 1]
    out = np.empty((height, n), np.int64)
    out[:, :nv] = np.rint(acc).astype(np.int64)
    out[:, nv:] = (sum(rows[yi[:, k], nv:] * yw[:, k:k + 1] for k in range(4)) + (1 << 21)) >> 22
    return np.clip(out, 0, 255).astype(np.uint8).reshape(height, width, cn)


def _source_positions(src, dst):
    """OpenCV's source position of each destination pixel along one axis: the index floor(f) and the fraction
    f - floor(f), f = (x + 0.5) * src / dst - 0.5 rounded to float32."""
    scale = 1.0 / (float(dst) / src)
    f = ((np.arange(dst, dtype=np.float64) + 0.5) * scale - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int64)
    return s, (f - s.astype(np.float32)).astype(np.float32)


def _resize_linear_f32(img, width, height):
    """cv::resize(INTER_LINEAR) of a float32 HWC image (after a colour or mean transform) as CNTK 2.7's OpenCV 3.1
    computes it, bit-exact: weights 1 - f and f in float32, columns outside the image the edge column with
    weight 1, rows outside it the edge row with their weights kept; S0 b0 + S1 b1 per pass. An exact 2x
    reduction is INTER_AREA's (((a + b) + c) + d) * 0.25."""
    h, w, _ = img.shape
    if w == 2 * width and h == 2 * height:
        return ((((img[0::2, 0::2] + img[0::2, 1::2]) + img[1::2, 0::2]) + img[1::2, 1::2]) * np.float32(0.25))
    sx, fx = _source_positions(w, width)
    outside = (sx < 0) | (sx >= w - 1)
    fx[outside] = 0
    sx = np.clip(sx, 0, w - 1)
    rows = img[:, sx] * (np.float32(1) - fx)[None, :, None] + img[:, np.minimum(sx + 1, w - 1)] * fx[None, :, None]
    sy, fy = _source_positions(h, height)
    return (rows[np.clip(sy, 0, h - 1)] * (np.float32(1) - fy)[:, None, None]
            + rows[np.clip(sy + 1, 0, h - 1)] * fy[:, None, None])


def _resize_cubic_f32(img, width, height):
    """cv::resize(INTER_CUBIC) of a float32 HWC image as CNTK 2.7's OpenCV 3.1 computes it, bit-exact: the A = -0.75
    cubic's float32 weights, the edge repeated outside the image, ((S0 c0 + S1 c1) + S2 c2) + S3 c3 per pass."""
    h, w, _ = img.shape
    sx, fx = _source_positions(w, width)
    cx = _cubic_coefficients(fx)
    xi = np.clip(sx[:, None] + np.arange(-1, 3)[None, :], 0, w - 1)
    rows = img[:, xi[:, 0]] * cx[0][None, :, None]
    for k in range(1, 4):
        rows = rows + img[:, xi[:, k]] * cx[k][None, :, None]
    sy, fy = _source_positions(h, height)
    cy = _cubic_coefficients(fy)
    yi = np.clip(sy[:, None] + np.arange(-1, 3)[None, :], 0, h - 1)
    out = rows[yi[:, 0]] * cy[0][:, None, None]
    for k in range(1, 4):
        out = out + rows[yi[:, k]] * cy[k][:, None, None]
    return out


_S45 = 0.70710678118654752440084436210485
_LANCZOS_CS = ((1, 0), (-_S45, -_S45), (0, 1), (_S45, -_S45), (-1, 0), (_S45, _S45), (0, -1), (-_S45, _S45))


def _lanczos_coefficients(x):
    """OpenCV's interpolateLanczos4 of the fractional positions ``x``: 8 float32 weights each, computed in double
    and normalized in float32 as OpenCV does (1, at the 4th tap, where x < FLT_EPSILON)."""
    x = x.astype(np.float32)
    y0 = -(x + np.float32(3)).astype(np.float64) * np.pi * 0.25      # x + 3 in float, as OpenCV's float x
    s0, c0 = np.sin(y0), np.cos(y0)
    coeffs = np.empty((len(x), 8), np.float32)
    total = np.zeros(len(x), np.float32)
    for i, (a, b) in enumerate(_LANCZOS_CS):
        y = -(x + np.float32(3) - np.float32(i)).astype(np.float64) * np.pi * 0.25
        with np.errstate(divide='ignore', invalid='ignore'):
            coeffs[:, i] = ((a * s0 + b * c0) / (y * y)).astype(np.float32)
        total = (total + coeffs[:, i]).astype(np.float32)
    with np.errstate(divide='ignore', invalid='ignore'):
        coeffs = coeffs * (np.float32(1) / total)[:, None]
    tiny = x < np.finfo(np.float32).eps
    coeffs[tiny] = 0
    coeffs[tiny, 3] = 1
    return coeffs


def _lanczos_taps(src, dst):
    s, f = _source_positions(src, dst)
    return np.clip(s[:, None] + np.arange(-3, 5)[None, :], 0, src - 1), _lanczos_coefficients(f)


def _resize_lanczos_u8(img, width, height):
    """cv::resize(INTER_LANCZOS4) of an 8-bit HWC image as CNTK 2.7's OpenCV 3.1 computes it (bit-exact): 8 taps
    with 11-bit fixed-point weights, the image's edge repeated outside it, both passes in integers, rounded
    (sum + 2^21) >> 22."""
    src = img.astype(np.int64)
    xi, xc = _lanczos_taps(img.shape[1], width)
    yi, yc = _lanczos_taps(img.shape[0], height)
    xw = np.rint((xc * np.float32(2048)).astype(np.float64)).astype(np.int64)
    yw = np.rint((yc * np.float32(2048)).astype(np.float64)).astype(np.int64)
    rows = sum(src[:, xi[:, k]] * xw[None, :, k, None] for k in range(8))
    out = (sum(rows[yi[:, k]] * yw[:, k, None, None] for k in range(8)) + (1 << 21)) >> 22
    return np.clip(out, 0, 255).astype(np.uint8)


def _resize_lanczos_f32(img, width, height):
    """cv::resize(INTER_LANCZOS4) of a float32 HWC image as CNTK 2.7's OpenCV 3.1 computes it (bit-exact): the same
    weights in float32, the 8 terms of each pass summed left to right."""
    xi, xc = _lanczos_taps(img.shape[1], width)
    yi, yc = _lanczos_taps(img.shape[0], height)
    rows = img[:, xi[:, 0]] * xc[None, :, 0, None]
    for k in range(1, 8):
        rows = rows + img[:, xi[:, k]] * xc[None, :, k, None]
    out = rows[yi[:, 0]] * yc[:, 0, None, None]
    for k in range(1, 8):
        out = out + rows[yi[:, k]] * yc[:, k, None, None]
    return out


def _nearest_index(src, dst):
    """OpenCV 3.1's INTER_NEAREST source index of each destination pixel: floor(x / (dst / src)) in double
    precision, clamped to the last pixel (not PIL's pixel-center rule)."""
    inv = 1.0 / (float(dst) / float(src))
    return np.minimum(np.floor(np.arange(dst, dtype=np.float64) * inv).astype(np.int64), src - 1)


def _resize(img, width, height, interpolation):
    if img.shape[1] == width and img.shape[0] == height:
        return img
    if interpolation == 'linear' and img.dtype == np.uint8:
        return _resize_linear_u8(img, width, height)
    if interpolation == 'cubic' and img.dtype == np.uint8:
        return _resize_cubic_u8(img, width, height)
    if interpolation == 'linear' and img.dtype == np.float32:
        return _resize_linear_f32(img, width, height)
    if interpolation == 'cubic' and img.dtype == np.float32:
        return _resize_cubic_f32(img, width, height)
    if interpolation == 'lanczos':
        if img.dtype == np.uint8:
            return _resize_lanczos_u8(img, width, height)
        if img.dtype == np.float32:
            return _resize_lanczos_f32(img, width, height)
    if interpolation == 'nearest':
        return img[_nearest_index(img.shape[0], height)][:, _nearest_index(img.shape[1], width)]
    flt = _FILTERS[interpolation]
    if img.dtype == np.uint8:
        planes = [np.asarray(Image.fromarray(np.ascontiguousarray(img[:, :, c])).resize((width, height), flt))
                  for c in range(img.shape[2])]
    else:
        planes = [np.asarray(Image.fromarray(np.ascontiguousarray(img[:, :, c], np.float32), 'F').resize(
            (width, height), flt)) for c in range(img.shape[2])]
    return np.stack(planes, axis=2)


def _to_channels(img, channels):
    if img.shape[2] == channels:
        return img
    if channels == 1:   # BGR -> gray, ITU-R 601 weights
        gray = img[:, :, 0] * 0.114 + img[:, :, 1] * 0.587 + img[:, :, 2] * 0.299
        return (np.round(gray).astype(np.uint8) if img.dtype == np.uint8 else gray)[:, :, None]
    return np.repeat(img, 3, axis=2)


def scale(img, t):
    img = _to_channels(img, t.channels)
    h, w = img.shape[:2]
    if t.scale_mode == 'fill':
        return _resize(img, t.width, t.height, t.interpolations)
    if t.scale_mode == 'crop':
        f = max(t.width / w, t.height / h)
        img = _resize(img, max(t.width, int(round(w * f))), max(t.height, int(round(h * f))), t.interpolations)
        y, x = (img.shape[0] - t.height) // 2, (img.shape[1] - t.width) // 2
        return img[y:y + t.height, x:x + t.width]
    f = min(t.width / w, t.height / h)
    img = _resize(img, max(1, int(round(w * f))), max(1, int(round(h * f))), t.interpolations)
    top, left = (t.height - img.shape[0]) // 2, (t.width - img.shape[1]) // 2
    pad = ((top, t.height - img.shape[0] - top), (left, t.width - img.shape[1] - left), (0, 0))
    if t.pad_value == -1:
        return np.pad(img, pad, mode='edge')
    return np.pad(img, pad, mode='constant', constant_values=t.pad_value)


def load_mean(filename):
    """The mean image (HWC float32) of an OpenCV XML matrix file with Channel/Row/Col entries."""
    try:
        root = ET.parse(filename).getroot()
        channels, rows, cols = (int(root.findtext(k)) for k in ('Channel', 'Row', 'Col'))
        values = np.array(root.find('MeanImg').findtext('data').split(), dtype=np.float32)
    except (OSError, ET.ParseError, TypeError, AttributeError, ValueError) as e:
        raise IOError("mean file '%s' is not an OpenCV XML matrix with Channel, Row, Col and MeanImg: %s"
                      % (filename, e))
    if values.size != channels * rows * cols:
        raise IOError("mean file '%s': MeanImg has %d values, expected %d (%d x %d x %d)"
                      % (filename, values.size, channels * rows * cols, rows, cols, channels))
    return values.reshape(rows, cols, channels)


def color(img, t, engine):
    """CNTK 2.7's colour jitter, in single precision: x * (1 + c) + b * mean(x) clipped to [0, 255] with b then c
    drawn uniformly within their radii, then the HSV saturation times 1 + s (at most 1). With all three radii 0
    the image is left as it is (an 8-bit image stays 8-bit, so a following scale is the 8-bit one), as in CNTK."""
    if not (t.brightness_radius > 0 or t.contrast_radius > 0 or t.saturation_radius > 0):
        return img
    img = img.astype(np.float32)
    if t.brightness_radius > 0 or t.contrast_radius > 0:
        beta = np.float32(0)
        if t.brightness_radius > 0:
            r = _image_draws.uniform_real(engine, -t.brightness_radius, t.brightness_radius)
            beta = np.float32(r * float(img.sum(dtype=np.float64)) / img.size)
        alpha = np.float32(1)
        if t.contrast_radius > 0:
            alpha = np.float32(1 + _image_draws.uniform_real(engine, -t.contrast_radius, t.contrast_radius))
        img = np.minimum(np.maximum(img * alpha + beta, np.float32(0)), np.float32(255))
    if t.saturation_radius > 0 and img.shape[2] == 3:
        ratio = 1.0 + _image_draws.uniform_real(engine, -t.saturation_radius, t.saturation_radius)
        h, s, v = _image_hsv.bgr_to_hsv(img)
        s = np.minimum((s.astype(np.float64) * ratio).astype(np.float32), np.float32(1))
        img = _image_hsv.hsv_to_bgr(h, s, v)
    return img
