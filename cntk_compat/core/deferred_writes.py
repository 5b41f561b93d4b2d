"""CNTK's assign writes its reference when the pass that evaluates it is over: every other node of the same pass
reads the reference's old value, whatever order the nodes run in (Keras' CNTK backend computes Adam's step from
the iteration count that the same update graph increments)."""
import threading

import torch

_local = threading.local()


class one_pass(object):
    """A forward (or forward and backward) pass, as a context: the writes deferred inside happen, in order, when it
    succeeds. (A plain class: it is entered on every call of every Function.)"""
    __slots__ = ("pending",)

    def __enter__(self):
        self.pending = []
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self.pending)
        return self

    def __exit__(self, error_type, error, traceback):
        _local.stack.pop()
        if self.pending and error_type is None:
            with torch.no_grad():
                for ref, value in self.pending:
                    ref.copy_(value)
        return False


def write_after_pass(ref, value):
    """Defers ref.copy_(value) to the end of the current pass; False when no pass is running (plain torch use of
    a lowered module), where the caller writes at once."""
    stack = getattr(_local, "stack", None)
    if not stack:
        return False
    stack[-1].append((ref, value))
    return True
