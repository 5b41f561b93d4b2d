"""Vectorized decimal-number parsing of whitespace-separated tokens held in a byte array.

Tokens are gathered into a matrix aligned on their decimal point, so that every column stands for
one decimal place; the digits become one exact integer per token.  Exponents (``1e-5``) are handled the
same way on a second, small matrix.  An integer below 2**53 scaled by an exactly representable power of
ten is correctly rounded in one float64 operation; all other tokens (more digits, large exponents,
garbage) are handed to Python's ``float`` one by one (correctly rounded as well) once they have CNTK's
number syntax, and reported otherwise.
"""
import re

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_DOT, _MINUS, _PLUS = 46, 45, 43
_CTF_NUMBER = re.compile(rb'[-+]?[0-9]+(\.([0-9]+([eE][-+]?[0-9]+)?)?|[eE][-+]?[0-9]+)?')
_MAX_DIGITS = 17           # wider tokens go through the slow path (their digits would not fit an int64)
_POW10_INT = 10 ** np.arange(_MAX_DIGITS + 1, dtype=np.int64)
_POW10_EXACT = np.array([float(10 ** k) for k in range(23)])  # the powers of ten a float64 holds exactly


def token_bounds(sep):
    """(starts, ends) of the maximal runs of False in the boolean array ``sep``."""
    edges = np.empty(len(sep) + 2, np.int8)
    edges[0] = edges[-1] = 1
    edges[1:-1] = sep
    change = np.diff(edges)
    return np.flatnonzero(change == -1), np.flatnonzero(change == 1)


def _first_in_token(positions, starts, ends, default):
    """For each token, the first of ``positions`` inside it, or ``default`` where there is none."""
    out = default.copy()
    if len(positions):
        tok = np.searchsorted(starts, positions, side="right") - 1
        inside = (tok >= 0) & (positions < ends[np.maximum(tok, 0)])  # before the first token: in none
        tok, pos = tok[inside], positions[inside]
        first = np.ones(len(tok), bool)
        first[1:] = tok[1:] != tok[:-1]
        out[tok[first]] = pos[first]
    return out


def _aligned(b, anchor, left, right):
    """Matrix (n, left + right) of the bytes b[anchor - left : anchor + right] per token."""
    width = left + right
    padded = np.concatenate([np.zeros(left, np.uint8), b, np.zeros(right + 1, np.uint8)])
    return sliding_window_view(padded, width)[anchor]


def parse_numbers(b, starts, ends):
    """Parse the tokens b[starts[i]:ends[i]] as decimal numbers, correctly rounded to float64.

    Returns ``(values, bad)``: float64 values, and the indices of tokens that are not numbers.
    """
    n = len(starts)
    values = np.zeros(n, np.float64)
    if n == 0:
        return values, np.zeros(0, np.int64)
    first = b[starts]
    signed = (first == _MINUS) | (first == _PLUS)
    mstart = starts + signed
    epos = _first_in_token(np.flatnonzero((b | 32) == 101), starts, ends, ends)
    dots = np.flatnonzero(b == _DOT)
    dpos = _first_in_token(dots, starts, ends, epos)
    int_digits = dpos - mstart
    frac_digits = np.maximum(epos - dpos - 1, 0)
    slow = (int_digits + frac_digits > _MAX_DIGITS) | (epos == mstart) | (int_digits < 0)
    idx = np.flatnonzero(~slow)
    left = int(int_digits[idx].max()) if len(idx) else 0
    right = int(frac_digits[idx].max()) + 1 if len(idx) else 1
    mat = _aligned(b, dpos[idx], left, right).astype(np.int16) - 48
    col = np.arange(-left, right, dtype=np.int64)
    rel_lo = (mstart[idx] - dpos[idx])[:, None]
    rel_hi = (epos[idx] - dpos[idx])[:, None]
    inside = (col >= rel_lo) & (col < rel_hi) & (col != 0)
    digit = (mat >= 0) & (mat <= 9)
    invalid = (inside & ~digit).any(axis=1)
    # CNTK 2.7's number: [sign] digits [. [digits [exponent]]] or [sign] digits exponent; no digit before the
    # point ('.5') or none after it before an exponent ('1.e3') is malformed; such tokens fail the check below
    invalid |= (int_digits[idx] == 0) | ((dpos[idx] + 1 == epos[idx]) & (epos[idx] < ends[idx]))
    # the digits as one exact integer: each digit times 10 ** (the token's digits right of it)
    after = np.cumsum(inside[:, ::-1], axis=1)[:, ::-1] - inside
    mantissa = (np.where(inside & digit, mat, 0).astype(np.int64) * _POW10_INT[after]).sum(axis=1)
    scale = -frac_digits[idx]
    has_exp = epos[idx] < ends[idx]
    if has_exp.any():
        eidx = np.flatnonzero(has_exp)
        exps, ebad = _parse_exponents(b, epos[idx][eidx] + 1, ends[idx][eidx])
        invalid[eidx[ebad]] = True
        scale[eidx] += exps
    # an integer below 2**53 times or over an exact power of ten (10**0 ... 10**22) is one correctly rounded
    # operation; the other numbers go to Python's float, which rounds correctly too
    exact = (mantissa <= 2 ** 53) & (np.abs(scale) <= 22)
    power = _POW10_EXACT[np.clip(np.abs(scale), 0, 22)]
    number = mantissa.astype(np.float64)
    number = np.where(scale >= 0, number * power, number / power)
    number[first[idx] == _MINUS] *= -1.0
    values[idx] = number
    bad = np.concatenate([idx[invalid | ~exact], np.flatnonzero(slow)])
    still_bad = []
    for t in bad:
        token = b[starts[t]:ends[t]].tobytes()
        try:
            if not _CTF_NUMBER.fullmatch(token):  # Python's float also reads '.5', 'nan', 'inf', '1_0'
                raise ValueError(token)
            values[t] = float(token)
        except ValueError:
            still_bad.append(t)
    return values, np.sort(np.array(still_bad, np.int64))


def _parse_exponents(b, starts, ends):
    """Integer exponents (optional sign, up to 4 digits) of the byte ranges [starts, ends)."""
    first = b[np.minimum(starts, len(b) - 1)]
    neg = first == _MINUS
    lo = starts + ((first == _MINUS) | (first == _PLUS))
    length = ends - lo
    bad = (length <= 0) | (length > 4)
    mat = _aligned(b, ends, 4, 0).astype(np.int16) - 48
    col = np.arange(-4, 0)
    inside = col[None, :] >= -length[:, None]
    digit = (mat >= 0) & (mat <= 9)
    bad |= (inside & ~digit).any(axis=1)
    value = np.where(inside & digit, mat, 0) @ np.array([1000, 100, 10, 1])
    return np.where(neg, -value, value), bad


_UINT64_DIGITS = 20
_UINT64_MAX_HIGH = (2 ** 64 - 1) // 10 ** 10


def parse_uints(b, starts, ends):
    """Parse the tokens b[starts[i]:ends[i]] exactly as unsigned 64-bit integers.

    Returns ``(values, bad)``: uint64 values, and the indices of tokens that are not such integers.
    """
    length = ends - starts
    bad = (length <= 0) | (length > _UINT64_DIGITS)
    mat = _aligned(b, ends, _UINT64_DIGITS, 0).astype(np.int16) - 48
    col = np.arange(-_UINT64_DIGITS, 0)
    inside = col[None, :] >= -length[:, None]
    digit = (mat >= 0) & (mat <= 9)
    bad |= (inside & ~digit).any(axis=1)
    digits = np.where(inside & digit, mat, 0).astype(np.int64)
    powers = 10 ** np.arange(9, -1, -1, dtype=np.int64)
    high, low = digits[:, :10] @ powers, digits[:, 10:] @ powers
    bad |= (high > _UINT64_MAX_HIGH) | ((high == _UINT64_MAX_HIGH) & (low > (2 ** 64 - 1) % 10 ** 10))
    values = high.astype(np.uint64) * np.uint64(10 ** 10) + low.astype(np.uint64)
    return values, np.flatnonzero(bad)
