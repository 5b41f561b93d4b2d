"""The Trainer: one gradient step per minibatch for a (loss, metric) criterion, spread over learners."""
import os
import sys

import numpy as np

import torch

from ..core import autograd_calls, graph_version, node_timing, random_stream
from ..core.engine import evaluate_tensors, to_numpy
from ..core.function import Function, as_variable, keyed_as_requested
from ..core.graph import node_inputs_and_body, walk
from ..core.hooks import hook
from ..core.native_errors import RuntimeValueError, announced, director_failure
from ..distributed.communicator import Communicator, all_gather_object, all_reduce_sum
from ..distributed.learner import DistributedLearner, MinibatchInfo
from ..learners.learner import OwnedGradients
from ..learners.user_learner import UserLearner
from . import checkpoint as _checkpoint
from ._feed import (AGGREGATE_METRIC, argument_map, as_function, criterion_pair, exact_sum, progress_writer_list,
                    sample_count, summed, summed_without_gradients, sweep_end_of, test_step, write_test_summary)

__all__ = [
    "Trainer", "MinibatchData", "use_default_device"
]


# CNTK 2.7's SWIG wrapper refuses learners that are not learners and progress writers that are not progress
# writers with this text (e.g. CNTK 2.0 beta's Trainer(model, loss, metric, learner) signature)
_TRAINER_IMPL_OVERLOADS = (
    "Wrong number or type of arguments for overloaded function 'trainer_impl'.\n"
    "  Possible C/C++ prototypes are:\n"
    "    TrainerImpl(::CNTK::FunctionPtr const &,::CNTK::FunctionPtr const &,::CNTK::FunctionPtr const &,"
    "std::vector< CNTK::DistributedLearnerPtr,std::allocator< CNTK::DistributedLearnerPtr > > const &,"
    "std::vector< CNTK::ProgressWriterPtr,std::allocator< CNTK::ProgressWriterPtr > > const &)\n"
    "    TrainerImpl(::CNTK::FunctionPtr const &,::CNTK::FunctionPtr const &,::CNTK::FunctionPtr const &,"
    "std::vector< CNTK::LearnerPtr,std::allocator< CNTK::LearnerPtr > > const &,"
    "std::vector< CNTK::ProgressWriterPtr,std::allocator< CNTK::ProgressWriterPtr > > const &)\n")


def _is_learner(obj):
    # a cntk learner, or any object with the learner protocol (docs/ARCHITECTURE.md, "How to write a learner")
    return callable(getattr(obj, "update", None)) and callable(getattr(obj, "add_progress_writers", None))


_NO_PREVIOUS_MINIBATCH = "There was no preceding call to TrainMinibatch or the minibatch was empty."


class NoPreviousMinibatchError(RuntimeValueError):
    """The previous minibatch's loss or metric asked for before any (or after an empty one): CNTK 2.7's
    RuntimeError."""


def _is_progress_writer(obj):
    # a cntk progress writer, or any object with the methods the Trainer calls on one
    return all(callable(getattr(obj, m, None)) for m in ("update_training", "update_test", "write_training_summary",
                                                          "write_test_summary"))


def _check_trainer_argument_types(learners, progress_writers):
    if not (all(_is_learner(l) for l in learners) and all(_is_progress_writer(w) for w in progress_writers)):
        raise NotImplementedError(_TRAINER_IMPL_OVERLOADS)


class Trainer(object):
    """Trains ``model`` by minimizing the loss of ``criterion`` with ``parameter_learners``.

    Args:
        model (Function or None): the model being trained (only reported back; may be None).
        criterion: a loss Function, a ``(loss, metric)`` pair (metric may be None), or a Function with two
         outputs (loss, metric).
        parameter_learners: a learner or a list of learners over disjoint sets of the criterion's parameters;
         parameters no learner covers are left unchanged.
        progress_writers: a progress writer or a list of them (see :mod:`cntk.logging`).
    """

    def __init__(self, model, criterion, parameter_learners, progress_writers=None):
        self._loss, self._metric = criterion_pair(criterion)
        self._model = as_function(model, "Trainer model") if model is not None else None
        learners = parameter_learners if isinstance(parameter_learners, (list, tuple)) else [parameter_learners]
        self._learners = list(learners)
        if not self._learners:
            raise ValueError("Trainer: parameter_learners is empty; there must be at least one learner")
        self._progress_writers = progress_writer_list(progress_writers)
        _check_trainer_argument_types(self._learners, self._progress_writers)
        for learner in self._learners:
            learner.add_progress_writers(self._progress_writers)
        self._outputs = [self._loss.output] + ([self._metric.output] if self._metric is not None else [])
        # this Trainer's own random state (CNTK compiles a network per Trainer; see random_stream.Network)
        self._random_network = random_stream.Network(self._checkpoint_graph())
        self._combined_training_function = None  # the checkpoint's model file (_checkpoint_model), made at first use
        if np.dtype(self._loss.output.dtype) == np.float16:
            # CNTK 2.7's Trainer constructor says so on stderr (without a newline), before its other notes
            sys.stderr.write("WARNING: using Float16 for loss function may cause overflow, please cast to float")
            sys.stderr.flush()
        self._parameters = self._check_learners()
        self._distributed = _distributed_learner(self._learners)
        self._samples_at_last_sync = 0
        self._arguments_of = tuple(self._all_arguments())
        self._samples_seen = 0
        self._per_sample = (None, False)     # (graph version, _per_sample_criterion)
        self._sparse = (None, {})            # (graph version, _sparse_gradients)
        self._prev = (None, None, 0)
        self._train_acc = [None, None]
        self._test_acc = None
        self._ran = False       # CNTK's print_node_timing prints nothing before the first minibatch

    # ------------------------------------------------------------------ construction helpers
    # CNTK's helper (loss, metric or None) from a criterion; CNTK's examples call it to build their own evaluators
    _get_loss_metric = staticmethod(criterion_pair)

    def _check_learners(self):
        owner = {}
        # each learner's parameters, asked once (the learner protocol): its share of every minibatch's gradients
        self._learner_parameters = [list(learner.parameters) for learner in self._learners]
        for learner_parameters in self._learner_parameters:
            for p in learner_parameters:
                if p in owner:
                    raise announced(ValueError, "Parameter '%r' is covered by 2 different learners" % (p,))
                owner[p] = learner_parameters
        # CNTK 2.7: a learner's parameter must be one of the model's, the loss's or the metric's. One the loss
        # does not reach (a parameter of the model only) is accepted and gets zero gradients (CNTK's own
        # training crashes on it)
        known = set(Function._composite(self._outputs).parameters)
        if self._model is not None:
            known.update(self._model.parameters)
        foreign = [p for p in owner if p not in known]
        if foreign:
            raise announced(ValueError, "Trainer ctor: %d of the learner parameters '%s' are not part of the model "
                            "specified" % (len(foreign), ", ".join(repr(p) for p in foreign)))
        uncovered = len(known) - len(owner)
        if uncovered:   # CNTK's Trainer constructor says so on stderr
            sys.stderr.write("[Note:] Trainer ctor: %d of the model parameters are not covered by any of the "
                             "specified Learners; these parameters will not be learned\n" % uncovered)
            sys.stderr.flush()
        return list(owner)

    def _all_arguments(self):
        seen = []
        for f in (self._loss, self._metric, self._model):
            for a in (f.arguments if f is not None else ()):
                if a not in seen:
                    seen.append(a)
        return seen

    # ------------------------------------------------------------------ properties
    @property
    def model(self):
        """The model that the trainer is training."""
        return self._model

    @property
    def loss_function(self):
        """The loss function that the trainer is using."""
        return self._loss

    @property
    def evaluation_function(self):
        """The evaluation function that the trainer is using (None when there is none)."""
        return self._metric

    @property
    def parameter_learners(self):
        """The parameter learners that the trainer is using."""
        return tuple(self._learners)     # a tuple, as CNTK 2.7 returns it

    @property
    def previous_minibatch_loss_average(self):
        """The average training loss per sample of the last minibatch trained."""
        loss, _, n = self._prev
        if loss is None:
            raise NoPreviousMinibatchError(_NO_PREVIOUS_MINIBATCH)
        return float(loss) / n

    @property
    def previous_minibatch_evaluation_average(self):
        """The average evaluation criterion value per sample of the last minibatch trained."""
        _, metric, n = self._prev
        if self._metric is None:
            raise ValueError("Trainer::PreviousMinibatchEvaluationAverage: Cannot get evaluation criterion value when "
                             "no evaluation function was specified during 'this' trainer's construction")
        if metric is None:
            raise NoPreviousMinibatchError(_NO_PREVIOUS_MINIBATCH)
        return float(metric) / n

    @property
    def previous_minibatch_sample_count(self):
        """The number of samples in the last minibatch trained."""
        return self._prev[2]

    @property
    def total_number_of_samples_seen(self):
        """The number of samples trained on since the start (restored by checkpoints); with a distributed
        learner, by all workers together: the learner's count, which a block momentum learner also learns when
        the workers meet for a training summary or a checkpoint (as CNTK 2.7's Trainer, a training session's
        next action already sees it)."""
        return self._samples_seen if self._distributed is None else self._distributed.total_number_of_samples_seen

    def total_number_of_units_seen(self, unit):
        """The samples, minibatches or sweeps (``unit``, a :class:`~cntk.train.DataUnit`) trained on since the
        start, as the (first) learner counts them; restored by checkpoints."""
        from .training_session import DataUnit
        unit = DataUnit(int(unit))
        if unit == DataUnit.sample:
            return self.total_number_of_samples_seen
        learner = self._learners[0]
        learner = getattr(learner, "_learner", learner)     # a distributed learner's local learner
        count = getattr(learner, "total_number_of_minibatches_seen" if unit == DataUnit.minibatch
                        else "total_number_of_sweeps_seen", None)
        return int(count()) if count is not None else 0

    # ------------------------------------------------------------------ training
    def train_minibatch(self, arguments, outputs=None, device=None, is_sweep_end=None):
        with self._random_network.running():
            return self._train_minibatch(arguments, outputs, device, is_sweep_end)

    def _train_minibatch(self, arguments, outputs=None, device=None, is_sweep_end=None):
        """Updates the parameters from one minibatch.

        ``arguments`` maps the criterion's (and model's) inputs, by Variable or name, to data (numpy / scipy
        arrays, lists of sequences, Values or :class:`~cntk.io.MinibatchData`). Returns True when some learner
        updated its parameters (False at the end of learning, or for empty data); with ``outputs``, a pair of
        that and a dict mapping each requested output to its value.

        With a distributed learner every worker must call this for every minibatch, with empty ``arguments``
        when it has no data left (it then contributes zero gradients); the loss, metric and sample count of
        the minibatch are then those of all workers together.
        """
        self._ran = True
        args = argument_map(self._arguments_of, arguments)
        from_reader = sweep_end_of(args)
        if from_reader is not None and is_sweep_end is not None:
            raise ValueError("train_minibatch: is_sweep_end must not be given when the data is MinibatchData "
                             "(the sweep end comes from the data)")
        sweep_end = bool(from_reader if from_reader is not None else is_sweep_end)
        if self._distributed is not None:
            if len(self._learners) > 1:
                # CNTK 2.7 marks its only distributed learner as the one that aggregates the metric; with several
                # it marks none, and every update fails (after updating the parameters: here before)
                raise RuntimeError("Update failed: Metric aggregation did not happen, none of the learners was "
                                   "marked as metric aggregator.")
            return self._train_distributed_minibatch(args, outputs, device, sweep_end)
        if not args:
            self._prev = (None, None, 0)    # CNTK 2.7 forgets the previous minibatch
            return (False, {}) if outputs else False
        n, loss, metric, fetched, gradient_inputs = self._training_forward(args, outputs, device)
        updated = self._step(loss, n, sweep_end, gradient_inputs)
        self._record_training(loss.detach(), None if metric is None else _detached(metric), n)
        if updated:
            self._samples_seen += n
        return (updated, fetched) if outputs else updated

    def _training_forward(self, args, outputs, device):
        """The forward pass of one training minibatch: (samples, loss sum, metric sum or None, {each requested
        output: its value}, the input tensors that need gradients). The values are keyed by the objects the caller
        listed, as CNTK 2.7 keys them (a Function listed is its key, not its output)."""
        outputs = list(outputs or ())
        extra = [as_variable(o, "outputs") for o in outputs]

        def requested():    # CNTK's error for missing data names what its Trainer's network computes: the loss,
            # its aggregation nodes and the requested outputs
            return ", ".join([repr(self._loss.output), "Output('aggregateLoss', [], [])"] +
                             ([AGGREGATE_METRIC] if self._metric is not None else []) + [repr(o) for o in extra])
        results, info = evaluate_tensors(self._outputs + extra, args, requires_grad=True, training=True,
                                         device=device, requested=requested)
        if self._per_sample_criterion():    # one value per sample: what sample_count and summed come to
            n = int(results[0].shape[0])
            loss = exact_sum(results[0])
            metric = exact_sum(results[1]) if self._metric is not None else None
        else:
            n = sample_count(self._loss.output, results[0], info)
            loss = summed(self._loss.output, results[0], info)
            metric = summed(self._metric.output, results[1], info) if self._metric is not None else None
        values = results[len(self._outputs):]
        fetched = {o: to_numpy(o, t, info.lengths_by_axis) for o, t in zip(extra, values)}
        fetched = keyed_as_requested(outputs, fetched) if outputs else fetched
        return n, loss, metric, fetched, info.gradient_inputs

    def _per_sample_criterion(self):
        """Whether the loss and metric have a batch axis and no sequence axis (worked out once per graph
        version): each minibatch then counts its batch and sums the values without masks."""
        version = graph_version.current()
        if self._per_sample[0] != version:
            self._per_sample = (version, all(o._has_batch and o._sequence_axis is None for o in self._outputs))
        return self._per_sample[1]

    def _gradients(self, loss, gradient_inputs=()):
        """{parameter: gradient of ``loss``} for all learned parameters (zeros where it does not depend on
        them, and all zeros without a loss: a distributed worker without data). The gradients of
        ``gradient_inputs`` (inputs with needs_gradient=True) are computed as CNTK does, and dropped."""
        params = self._parameters
        grads = ()
        if params and loss is not None and loss.requires_grad:
            tensors = [p.tensor for p in params]
            grads = autograd_calls.grad(loss, tensors + list(gradient_inputs))[:len(tensors)]
            grads = [torch.zeros_like(t) if g is None else g for g, t in zip(grads, tensors)]
        return dict(zip(params, grads)) if grads else {p: torch.zeros_like(p.tensor) for p in params}

    def _sparse_gradients(self):
        """{parameter: leading axes} for the parameters whose gradient CNTK computes as a sparse block matrix:
        those the loss reaches only as the right operand of times() with a sparse left operand (an Embedding of
        sparse input, times(one_hot_labels, W)); the blocks are the slices along the leading axes the sparse
        operand indexes. Worked out once per graph version."""
        version = graph_version.current()
        if self._sparse[0] != version:
            self._sparse = (version, sparse_gradient_parameters(self._loss.output, self._parameters))
        return self._sparse[1]

    def _step(self, loss, n, sweep_end, gradient_inputs=()):
        by_param = self._gradients(loss, gradient_inputs)
        sparse = self._sparse_gradients()
        updated = False
        for learner, parameters in zip(self._learners, self._learner_parameters):
            # the gradients are this step's own: a built-in learner may overwrite them (OwnedGradients)
            mine = OwnedGradients((p, by_param[p]) for p in parameters)
            if sparse:
                mine.sparse = {p: sparse[p] for p in parameters if p in sparse}
            try:
                updated = learner.update(mine, n, sweep_end) or updated
            except Exception:
                if isinstance(learner, UserLearner):   # CNTK's native trainer calls it through a SWIG director
                    raise director_failure() from None
                raise
        return updated

    def _train_distributed_minibatch(self, args, outputs, device, sweep_end):
        learner = self._distributed
        learner.metric_expected = self._metric is not None
        run_forward = (lambda: self._training_forward(args, outputs, device)) if args else None
        n, loss, metric, fetched, gradients = learner.forward_backward(run_forward, self._loss, self._gradients)
        minibatch = MinibatchInfo(n, loss, metric, sweep_end)
        samples_before = learner.total_number_of_samples_seen
        updated = learner.update_minibatch(gradients, minibatch)
        self._samples_seen = learner.total_number_of_samples_seen
        if self._samples_seen - samples_before > n:     # the workers' updates were aggregated
            for writer in self._progress_writers:
                writer.update_distributed_sync(self._samples_seen - self._samples_at_last_sync, None)
            self._samples_at_last_sync = self._samples_seen
        if minibatch.num_samples:
            self._record_training(minibatch.loss, None if self._metric is None else minibatch.metric,
                                  minibatch.num_samples)
        else:
            self._prev = (None, None, 0)
        return (updated, fetched) if outputs else updated

    def _record_training(self, loss, metric, n):
        self._prev = (loss, metric, n)
        if not self._progress_writers:
            return  # the running sums are only ever written to progress writers (none, from construction)
        acc = self._train_acc
        acc[0] = loss if acc[0] is None else acc[0] + loss
        if metric is not None:
            acc[1] = metric if acc[1] is None else acc[1] + metric
        # CNTK's Trainer reports a zero metric when it has no evaluation function ("metric = 0.00% * n").
        for writer in self._progress_writers:
            writer.update_training(n, acc[0], 0.0 if acc[1] is None else acc[1])

    def summarize_training_progress(self):
        """Writes the training summary since the previous one to the progress writers and resets it. With a
        learner whose workers do not meet every minibatch (block momentum) every worker must call it: the loss
        and metric are averaged over the workers, as in CNTK."""
        self._summarize_training_progress(average_over_workers=True)

    def _summarize_training_progress(self, average_over_workers):
        loss, metric = self._train_acc
        if average_over_workers and self._distributed is not None:
            loss, metric = self._distributed.average_metrics(loss, metric)
        for writer in self._progress_writers:
            writer.write_training_summary(0.0 if loss is None else loss, 0.0 if metric is None else metric)
        self._train_acc = [None, None]

    # ------------------------------------------------------------------ testing
    def test_minibatch(self, arguments, device=None):
        """The average evaluation criterion value per sample on one minibatch (parameters unchanged)."""
        with self._random_network.running():
            average, self._test_acc = test_step(self._metric_output(), self._arguments_of, arguments, device,
                                                self._test_acc, self._progress_writers)
        self._ran = True
        return average

    def _metric_output(self):
        if self._metric is None:
            raise announced(ValueError, "Evaluator::TestMinibatch: Cannot test when no evaluation function was "
                                        "specified during construction.")
        return self._metric.output

    def _distributed_test_minibatch(self, arguments, device=None):
        """(metric sum, samples) of one test minibatch over all workers, each passing its own part of it (empty
        ``arguments`` for a worker without data); the progress writers get these totals."""
        self._ran = True
        metric_output = self._metric_output()
        args = argument_map(self._arguments_of, arguments)
        totals = torch.zeros(2, dtype=torch.float64)
        if args:
            with self._random_network.running():
                step_total, n = summed_without_gradients(metric_output, args, device)
            totals[0], totals[1] = float(step_total), n
        all_reduce_sum([totals], "test metric sums and sample counts")
        metric, n = float(totals[0]), int(totals[1])
        if n:
            self._test_acc = totals[0] if self._test_acc is None else self._test_acc + totals[0]
            for writer in self._progress_writers:
                writer.update_test(n, self._test_acc)
        return metric, n

    def summarize_test_progress(self):
        """Writes the test summary since the previous one to the progress writers and resets it."""
        write_test_summary(self._progress_writers, self._test_acc)
        self._test_acc = None

    def print_node_timing(self):
        """Writes to stderr each node's average forward/backward time and counts for the nodes of the loss,
        metric and model, gathered while ``cntk.debugging.set_node_timing(True)`` was on; nothing before the
        first minibatch, as CNTK (whose network is compiled then)."""
        if self._ran:
            node_timing.print_table([self._loss, self._metric, self._model])

    # ------------------------------------------------------------------ checkpoints
    def _checkpoint_graph(self):
        return Function._composite(list(self._outputs) + list(self._model.outputs if self._model is not None else ()))

    def _checkpoint_model(self):
        """What CNTK 2.7 writes as a checkpoint's model file: the combined training function, the model's outputs,
        then the loss and its sum over all axes ('aggregateLoss'), then the metric and 'aggregateEvalMetric' if
        there is one (CNTK's BiDAF example reads the loss as output 2 of the model it loads)."""
        if self._combined_training_function is None:
            from ..axis import Axis
            from ..ops import combine, reduce_sum
            outputs = list(self._model.outputs) if self._model is not None else []
            for f, name in ((self._loss, "aggregateLoss"), (self._metric, "aggregateEvalMetric")):
                if f is not None:
                    outputs += [f.output, reduce_sum(f.output, axis=Axis.all_axes(), name=name).output]
            self._combined_training_function = combine(outputs)
        return self._combined_training_function

    def _checkpoint_parameters(self):
        return self._checkpoint_graph().parameters

    def save_checkpoint(self, filename, external_state={}):
        """Saves the parameter values, the learners' and the trainer's state, the random generators' and random
        nodes' state and ``external_state`` (a dict of numbers, strings, tensors, numpy values, and lists and
        dicts of them) to ``filename`` and ``filename.ckp``, atomically (see train/checkpoint.py).

        With a distributed learner every worker must call it: the main worker (rank 0) writes the file, which
        also holds each worker's ``external_state`` (such as its reader position)."""
        learner_states = [learner.state_dict() for learner in self._learners]
        self._random_network.commit()   # CNTK's checkpoint writes the network's random positions into the nodes
        if self._distributed is not None:
            worker_states = all_gather_object((dict(external_state), self._distributed.worker_state()),
                                              "checkpoint states of the workers")
            if Communicator.rank() == 0:
                self._write_checkpoint(filename, learner_states, external_state,
                                       {str(rank): s for rank, (s, _) in enumerate(worker_states)},
                                       {str(rank): s for rank, (_, s) in enumerate(worker_states)})
            Communicator().barrier()    # no worker reads the file before it is complete
            return
        self._write_checkpoint(filename, learner_states, external_state)

    def _write_checkpoint(self, filename, learner_states, external_state, worker_states=None,
                          worker_learner_states=None):
        state = {"parameters": [p.tensor.detach().cpu().clone() for p in self._checkpoint_parameters()],
                 # constants too (batch normalization's running statistics), as CNTK's checkpoint keeps the model
                 "constants": [c.tensor.detach().cpu().clone() for c in self._checkpoint_graph().constants],
                 "parameter_names": [p.name for p in self._checkpoint_parameters()],
                 "learners": learner_states,
                 "trainer": {"samples_seen": self._samples_seen},
                 "random": _checkpoint.random_state(),
                 "random_nodes": random_stream.random_state(self._checkpoint_graph()),
                 "external_state": dict(external_state)}
        if worker_states is not None:
            state["worker_external_states"] = worker_states
            state["worker_learner_states"] = worker_learner_states
        _checkpoint.save(filename, state, self._checkpoint_model())    # the model file loads with load_model

    def restore_from_checkpoint(self, filename):
        """Restores the state saved by :meth:`save_checkpoint`; returns its ``external_state`` (with a distributed
        learner every worker must call it, and gets the ``external_state`` it saved itself, if it did)."""
        if _is_cntk_checkpoint(filename):
            return self._restore_cntk_checkpoint(filename)
        state = _checkpoint.load(filename)
        params = self._checkpoint_parameters()
        saved = state["parameters"]
        if len(saved) != len(params):
            raise ValueError("restore_from_checkpoint: '%s' holds %d parameters, the model has %d"
                             % (filename, len(saved), len(params)))
        for p, value in zip(params, saved):
            if tuple(value.shape) != tuple(p.tensor.shape):
                raise ValueError("restore_from_checkpoint: '%s' holds shape %s for parameter %r, expected %s"
                                 % (filename, tuple(value.shape), p, tuple(p.tensor.shape)))
        if len(state["learners"]) != len(self._learners):
            raise ValueError("restore_from_checkpoint: '%s' holds %d learners, the Trainer has %d"
                             % (filename, len(state["learners"]), len(self._learners)))
        if "random_nodes" in state:  # first, as it checks that the random nodes match
            random_stream.set_random_state(self._checkpoint_graph(), state["random_nodes"],
                                           "restore_from_checkpoint: '%s'" % filename)
            self._random_network.restart()
        constants = self._checkpoint_graph().constants
        saved_constants = state.get("constants")  # absent from checkpoints written before constants were kept
        if saved_constants is not None and (len(saved_constants) != len(constants) or any(
                tuple(v.shape) != tuple(c.tensor.shape) for c, v in zip(constants, saved_constants))):
            raise ValueError("restore_from_checkpoint: '%s' holds %d constants that do not match the model's %d"
                             % (filename, len(saved_constants), len(constants)))
        with torch.no_grad():
            for p, value in zip(params, saved):
                p.tensor.copy_(value)
            for c, value in zip(constants, saved_constants or ()):
                c.tensor.copy_(value)
        for learner, learner_state in zip(self._learners, state["learners"]):
            learner.load_state_dict(learner_state)
        self._samples_seen = int(state["trainer"]["samples_seen"])
        _checkpoint.set_random_state(state["random"])
        if self._distributed is None:
            return state["external_state"]
        self._samples_at_last_sync = self._samples_seen
        rank = str(Communicator.rank())
        self._distributed.load_worker_state(state.get("worker_learner_states", {}).get(rank))
        Communicator().barrier()    # no worker writes a new checkpoint before all have read this one
        own = state.get("worker_external_states", {}).get(rank)
        return state["external_state"] if own is None else own

    def _restore_cntk_checkpoint(self, filename):
        """A checkpoint written by CNTK 2.x's Trainer.save_checkpoint: ``filename`` is a CNTK v2 model of the
        trainer's functions (parameter and constant values, matched by uid as Function.restore does) and
        ``filename.ckp`` a Dictionary holding each learner's state ('smoothed_gradients' in the order of its
        parameters, sample and minibatch counts) and the external state, which is returned."""
        what = "restore_from_checkpoint: '%s.ckp'" % filename
        state = hook("read_cntk_dictionary_file")(filename + ".ckp", what)
        learners = state.get("Learners")
        if not isinstance(learners, list):
            raise ValueError("%s is not a CNTK checkpoint's training state (keys %s)" % (what, sorted(state)))
        if len(learners) != len(self._learners):
            raise ValueError("%s holds %d learners, the Trainer has %d" % (what, len(learners), len(self._learners)))
        updates = []
        for k, (outer, saved_outer) in enumerate(zip(self._learners, learners)):
            # a distributed learner's state holds its local learner's (CNTK's "localLearners")
            learner = outer._learner if isinstance(outer, DistributedLearner) else outer
            saved = DistributedLearner.cntk_local_learner_state(saved_outer)
            if saved is None:
                if learner is not outer:
                    raise ValueError("%s: learner %d is a %s; the checkpoint holds a local learner's state (it was "
                                     "written without a distributed learner)" % (what, k, type(outer).__name__))
                saved = saved_outer
            smoothed = [np.asarray(v) for v in saved.get("smoothed_gradients", [])]
            names = learner._state_names
            if len(smoothed) != len(learner._parameters):
                raise ValueError("%s: learner %d holds %d smoothed gradients, it has %d parameters"
                                 % (what, k, len(smoothed), len(learner._parameters)))
            for p, v in zip(learner._parameters, smoothed):
                if names and v.size != len(names) * int(np.prod(p.shape)):
                    raise ValueError("%s: the smoothed gradient of %r has %d values, a %s learner keeps %d"
                                     % (what, p, v.size, type(learner).__name__,
                                        len(names) * int(np.prod(p.shape))))
            updates.append((outer, learner, smoothed, saved, saved_outer))
        self._restore_cntk_model(filename)
        for outer, learner, smoothed, saved, saved_outer in updates:
            # CNTK keeps a learner's k values per parameter as one matrix of k column blocks (Adam: variance,
            # mean; FSAdaGrad: variance, smoothed; AdaDelta: squared gradient, squared delta), in this package's
            # order of state names
            names = learner._state_names
            with torch.no_grad():
                for group in (learner._param_groups if names else ()):  # (CNTK's sgd keeps a 1-element dummy)
                    for j, i in enumerate(group.indices):
                        shape = tuple(learner._parameters[i].shape)
                        blocks = smoothed[i].reshape((len(names),) + shape)
                        for k, name in enumerate(names):
                            t = group.state[name][j]
                            t.copy_(torch.as_tensor(blocks[k].reshape(tuple(t.shape)), dtype=t.dtype))
            if "smoothed_count" in saved and hasattr(learner, "_smoothed_count"):
                learner._smoothed_count = type(learner._smoothed_count)(saved["smoothed_count"])
            learner._sample_count = int(saved.get("sample_count", 0))
            learner._minibatch_count = int(saved.get("minibatchCount", 0))
            learner._sweep_count = int(saved.get("sweepCount", 0))
            if outer is not learner:
                outer.load_cntk_state(saved_outer)
        if updates:
            self._samples_seen = updates[0][1]._sample_count
        if self._distributed is None:
            return state.get("ExternalState", {})
        self._samples_at_last_sync = self._samples_seen
        self._distributed.load_worker_state(None)
        # each worker gets back the external state it saved itself, as CNTK 2.7 gives it
        own = state.get("DistributedState", {}).get(str(Communicator.rank()))
        return own.get("external_worker_state", {}) if isinstance(own, dict) else state.get("ExternalState", {})

    def _restore_cntk_model(self, filename):
        """The parameter and constant values of a CNTK checkpoint's model file (CNTK's combined training function:
        the model's outputs, then the criterion's): matched by uid where every uid matches (a model loaded from
        that file), else in the order a walk of the model then the criterion meets them, shapes checked."""
        from ..core.serialization import load
        loaded = load(filename)
        outputs = list(self._model.outputs if self._model is not None else ()) + list(self._outputs)
        mine = walk(outputs, node_inputs_and_body).leaves
        saved = walk(loaded.outputs, node_inputs_and_body).leaves
        pairs = []
        for kind, plural, whose in (("is_parameter", "parameters", "Trainer's"),
                                    ("is_constant", "constants", "model's")):
            a = [v for v in mine if getattr(v, kind)]
            b = [v for v in saved if getattr(v, kind)]
            by_uid = {v.uid: v for v in b}
            if all(v.uid in by_uid for v in a):
                pairs.extend((v, by_uid[v.uid]) for v in a)
                continue
            if kind == "is_constant":
                # the criterion's constants (scalars) differ between CNTK's graph and this package's: the model's
                # own (batch normalization's running statistics), which the file lists first, in order
                n = len(self._model.outputs) if self._model is not None else 0
                a = [v for v in walk(outputs[:n], node_inputs_and_body).leaves if v.is_constant]
                b = [v for v in walk(loaded.outputs[:n], node_inputs_and_body).leaves if v.is_constant]
            if [tuple(v.shape) for v in a] != [tuple(v.shape) for v in b]:
                raise ValueError("restore_from_checkpoint: the %s of '%s' (shapes %s) do not match the %s (%s)"
                                 % (plural, filename, [tuple(v.shape) for v in b], whose, [tuple(v.shape) for v in a]))
            pairs.extend(zip(a, b))
        for v, s in pairs:
            if tuple(v.shape) != tuple(s.shape):
                raise ValueError("restore_from_checkpoint: '%s' holds shape %s for %r, expected %s"
                                 % (filename, tuple(s.shape), v, tuple(v.shape)))
        for v, s in pairs:
            v.set_value(s.tensor.detach().cpu())


def _is_cntk_checkpoint(filename):
    """Whether ``filename`` is a checkpoint CNTK 2.x wrote: its training state (``filename.ckp``) is a CNTK v2
    Dictionary. (Both write the model file in CNTK's v2 format; this package's training state is an archive.)"""
    try:
        with open(os.fspath(filename) + ".ckp", "rb") as f:
            return hook("looks_like_cntk_dictionary")(f.read(8))
    except OSError:
        return False


def _distributed_learner(learners):
    """The distributed learner among ``learners`` (None if there is none). CNTK 2.7 refuses a distributed learner
    beside a local one when the Trainer is made; several distributed learners it takes, and then fails at the first
    update, since none of them aggregates the metric (``_several_distributed_learners``)."""
    distributed = [learner for learner in learners if isinstance(learner, DistributedLearner)]
    if distributed and len(distributed) < len(learners):
        raise ValueError("Cannot use a non-distributed learner for some parameters together with a distributed "
                         "learner for other parameters, in a single Trainer.")
    return distributed[0] if distributed else None


def sparse_gradient_parameters(loss, parameters):
    """The parameters of ``parameters`` that ``loss`` uses only as the right operand of Times nodes whose left
    operand is sparse (inside blocks too), each with the number of its leading axes the products sum over: CNTK's
    gradient of such a parameter is a sparse block matrix, which its learners treat differently from a dense one."""
    wanted = set(parameters)
    ranks, dense = {}, set()
    for node in walk([loss], dependencies=node_inputs_and_body).nodes:
        if node._block_root is not None:
            continue
        for i, v in enumerate(node._inputs):
            if v not in wanted or v in dense:
                continue
            rule = node._op.sparse_gradient
            if rule is not None and rule(node, i, lambda: False):
                # the op's own rule (registry data): the right operand of times() with a sparse left one; the
                # axes of the parameter that the product sums over, which the sparse operand indexes
                attributes = node._attributes or {}
                ranks.setdefault(v, set()).add(len(v.shape) - int(attributes.get("output_rank", 1)))
            else:
                dense.add(v)
    return {p: r.pop() for p, r in ranks.items() if p not in dense and len(r) == 1 and min(r) > 0}


# names CNTK's cntk.train.trainer also exposes
from ..core.device import use_default_device  # noqa: F401,E402
from ..io.minibatch_data import MinibatchData  # noqa: F401,E402


def _detached(t):
    """t without its autograd history (the metric usually has none: classification_error is not differentiated)."""
    return t.detach() if t.requires_grad else t
