"""Unique ids in CNTK's style: the kind of object followed by a process-wide counter."""
import itertools

_counter = itertools.count()


def new_uid(prefix):
    return "%s%d" % (prefix, next(_counter))
