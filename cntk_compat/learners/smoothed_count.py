"""State shared by the learners that keep running averages: how much those averages have seen so far."""


class SmoothedCountState(object):
    """Checkpoints and resets ``_smoothed_count`` (an int count of minibatches, or a float average with
    ``_count_type = float``)."""

    _count_type = int

    def _extra_state(self):
        return {"smoothed_count": self._smoothed_count}

    def _load_extra_state(self, extra):
        self._smoothed_count = self._count_type(extra["smoothed_count"])

    def _reset_extra_state(self):
        self._smoothed_count = self._count_type(0)
