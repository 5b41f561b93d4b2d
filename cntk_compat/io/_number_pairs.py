"""The number-or-pair arguments of CNTK 2.7's Python API (crop sizes and ratio ranges), checked as CNTK checks them
(cntk.internal's sanitize_2d_number and sanitize_range are these)."""
import numbers


def number_pair(value):
    """A number or a tuple of two numbers as a pair (CNTK 2.7's check: a list is refused)."""
    if isinstance(value, numbers.Number):
        return (value, value)
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, numbers.Number) for v in value):
        return value
    raise ValueError('Input argument must be a number or a tuple of two numbers.')


def number_range(value):
    """A (low, high) pair with low <= high, from a number or a pair (CNTK 2.7's check)."""
    lo, hi = number_pair(value)
    if lo <= hi:
        return (lo, hi)
    raise ValueError('Input argument must be a number or a tuple of two numbers such as the first number is '
                     'smaller than or equal to the second number.')
