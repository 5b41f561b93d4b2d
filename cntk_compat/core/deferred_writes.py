"""CNTK's assign writes its reference when the pass that evaluates it is over: every other node of the same pass
reads the reference's old value, whatever order the nodes run in (Keras' CNTK backend computes Adam's step from
the iteration count that the same update graph increments)."""
import threading
from contextlib import contextmanager

import torch

_local = threading.local()


@contextmanager
def one_pass():
    """A forward (or forward and backward) pass: the writes deferred inside happen, in order, when it succeeds."""
    stack = _local.__dict__.setdefault("stack", [])
    pending = []
    stack.append(pending)
    try:
        yield
    finally:
        stack.pop()
    with torch.no_grad():
        for ref, value in pending:
            ref.copy_(value)


def write_after_pass(ref, value):
    """Defers ref.copy_(value) to the end of the current pass; False when no pass is running (plain torch use of
    a lowered module), where the caller writes at once."""
    stack = getattr(_local, "stack", None)
    if not stack:
        return False
    stack[-1].append((ref, value))
    return True
