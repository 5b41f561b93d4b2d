"""Which step a recurrent loop is computing, for the stepwise ops inside it whose results depend on CNTK's layout
of the whole minibatch (a dropout's mask, drawn over CNTK's packed time steps). core.recurrence sets it around
each step of a RecurrentLoop; it is None outside loops."""
import threading

_current = threading.local()


class LoopCall(object):
    """One forward call of a recurrent loop over a (B, T) mask of valid steps: the step being computed (``t``),
    the direction, and what its ops keep for the call (``kept``, by key)."""

    def __init__(self, mask, backward):
        self.mask = mask
        self.backward = backward
        self.t = 0
        self.kept = {}
        self._lengths = None

    @property
    def lengths(self):
        """The sequences' lengths (a list of ints, computed once)."""
        if self._lengths is None:
            self._lengths = [int(n) for n in self.mask.sum(1).tolist()]
        return self._lengths


def current():
    """The LoopCall whose step is being computed, or None."""
    return getattr(_current, "call", None)


class running(object):
    """Context manager: ``call`` is the current loop call inside it."""

    def __init__(self, call):
        self.call = call

    def __enter__(self):
        self.outer = current()
        _current.call = self.call
        return self.call

    def __exit__(self, *exc):
        _current.call = self.outer
