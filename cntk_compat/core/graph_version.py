"""A counter of in-place graph changes, so that what is derived from a graph's structure can be cached.

Graphs are immutable apart from replace_placeholders (and the shape inference that follows it); those bump the
version. A cache entry (a Function's leaves, a computation's call plan) remembers the version it was made at and
is rebuilt when the version moved on.
"""

_VERSION = [0]


def current():
    return _VERSION[0]


def bump():
    _VERSION[0] += 1
