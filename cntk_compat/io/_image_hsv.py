"""OpenCV 3.1's conversions between BGR and HSV of float images (H in degrees, S in [0, 1], V as B, G, R), in
single precision as OpenCV computes them, for the colour transform's saturation."""
import numpy as np

_EPS = np.float32(np.finfo(np.float32).eps)
_F = np.float32


def bgr_to_hsv(img):
    b, g, r = img[:, :, 0], img[:, :, 1], img[:, :, 2]
    v = np.maximum(np.maximum(r, g), b)
    vmin = np.minimum(np.minimum(r, g), b)
    diff = v - vmin
    s = diff / (np.abs(v) + _EPS)
    scale = (60.0 / (diff + _EPS).astype(np.float64)).astype(np.float32)
    h = np.where(v == r, (g - b) * scale, np.where(v == g, (b - r) * scale + _F(120), (r - g) * scale + _F(240)))
    h = np.where(h < 0, h + _F(360), h)
    return h.astype(np.float32), s.astype(np.float32), v


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])   # B, G, R of each sixth


def hsv_to_bgr(h, s, v):
    h = h * _F(6.0 / 360.0)
    h = h - _F(6) * np.floor(h / _F(6))     # into [0, 6)
    sector = np.floor(h).astype(np.int64)
    h = h - sector.astype(np.float32)
    bad = (sector < 0) | (sector >= 6)
    sector, h = np.where(bad, 0, sector), np.where(bad, _F(0), h)
    tab = np.stack([v, v * (_F(1) - s), v * (_F(1) - s * h), v * (_F(1) - s * (_F(1) - h))], axis=-1)
    bgr = np.take_along_axis(tab, _SECTORS[sector], axis=-1)
    return np.where((s == 0)[:, :, None], v[:, :, None], bgr).astype(np.float32)
