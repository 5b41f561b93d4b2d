"""DistributedLearner: a local learner whose updates are coordinated among the workers of a run.

The Trainer drives it through two public methods per minibatch (see "How to write a learner" in
docs/ARCHITECTURE.md): ``forward_backward(run_forward, loss_function, gradients)`` runs the minibatch's forward
and backward pass (a DDP-based learner runs them under DistributedDataParallel), and
``update_minibatch(gradient_values, info)`` updates (info: a :class:`MinibatchInfo` with this worker's sample
count, loss and metric sums, which the learner may replace by their sums over all workers). Every worker must
call both for every minibatch, with ``info.num_samples == 0`` and zero gradients when it has no data, since
they run collectives. ``worker_state()`` / ``load_worker_state(state)`` carry what a checkpoint keeps for
each worker alone.

Until ``distributed_after`` samples have been seen the local learner updates alone (CNTK's warm start; the
training session then gives every worker the whole minibatch, so all workers train alike). The count of that
phase is the largest local count of the minibatch over the workers, so that all workers agree on the sample
at which aggregation starts. Afterwards a subclass's ``_distributed_minibatch`` (or, for subclasses that only
know gradients, ``_distributed_update(gradient_values, training_sample_count, is_sweep_end)``) does the update.
Each time a phase starts (the first minibatch, and the end of the warm start) the parameters of the main
worker are broadcast, so all workers continue from the same values (also after a restore from a checkpoint).
"""
import numbers

import torch

from .communicator import Communicator, all_reduce_max, broadcast_from_main, process_group_ready


class MinibatchInfo(object):
    """One minibatch as the Trainer sees it: sample count, loss and metric sums (tensors or None), sweep end."""

    __slots__ = ("num_samples", "loss", "metric", "is_sweep_end")

    def __init__(self, num_samples, loss=None, metric=None, is_sweep_end=False):
        self.num_samples = num_samples
        self.loss = loss
        self.metric = metric
        self.is_sweep_end = bool(is_sweep_end)


def _local_sample_count(training_sample_count):
    n = training_sample_count
    if type(n) is int and n >= 0:  # the common case, without the slower numbers.Real check
        return n
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or n != int(n) or n < 0:
        raise ValueError("training_sample_count must be a non-negative integer (0 for a worker without data), "
                         "got %r" % (training_sample_count,))
    return int(n)


class DistributedLearner(object):
    """Wraps ``learner``; see the module docstring."""

    #: whether the workers meet at every minibatch (and can agree then, e.g. on sample counts); False for a
    #: learner whose workers meet only at its own aggregations, between which no other collective may run
    aggregates_every_minibatch = True

    def __init__(self, learner, distributed_after=0):
        if isinstance(distributed_after, bool) or not isinstance(distributed_after, numbers.Integral) or \
                distributed_after < 0:
            raise ValueError("distributed_after must be a non-negative integer (samples), got %r"
                             % (distributed_after,))
        if isinstance(learner, DistributedLearner) or not callable(getattr(learner, "update", None)):
            raise TypeError("learner must be a local learner (such as cntk.sgd(...)), got %r" % (learner,))
        self._learner = learner
        process_group_ready()       # as CNTK starts MPI when a distributed learner is created
        self._distributed_after = int(distributed_after)
        self._samples_seen = 0       # agreed by all workers
        self._phase = None           # 'warm start' or 'distributed': the phase whose parameters were broadcast
        # set by the Trainer: whether it has an evaluation function, so that a worker without data in a minibatch
        # still takes the metric summed over the workers (its own forward pass computed none)
        self.metric_expected = False

    # -- the learner's face -------------------------------------------------------------------------------
    @property
    def parameters(self):
        return self._learner.parameters

    def learning_rate(self):
        return self._learner.learning_rate()

    def reset_learning_rate(self, learning_rate):
        self._learner.reset_learning_rate(learning_rate)

    def add_progress_writers(self, progress_writers):
        """Kept on the distributed learner and not passed to the local one, as in CNTK: a Trainer with a
        distributed learner prints no "Learning rate per ..." lines."""
        writers = progress_writers if isinstance(progress_writers, (list, tuple)) else [progress_writers]
        self._progress_writers = getattr(self, "_progress_writers", []) + \
            [w for w in writers if w not in getattr(self, "_progress_writers", [])]

    def communicator(self):
        """The :class:`Communicator` of the workers."""
        return Communicator()

    @property
    def distributed_after(self):
        """Samples trained locally before the workers start aggregating."""
        return self._distributed_after

    @property
    def total_number_of_samples_seen(self):
        """Samples seen by all workers together."""
        return self._samples_seen

    def state_dict(self):
        return {"learner": type(self).__name__, "local": self._learner.state_dict(),
                "samples_seen": self._samples_seen, "extra": self._extra_state()}

    def load_state_dict(self, state):
        if state.get("learner") != type(self).__name__:
            raise ValueError("load_state_dict: the state belongs to a %s learner, not to a %s"
                             % (state.get("learner"), type(self).__name__))
        self._learner.load_state_dict(state["local"])
        self._samples_seen = int(state["samples_seen"])
        self._load_extra_state(state["extra"])

    def create_checkpoint(self):
        return self.state_dict()

    def restore_from_checkpoint(self, checkpoint):
        self.load_state_dict(checkpoint)

    # -- the update ---------------------------------------------------------------------------------------
    def update(self, gradient_values, training_sample_count, is_sweep_end=False):
        """One minibatch of this worker (``training_sample_count`` may be 0 for a worker without data, which
        still takes part in the collectives). Returns whether the parameters were updated."""
        return self.update_minibatch(gradient_values, MinibatchInfo(training_sample_count,
                                                                    is_sweep_end=is_sweep_end))

    def update_minibatch(self, gradient_values, info):
        """The update of one minibatch as the Trainer hands it over: ``info`` (a :class:`MinibatchInfo`) holds
        this worker's sample count, loss and metric sums; a learner that aggregates them over the workers
        replaces them by the sums, which the Trainer then reports. Returns whether the parameters were
        updated."""
        info.num_samples = _local_sample_count(info.num_samples)
        warm_start = self._synchronize_parameters()
        if warm_start:
            return self._warm_start_update(gradient_values, info)
        return self._distributed_minibatch(gradient_values, info)

    def _synchronize_parameters(self):
        """Broadcasts the main worker's parameters when a phase starts (before each forward pass, so that the
        first gradients already come from the same values). Returns whether the warm start is on."""
        warm_start = self._samples_seen < self._distributed_after
        phase = "warm start" if warm_start else "distributed"
        if self._phase != phase:
            broadcast_from_main([p.tensor.data for p in self._learner.parameters])
            self._phase = phase
        return warm_start

    def forward_backward(self, run_forward, loss_function, gradients):
        """One minibatch's forward and backward pass: ``run_forward()`` gives (samples, loss sum, metric sum,
        fetched outputs, input tensors whose gradients CNTK computes), None for a worker without data;
        ``gradients(loss, those inputs)`` the gradients by parameter; ``loss_function`` is the Trainer's loss
        Function. Returns (samples, loss, metric, fetched outputs, gradients by parameter) of this worker.
        The main worker's parameters reach every worker first when a phase starts."""
        self._synchronize_parameters()
        n, loss, metric, fetched, gradient_inputs = run_forward() if run_forward is not None \
            else (0, None, None, {}, ())
        grads = gradients(loss, gradient_inputs)
        return n, (None if loss is None else loss.detach()), (None if metric is None else metric.detach()), \
            fetched, grads

    def average_metrics(self, loss, metric):
        """The loss and metric sums of a training summary (tensors or None) as the workers report them: here
        unchanged, since every minibatch's sums are already those of all workers; a learner whose workers meet
        only now and then (block momentum) averages them over the workers. Every worker must call it (the
        Trainer's summarize_training_progress does)."""
        return loss, metric

    def agree_to_evaluate(self):
        """Whether the workers evaluate a training session's cross validation or test data together now, each
        its partition with the totals summed over all workers (as CNTK 2.7 does), rather than each the whole
        data alone. Here always: the workers meet at every minibatch, so they reach each evaluation together.
        A learner whose workers meet only now and then (block momentum) first agrees on it with the others.
        Every worker must call it at each evaluation (the training session does)."""
        return True

    def _warm_start_update(self, gradient_values, info):
        n = info.num_samples
        updated = self._learner.update(gradient_values, n, info.is_sweep_end) if n else False
        device = self._learner.parameters[0].tensor.device
        agreed = all_reduce_max(torch.tensor([float(n), float(updated)], dtype=torch.float64, device=device),
                                "warm start's sample counts")
        self._samples_seen += int(agreed[0].item())
        return bool(agreed[1].item())

    def _distributed_minibatch(self, gradient_values, info):
        return self._distributed_update(gradient_values, info.num_samples, info.is_sweep_end)

    def _distributed_update(self, gradient_values, training_sample_count, is_sweep_end):
        raise NotImplementedError("%s must implement _distributed_update" % type(self).__name__)

    def _extra_state(self):
        return {}

    @staticmethod
    def cntk_local_learner_state(saved):
        """The local learner's part of the state a CNTK 2.7 checkpoint holds for a distributed learner (None
        when ``saved`` is a local learner's own); block momentum keeps it under "base"."""
        return saved.get("base", saved).get("localLearners")

    def load_cntk_state(self, saved):
        """Restores what CNTK 2.7's checkpoint holds for this distributed learner beside its local learner's
        state (which the Trainer restores first, with the model's values)."""
        self._samples_seen = int(saved.get("totalNumberOfSamplesSeen", 0))

    def worker_state(self):
        """State of this worker alone (not shared by the workers) that a checkpoint keeps for each worker."""
        return None

    def load_worker_state(self, state):
        """Restores what :meth:`worker_state` gave on this worker (None: nothing was saved for it)."""

    def _load_extra_state(self, extra):
        pass
