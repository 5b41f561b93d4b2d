"""Unique ids in CNTK's style: the kind of object followed by a process-wide counter."""
import itertools

_counter = itertools.count()
_next = [0]


def new_uid(prefix):
    n = next(_counter)
    _next[0] = n + 1
    return "%s%d" % (prefix, n)


def reserve(number):
    """Numbers up to ``number`` are taken (by uids read from a model file): later uids count on from above."""
    global _counter
    if number >= _next[0]:
        _next[0] = number + 1
        _counter = itertools.count(number + 1)
