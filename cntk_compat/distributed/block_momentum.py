"""Block momentum distributed learning: blockwise model-update filtering (BMUF; Chen & Huo, ICASSP 2016), as
CNTK 2.7 does it.

Every worker trains its own copy of the model with the local learner. Once a worker has seen its share of a
block (``block_size // workers`` samples since the last aggregation), the workers aggregate: the model deltas
since the block start are summed over the workers and filtered with the block momentum ``bm``::

    delta       = bm * delta + (1 - bm) * block_learning_rate * sum_over_workers(block_start - parameters)
    parameters  = block_start - delta            (Nesterov: then parameters -= bm * delta)
    block_start = parameters

``bm = exp(-n * workers / time_constant)``, computed by each worker from ``n``, its own samples since the last
aggregation; CNTK's default time constant makes ``bm = 1 - 1/workers`` for a full block, so that
``(1 - bm) * sum`` is the workers' average. Workers whose counts differ (partial last blocks) filter with
different momenta and end with different models, as in CNTK 2.7. Every agreed aggregation runs, also with no
samples since the last one (``bm`` is then 1): each empty minibatch after the end of the data and each
checkpoint moves the model again by the stored delta, as in CNTK 2.7. The first block starts at the first
minibatch, so the local progress of the warm start (``distributed_after``, which ends on each worker by its own
count, with no collective before) is part of it.

Before each collective the workers agree on what to do (CNTK's protocol): a worker that wants to aggregate wins;
a checkpoint happens once every worker asks for it; the end of data once every worker has run out of data; the
averaging of a training summary's loss and metric, and a training session's evaluation of its cross validation
or test data (partitioned, with totals summed over the workers), once every worker asks for it (and not at all
when the others want something else than an aggregation). A worker without data (an empty minibatch from the
Trainer) joins the others' aggregations until all have finished; then the workers aggregate a last time and
training stops. Checkpoints aggregate first.
"""
import math
import numbers

import numpy as np
import torch

from .communicator import Communicator, all_reduce_sum, broadcast_from_main
from .learner import DistributedLearner, _local_sample_count

__all__ = ["BlockMomentumDistributedLearner", "block_momentum_distributed_learner"]

# what a worker asks for, and what the workers' agreement may grant
_AGGREGATE, _CHECKPOINT, _SHUTDOWN, _METRICS, _EVALUATE = range(5)
_WAIT = 5           # granted only
_VOTES = 5          # the vote tensor: one slot per request, then the sample counts


def _positive_integer(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != int(value) or value <= 0:
        raise ValueError("%s must be a positive integer (samples), got %r" % (name, value))
    return int(value)


def _positive_number(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError("%s must be a positive finite number, got %r" % (name, value))
    return float(value)


def _time_constant(block_momentum_as_time_constant, block_size, workers):
    """The block momentum time constant in samples; CNTK's default gives bm = 1 - 1/workers per full block."""
    if block_momentum_as_time_constant is None:
        default_momentum = 1.0 - 1.0 / workers
        return 0.0 if default_momentum == 0.0 else -block_size / math.log(default_momentum)
    tc = block_momentum_as_time_constant
    if isinstance(tc, bool) or not isinstance(tc, numbers.Real) or not math.isfinite(tc) or tc < 0:
        raise ValueError("block_momentum_as_time_constant must be a finite number >= 0 (samples) or None, got %r"
                         % (tc,))
    return float(tc)


def _flatten(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors])


def _assign(tensors, flat):
    views = [v.view_as(t) for v, t in zip(flat.split([t.numel() for t in tensors]), tensors)]
    with torch.no_grad():
        torch._foreach_copy_(tensors, views)


class BlockMomentumDistributedLearner(DistributedLearner):
    """Wraps a local learner with blockwise model-update filtering; see the module docstring."""

    aggregates_every_minibatch = False

    def __init__(self, learner, block_size, block_momentum_as_time_constant=None, use_nestrov_momentum=True,
                 reset_sgd_momentum_after_aggregation=True, block_learning_rate=1.0, distributed_after=0):
        super(BlockMomentumDistributedLearner, self).__init__(learner, distributed_after)
        block_size = _positive_integer(block_size, "block_size")
        workers = Communicator.num_workers()
        self._samples_per_worker_block = block_size // workers
        if self._samples_per_worker_block == 0:
            raise ValueError("block_size (%d samples) must be at least the number of workers (%d)"
                             % (block_size, workers))
        self._time_constant = _time_constant(block_momentum_as_time_constant, block_size, workers)
        self._block_learning_rate = _positive_number(block_learning_rate, "block_learning_rate")
        self._use_nesterov = bool(use_nestrov_momentum)
        self._reset_local_state = bool(reset_sgd_momentum_after_aggregation)
        # flat vectors, one per dtype and device of the parameters (see _groups); None before the first minibatch
        self._block_start = None
        self._momentum_delta = None
        self._samples_in_block = 0         # this worker's, since the last aggregation
        self._block_samples = 0            # all workers', since the last aggregation (known at each agreement)
        self._local_samples_seen = 0       # this worker's, warm start included
        self._warm_start_samples = None    # None until this worker's distributed phase, then 0

    def _block_momentum(self):
        """The filter's momentum for the block now ending, as CNTK 2.7 computes it on each worker: from this
        worker's own samples since the last aggregation, with the time constant shared out over the workers
        (``exp(-samples_in_block * workers / time_constant)``). A full block gives every worker the same
        momentum; where the workers' counts differ (the end of the data, a checkpoint) so do their momenta, and
        then their models (as in CNTK). A worker that trained nothing since the last aggregation has momentum
        1 (for a positive time constant): its block update repeats the last filtered delta."""
        per_worker = self._time_constant / Communicator.num_workers()
        if per_worker == 0.0:
            return 0.0
        return math.exp(-self._samples_in_block / per_worker)

    # -- the update -----------------------------------------------------------------------------------------
    def _synchronize_parameters(self):
        """The main worker's parameters reach every worker before the first minibatch (and after a restore);
        later phases start without a broadcast: the warm start ends on each worker by its own count."""
        if self._phase is None:
            broadcast_from_main([p.tensor.data for p in self._learner.parameters])
            self._phase = "started"
        return self._warm_start_samples is None

    def update_minibatch(self, gradient_values, info):
        """CNTK 2.7's rule: a worker trains alone, without any collective, while ``distributed_after`` exceeds
        its own sample count including this minibatch (its total_number_of_samples_seen is then that count);
        the minibatch that reaches it is the first of the first block. Afterwards the agreed count is the sum
        of every worker's samples, warm start included."""
        info.num_samples = n = _local_sample_count(info.num_samples)
        self._synchronize_parameters()
        if self._block_start is None:
            self._take_block_start()
        if self._warm_start_samples is None:
            if self._distributed_after > self._samples_seen + n:
                updated = self._learner.update(gradient_values, n, info.is_sweep_end) if n else False
                self._local_samples_seen += n
                self._samples_seen += n     # this worker's count (or the sum agreed at a checkpoint, plus it)
                return updated      # (False for an empty minibatch: the data ended in the warm start)
            self._warm_start_samples = 0
        return self._distributed_minibatch(gradient_values, info)

    def _distributed_minibatch(self, gradient_values, info):
        n = info.num_samples
        if n == 0:
            return self._end_of_data()
        # CNTK's order: the local update first, so that every worker leaves an aggregation with the same model
        self._learner.update(gradient_values, n, info.is_sweep_end)
        self._local_samples_seen += n
        self._samples_seen += n
        self._samples_in_block += n
        if self._samples_in_block >= self._samples_per_worker_block:
            self._synchronize(_AGGREGATE)   # a worker asking to aggregate is always granted it
            self._aggregate()
        return True

    def _end_of_data(self):
        """This worker has no more data: it joins the other workers' aggregations until every worker is done,
        then the workers aggregate a last time. Returns whether training goes on: True when other workers want
        a checkpoint first (this worker must then take part in it and train another empty minibatch), False
        when training is over."""
        while True:
            action = self._synchronize(_SHUTDOWN)
            if action == _CHECKPOINT:
                return True
            if action == _WAIT:         # others are averaging a summary's metrics: they give up and come here
                continue
            self._aggregate()
            if action == _SHUTDOWN:
                return False

    def average_metrics(self, loss, metric):
        """CNTK's aggregation of a training summary's metrics: the loss and metric sums since the last summary
        (tensors or None), summed over the workers and divided by their number. Every worker must ask (the
        Trainer's summarize_training_progress does); when the others want a checkpoint or have run out of data
        instead, the sums stay this worker's, as in CNTK. Returns (loss, metric)."""
        workers = Communicator.num_workers()
        if workers == 1:
            return loss, metric
        if not self._agree(_METRICS):
            return loss, metric
        device = self._learner.parameters[0].tensor.device
        sums = torch.tensor([0.0 if loss is None else float(loss), 0.0 if metric is None else float(metric)],
                            dtype=torch.float64, device=device)
        sums = all_reduce_sum([sums], "training summary's loss and metric")[0] / workers
        return (None if loss is None else sums[0]), (None if metric is None else sums[1])

    def agree_to_evaluate(self):
        """Whether the workers evaluate a training session's cross validation or test data together now
        (partitioned, the totals summed over the workers), as CNTK 2.7 does: once every worker asks for it, after
        the aggregations the others ask for first. When the others want a checkpoint, have run out of data, or
        are averaging a training summary instead, this worker evaluates the whole data alone."""
        return Communicator.num_workers() == 1 or self._agree(_EVALUATE)

    def _agree(self, wanted):
        """Whether every worker asks for ``wanted`` (averaging a summary's metrics or evaluating), joining the
        aggregations that others ask for first; False when the others want something else (in the warm start
        too, as CNTK)."""
        while True:
            action = self._synchronize(wanted)
            if action == wanted:
                return True
            if action == _AGGREGATE:
                self._aggregate()
            elif action != _WAIT:
                return False

    def state_dict(self):
        """The checkpoint state. A collective, as CNTK's checkpoint: every worker must call it (the Trainer's
        save_checkpoint does), and the workers aggregate first."""
        # (in the warm start too, as CNTK 2.7: with no block samples the aggregation there returns every worker
        # to the block start, the parameters of the first minibatch, and the agreed count becomes the sum)
        while True:
            action = self._synchronize(_CHECKPOINT)
            if action == _CHECKPOINT:
                break
            if action == _AGGREGATE:
                self._aggregate()
        self._synchronize(_AGGREGATE)
        self._aggregate()
        return super(BlockMomentumDistributedLearner, self).state_dict()

    # -- the collectives ----------------------------------------------------------------------------------
    def _groups(self):
        """The learner's parameter tensors by dtype and device: [(parameter indices, tensors)]."""
        by_kind = {}
        for i, p in enumerate(self._learner.parameters):
            t = p.tensor
            indices, tensors = by_kind.setdefault((t.dtype, t.device), ([], []))
            indices.append(i)
            tensors.append(t)
        return list(by_kind.values())

    def _take_block_start(self):
        self._block_start = [_flatten(tensors) for _, tensors in self._groups()]
        self._momentum_delta = [torch.zeros_like(flat) for flat in self._block_start]

    def _synchronize(self, wanted):
        """Agree with the other workers on the next action (CNTK's rules). Also learns the samples of all
        workers: in total (the agreed sample count) and since the last aggregation."""
        votes = torch.zeros(_VOTES + 2, dtype=torch.float64)
        votes[wanted] = 1.0
        votes[_VOTES] = float(self._local_samples_seen)
        votes[_VOTES + 1] = float(self._samples_in_block)
        votes = all_reduce_sum([votes.to(self._learner.parameters[0].tensor.device)],
                               "block momentum votes and sample counts")[0]
        aggregate, checkpoint, shutdown, metrics, evaluate, samples, block_samples = votes.tolist()
        action = self._decide(wanted, aggregate, checkpoint, shutdown, metrics, evaluate)
        if wanted != _EVALUATE or action == _AGGREGATE:
            # (CNTK's evaluation meets the other workers outside block momentum's protocol: the counts stay)
            self._samples_seen = int(samples)
            self._block_samples = int(block_samples)
        return action

    @staticmethod
    def _decide(wanted, aggregate, checkpoint, shutdown, metrics, evaluate):
        """What this worker does after its vote for ``wanted``, from the counts of the workers' votes."""
        workers = Communicator.num_workers()
        for action, count in ((_METRICS, metrics), (_EVALUATE, evaluate), (_SHUTDOWN, shutdown),
                              (_CHECKPOINT, checkpoint)):
            if count == workers:
                return action
        if aggregate > 0:
            return _AGGREGATE
        # some want a checkpoint, some have run out of data, some want to average metrics or to evaluate: a
        # checkpoint comes first, then the end of data; metrics are averaged, and the workers evaluate together,
        # only when all ask together (otherwise those asking give up)
        if wanted == _SHUTDOWN:
            return _CHECKPOINT if checkpoint else _WAIT
        if wanted == _CHECKPOINT:
            return _WAIT if shutdown or metrics or evaluate else _CHECKPOINT
        return _SHUTDOWN if shutdown else _CHECKPOINT

    def _aggregate(self):
        """The block update: one all-reduce of the flattened model deltas per dtype and device. It runs at every
        agreed aggregation, also when no worker trained since the last one: the filter then moves the model
        again by the stored delta (times 1 + momentum with Nesterov), as CNTK 2.7 does on each empty minibatch
        after the end of the data and at a checkpoint."""
        if self._block_start is None:
            self._take_block_start()
        momentum = self._block_momentum()
        gain = (1.0 - momentum) * self._block_learning_rate
        groups = self._groups()
        deltas = all_reduce_sum([start - _flatten(tensors) for start, (_, tensors) in zip(self._block_start, groups)],
                                "block momentum model deltas")
        for start, delta, summed, (_, tensors) in zip(self._block_start, self._momentum_delta, deltas, groups):
            delta.mul_(momentum).add_(summed, alpha=gain)
            start.sub_(delta)
            if self._use_nesterov:
                start.sub_(delta, alpha=momentum)
            _assign(tensors, start)
        self._samples_in_block = 0
        self._block_samples = 0
        if self._reset_local_state:
            self._learner.reset_smoothed_gradients()

    # -- checkpoint state ---------------------------------------------------------------------------------
    def load_cntk_state(self, saved):
        """CNTK 2.7 aggregates before it writes a checkpoint, so the restored model starts the next block; its
        checkpoint keeps the block-level smoothed gradient (this learner's momentum delta) and the worker's own
        sample count."""
        super().load_cntk_state(saved.get("base", {}))
        self._take_block_start()
        self._momentum_delta = self._flat_from([torch.as_tensor(np.asarray(v))
                                                for v in saved.get("blockLevelSmoothedGradient", ())],
                                               "blockLevelSmoothedGradient")
        self._samples_in_block = 0
        self._local_samples_seen = int(saved.get("localTotalNumSamplesSeen", 0))
        self._warm_start_samples = None if self._distributed_after > self._samples_seen else 0

    def _per_parameter(self, flats):
        if flats is None:
            return None
        values = [None] * len(self._learner.parameters)
        for flat, (indices, tensors) in zip(flats, self._groups()):
            for i, v, t in zip(indices, flat.split([t.numel() for t in tensors]), tensors):
                values[i] = v.view_as(t).clone()
        return values

    def _flat_from(self, values, name):
        count = len(self._learner.parameters)
        if not isinstance(values, (list, tuple)) or len(values) != count:
            raise ValueError("load_state_dict: %s must be a list of %d tensors (one per parameter), got %s"
                             % (name, count, "%d" % len(values) if isinstance(values, (list, tuple))
                                else type(values).__name__))
        flats = []
        for indices, tensors in self._groups():
            for i, t in zip(indices, tensors):
                if tuple(values[i].shape) != tuple(t.shape):
                    raise ValueError("load_state_dict: %s of parameter %d has shape %s, expected %s"
                                     % (name, i, tuple(values[i].shape), tuple(t.shape)))
            flats.append(torch.cat([values[i].reshape(-1).to(dtype=t.dtype, device=t.device)
                                    for i, t in zip(indices, tensors)]))
        return flats

    def _extra_state(self):
        return {"block_start": self._per_parameter(self._block_start),
                "block_momentum_delta": self._per_parameter(self._momentum_delta),
                "samples_in_block": self._samples_in_block,
                "local_samples_seen": self._local_samples_seen,
                "warm_start_samples": self._warm_start_samples}

    def _load_extra_state(self, extra):
        if (extra["block_start"] is None) != (extra["block_momentum_delta"] is None):
            raise ValueError("load_state_dict: block_start and block_momentum_delta must be both given or both None")
        if extra["block_start"] is None:
            self._block_start = self._momentum_delta = None
        else:
            self._block_start = self._flat_from(extra["block_start"], "block_start")
            self._momentum_delta = self._flat_from(extra["block_momentum_delta"], "block_momentum_delta")
        self._samples_in_block = int(extra["samples_in_block"])
        self._local_samples_seen = int(extra["local_samples_seen"])
        warm = extra["warm_start_samples"]
        self._warm_start_samples = None if warm is None else int(warm)


def block_momentum_distributed_learner(learner, block_size, block_momentum_as_time_constant=None,
                                       use_nestrov_momentum=True, reset_sgd_momentum_after_aggregation=True,
                                       block_learning_rate=1.0, distributed_after=0):
    """A distributed learner doing blockwise model-update filtering (Chen & Huo, ICASSP 2016).

    Args:
        learner: the local learner (e.g. ``sgd``, ``momentum_sgd``) each worker runs on its own data
        block_size (int): samples per block, summed over the workers
        block_momentum_as_time_constant (float): block momentum as a time constant in samples; None for
         CNTK's default, which gives a block momentum of ``1 - 1/workers``
        use_nestrov_momentum (bool): start each block from the Nesterov look-ahead point
        reset_sgd_momentum_after_aggregation (bool): zero the local learner's momentum / smoothed state after
         each aggregation
        block_learning_rate (float): the gain of the block-level update
        distributed_after (int): samples of local training before the workers start aggregating
    """
    return BlockMomentumDistributedLearner(learner, block_size, block_momentum_as_time_constant,
                                           use_nestrov_momentum, reset_sgd_momentum_after_aggregation,
                                           block_learning_rate, distributed_after)
