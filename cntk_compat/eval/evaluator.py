"""The Evaluator: averages an evaluation function over test minibatches and reports to progress writers."""
from ..core import node_timing
from ..train._feed import as_function, progress_writer_list, test_step, write_test_summary

__all__ = [
    "Evaluator", "MinibatchData", "use_default_device"
]


class Evaluator(object):
    """Evaluates ``eval_function`` (a single-output Function or Variable) on minibatches.

    Args:
        eval_function: the metric to average over samples.
        progress_writers: a progress writer or a list of them (see :mod:`cntk.logging`).
    """

    def __init__(self, eval_function, progress_writers=None):
        if eval_function is None:
            raise ValueError("Evaluator: eval_function must not be None")
        self._function = as_function(eval_function, "Evaluator eval_function")
        if len(self._function.outputs) != 1:
            raise ValueError("Evaluator: eval_function must have one output, it has %d"
                             % len(self._function.outputs))
        self._progress_writers = progress_writer_list(progress_writers)
        self._total = None
        self._ran = False       # CNTK's print_node_timing prints nothing before the first minibatch

    @property
    def evaluation_function(self):
        """The evaluation function that the evaluator is using."""
        return self._function

    def test_minibatch(self, arguments, device=None, distributed=False):
        """The average of the evaluation function per sample over the minibatch ``arguments`` (a dict by
        input Variable or name, or bare data when there is one input)."""
        if distributed:
            raise ValueError("Evaluator.test_minibatch: distributed evaluation is not supported")
        average, self._total = test_step(self._function.output, tuple(self._function.arguments), arguments,
                                         device, self._total, self._progress_writers)
        self._ran = True
        return average

    def print_node_timing(self):
        """Writes to stderr each node's average forward time and count for the nodes of the evaluation
        function, gathered while ``cntk.debugging.set_node_timing(True)`` was on; nothing before the first
        minibatch, as CNTK (whose network is compiled then)."""
        if self._ran:
            node_timing.print_table([self._function])

    def summarize_test_progress(self):
        """Writes the test summary since the previous one to the progress writers and resets it."""
        write_test_summary(self._progress_writers, self._total)
        self._total = None

# names CNTK's cntk.eval.evaluator also exposes
from ..core.device import use_default_device  # noqa: F401,E402
from ..io.minibatch_data import MinibatchData  # noqa: F401,E402
