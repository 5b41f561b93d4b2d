"""The learner base class: bookkeeping, hyper-parameter scaling and the gradient pre/post-processing that all
built-in learners share. Subclasses implement ``_step`` with fused ``torch._foreach_*`` ops over one group of
parameters (same dtype and device).

Conventions (CNTK's): a gradient value is the gradient of the *sum* of the per-sample losses over the minibatch
and ``training_sample_count`` is the number of samples in it. A learning rate whose schedule has reference
minibatch size ``k`` is applied as ``lr / k`` to that sum; with reference size :data:`IGNORE` as
``lr / training_sample_count`` (a per-minibatch rate). A learner in compatible mode (``minibatch_size=IGNORE``)
first averages the gradient and applies every hyper-parameter as given, except a learning rate whose schedule has
a reference size ``k`` of its own (a per-sample rate): ``lr * training_sample_count / k``, the same step as
outside compatible mode. ``reset_learning_rate`` takes the new schedule's values only; the reference size stays
the one the learner was made with (CNTK 2.7 does so).
"""
import math
import numbers
from collections.abc import Mapping

import numpy as np
import torch

from ..core import cntk_rng
from ..core.cntk_rng import generate_random_seed
from ..core.native_errors import RuntimeValueError
from .options import AdditionalLearningOptions
from .schedules import IGNORE, TrainingParameterSchedule
from .tensors import as_gradient_tensor

__all__ = ["Learner", "ParameterList"]


class MissingGradientError(RuntimeValueError):
    """update() given no gradient for one of the learner's parameters: CNTK 2.7's RuntimeError (its map lookup
    fails)."""


class OwnedGradients(dict):
    """The gradients of one minibatch, handed to :meth:`Learner.update` by an owner that drops them after the
    update (the Trainer): a built-in learner may overwrite these tensors instead of allocating its scratch.
    Any other mapping is left as it is.

    ``exact`` (False unless the owner sets it): the owner vouches that every value is a plain dense tensor with
    its parameter's dtype, shape and device, contiguous, not requiring gradients, and that no two share memory
    (DistributedDataParallel's bucket views are), so the learner skips checking each one every minibatch."""

    exact = False
    # the parameters whose gradient CNTK computes as a sparse block matrix ({parameter: number of leading axes
    # indexed by the sparse operand}; see Trainer._sparse_gradient_parameters): learners that CNTK updates
    # only in the blocks present (momentum SGD) read it
    sparse = {}


class ScratchGradients(list):
    """The gradients of one parameter group as ``_apply`` hands them to a learner's ``_step`` when the step may
    overwrite them (use them as its scratch): they are the learner's own (``_preprocess`` made them), or the
    caller gave them up (:class:`OwnedGradients`) and no two share memory. Any other sequence must be left as
    it is. (Which it is depends on the minibatch, so it travels with the gradients, not with the learner.)"""


def _apart(tensors):
    """Whether each tensor is contiguous and no two share memory, so that writing into one changes nothing else.
    Autograd hands out expanded gradients (of a sum over a broadcast) and one buffer for several parameters (of
    an addition, or of a reshape of it)."""
    spans = []
    for t in tensors:
        if not t.is_contiguous():
            return False
        start = t.data_ptr()
        spans.append((start, start + t.numel() * t.element_size()))
    spans.sort()
    return all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))


class ParameterList(list):
    """The parameters of a learner: a list that is also callable (``learner.parameters()``)."""

    def __call__(self):
        return self


class _Group(object):
    """Parameters of one dtype on one device, updated together; ``state`` maps a name to one tensor per
    parameter."""

    def __init__(self, dtype, device):
        self.dtype = dtype
        self.device = device
        self.indices = []
        self.params = []
        self.tensors = []
        self.state = {}


def _check_parameters(parameters):
    if isinstance(parameters, (str, bytes, Mapping)) or not hasattr(parameters, "__iter__"):
        raise TypeError("parameters must be a list of Parameter objects, got %r" % (parameters,))
    params = list(parameters)
    if not params:
        raise ValueError("parameters: the list of parameters to learn must not be empty")
    seen = set()
    for p in params:
        if getattr(p, "is_parameter", False) is not True:
            raise TypeError("parameters: expected Parameter objects, got %r" % (p,))
        if p.uid in seen:
            raise ValueError("parameters: parameter %r is listed more than once" % (p,))
        seen.add(p.uid)
    return params


def _sample_count(training_sample_count):
    n = training_sample_count
    if type(n) is int and n > 0:  # the common case, without the slower numbers.Real check
        return n
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or n != int(n) or n <= 0:
        raise ValueError("training_sample_count must be a positive integer (the number of samples in the "
                         "minibatch), got %r" % (training_sample_count,))
    return int(n)


class Learner(object):
    """Learns a set of parameters from their gradients; the factories in :mod:`cntk.learners` create one.

    ``update(gradient_values, training_sample_count, is_sweep_end=False)`` applies one minibatch: it returns
    False without updating when the current learning rate is 0 (learning has stopped).
    """

    _sparse_now = {}    # this update's OwnedGradients.sparse

    _state_names = ()
    # CNTK's built-in learners (LearnerBase) take the next automatic random seed when they are created, for
    # their Gaussian noise injection, whether or not noise is asked for; a Python UserLearner takes none.
    _takes_random_seed = True

    def __init__(self, parameters, lr, minibatch_size=None, options=None):
        if not isinstance(lr, TrainingParameterSchedule):
            raise ValueError("lr type (%s) not supported. lr must be a training schedule (output of "
                             "learning_parameter_schedule())" % type(lr))
        self._parameters = _check_parameters(parameters)
        self._lr_schedule = lr
        self._lr_origin = (0, 0)
        self._minibatch_size = minibatch_size
        self._explicit_minibatch_size = minibatch_size is not None
        self._options = options if options is not None else AdditionalLearningOptions()
        self._sample_count = 0
        self._minibatch_count = 0
        self._sweep_count = 0
        self._groups = None
        self._noise_seed = generate_random_seed() if self._takes_random_seed else 0
        self._noise_updates = 0     # updates that injected Gaussian noise (each advances CNTK's noise seeds)
        self._progress_writers = []
        self._reported = {}

    # -- public API -------------------------------------------------------------------------------------------
    @property
    def parameters(self):
        """The parameters this learner updates."""
        return ParameterList(self._parameters)

    @property
    def _learning_rate_schedule(self):
        return self._lr_schedule

    @_learning_rate_schedule.setter
    def _learning_rate_schedule(self, schedule):
        if not isinstance(schedule, TrainingParameterSchedule):
            raise ValueError("learning_rate type (%s) not supported. learning_rate must be a training schedule "
                             "(output of learning_parameter_schedule())" % type(schedule))
        self._lr_schedule = schedule

    @property
    def minibatch_size(self):
        """The reference minibatch size the hyper-parameters were tuned for (:data:`IGNORE` when not given)."""
        return IGNORE if self._minibatch_size is None else self._minibatch_size

    @minibatch_size.setter
    def minibatch_size(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError("minibatch_size must be a non-negative integer, got %r" % (value,))
        self._minibatch_size = int(value)

    @property
    def is_minibatch_size_explicitly_specified(self):
        """Whether the learner was created with a minibatch_size (IGNORE included); setting
        :attr:`minibatch_size` later does not make it so, as in CNTK."""
        return getattr(self, "_explicit_minibatch_size", False)

    @is_minibatch_size_explicitly_specified.setter
    def is_minibatch_size_explicitly_specified(self, value):
        # CNTK's learner factories set it on the learner the native layer made (cntk_py.sgd_learner, ...)
        self._explicit_minibatch_size = bool(value)

    #: the key of the reference minibatch size in AdditionalLearningOptions.dict_options
    _MINIBATCH_SIZE = "MinibatchSize"

    #: the reference minibatch size that means "none" (cntk.learners.IGNORE)
    ignored_minibatch_size = IGNORE

    def set_need_to_update_master_parameter(self):
        """CNTK's hook for learners keeping float32 master copies of float16 parameters; a learner here updates
        the parameters themselves, so there is nothing to mark."""

    def is_compatible_mode(self):
        """True when the learner averages gradients and applies its hyper-parameters unscaled
        (``minibatch_size=IGNORE`` or ``use_mean_gradient=True``)."""
        return self._minibatch_size == IGNORE

    def learning_rate(self):
        """The current value of the learning-rate schedule."""
        return self._current(self._lr_schedule, self._lr_origin)

    def reset_learning_rate(self, learning_rate):
        """Replaces the learning-rate schedule; the new schedule starts at the current sample/sweep count."""
        if not isinstance(learning_rate, TrainingParameterSchedule):
            raise ValueError("learning_rate type (%s) not supported. learning_rate must be a training schedule "
                             "(output of learning_parameter_schedule())" % type(learning_rate))
        schedule = learning_rate._copy()
        # CNTK 2.7 takes only the values: the rate keeps the reference minibatch size the learner was made with
        schedule.minibatch_size = self._lr_schedule.minibatch_size
        self._lr_schedule = schedule
        self._lr_origin = (self._sample_count, self._sweep_count)

    def update(self, gradient_values, training_sample_count, is_sweep_end=False):
        """Updates the parameters from ``gradient_values`` (dict Parameter -> numpy array or torch tensor: the
        gradient of the minibatch's summed loss) for a minibatch of ``training_sample_count`` samples; the
        Trainer calls it once per minibatch. Returns False (and changes nothing) when the learning rate has
        reached 0.
        """
        if not isinstance(gradient_values, Mapping):
            raise TypeError("gradient_values must be a dict mapping each Parameter to its gradient, got %r"
                            % type(gradient_values))
        current = self.learning_rate()  # looked up once per update
        self._report("Learning rate", self._lr_schedule, self._lr_origin, current)
        if current == 0.0:
            return False
        n = _sample_count(training_sample_count)
        self._on_minibatch(n)
        lr = self._effective_learning_rate(n, current)
        self._sparse_now = getattr(gradient_values, "sparse", None) or {}
        with torch.no_grad():
            self._apply(gradient_values, lr, n)
        self._sample_count += n
        self._minibatch_count += 1
        if is_sweep_end:
            self._sweep_count += 1
        return True

    def total_number_of_samples_seen(self):
        return self._sample_count

    def total_number_of_minibatches_seen(self):
        return self._minibatch_count

    def total_number_of_sweeps_seen(self):
        return self._sweep_count

    def add_progress_writers(self, progress_writers):
        """Progress writers that get ``write(name, value)`` whenever a reported hyper-parameter changes."""
        writers = progress_writers if isinstance(progress_writers, (list, tuple)) else [progress_writers]
        for w in writers:
            if w not in self._progress_writers:
                self._progress_writers.append(w)

    def reset_smoothed_gradients(self):
        """Zeroes the learner's accumulated state (momentum, squared-gradient averages, ...)."""
        for group in self._groups or ():
            for tensors in group.state.values():
                torch._foreach_zero_(tensors)
        self._reset_extra_state()

    def state_dict(self):
        """The learner's state: tensors and plain Python values only."""
        smoothed = [None] * len(self._parameters)
        for group in self._param_groups:
            for j, i in enumerate(group.indices):
                smoothed[i] = {name: tensors[j].detach().clone() for name, tensors in group.state.items()}
        return {"learner": type(self).__name__,
                "sample_count": self._sample_count,
                "minibatch_count": self._minibatch_count,
                "sweep_count": self._sweep_count,
                "learning_rate_schedule": self._lr_schedule.serialize(),
                "learning_rate_origin": list(self._lr_origin),
                "minibatch_size": self._minibatch_size,
                "noise_seed": self._noise_seed,
                "noise_updates": self._noise_updates,
                "smoothed_gradients": smoothed,
                "extra": self._extra_state()}

    def load_state_dict(self, state):
        """Restores a state produced by :meth:`state_dict` of a learner of the same kind and parameters."""
        if state.get("learner") != type(self).__name__:
            raise ValueError("load_state_dict: the state belongs to a %s learner, not to a %s"
                             % (state.get("learner"), type(self).__name__))
        smoothed = state["smoothed_gradients"]
        if len(smoothed) != len(self._parameters):
            raise ValueError("load_state_dict: the state has %d parameters, this learner has %d"
                             % (len(smoothed), len(self._parameters)))
        for group in self._param_groups:
            for j, i in enumerate(group.indices):
                saved = smoothed[i]
                if set(saved) != set(group.state):
                    raise ValueError("load_state_dict: parameter %d has state %s, expected %s"
                                     % (i, sorted(saved), sorted(group.state)))
                for name, tensors in group.state.items():
                    if tuple(saved[name].shape) != tuple(tensors[j].shape):
                        raise ValueError("load_state_dict: state %r of parameter %d has shape %s, expected %s"
                                         % (name, i, tuple(saved[name].shape), tuple(tensors[j].shape)))
                    tensors[j].copy_(saved[name])
        self._sample_count = int(state["sample_count"])
        self._minibatch_count = int(state["minibatch_count"])
        self._sweep_count = int(state["sweep_count"])
        self._lr_schedule = TrainingParameterSchedule.deserialize(state["learning_rate_schedule"])
        self._lr_origin = tuple(int(c) for c in state["learning_rate_origin"])
        self._minibatch_size = state["minibatch_size"]
        self._noise_seed = int(state["noise_seed"])
        self._noise_updates = int(state.get("noise_updates", 0))
        self._load_extra_state(state["extra"])

    def create_checkpoint(self):
        return self.state_dict()

    def restore_from_checkpoint(self, checkpoint):
        self.load_state_dict(checkpoint)

    def current_version(self):
        """The version of CNTK 2.7's serialized learner state (3), as its ``Learner.current_version``."""
        return 3

    # -- the update -------------------------------------------------------------------------------------------
    def _apply(self, gradient_values, lr, n):
        owned = type(gradient_values) is OwnedGradients
        exact = owned and gradient_values.exact
        by_uid = None
        for group in self._param_groups:
            grads = []
            for p, t in zip(group.params, group.tensors):
                g = gradient_values.get(p)
                if g is None:
                    if by_uid is None:
                        by_uid = {getattr(k, "uid", None): v for k, v in gradient_values.items()}
                    g = by_uid.get(p.uid)
                    if g is None:
                        raise MissingGradientError("gradient_values has no gradient for parameter %r" % (p,))
                grads.append(g if exact else as_gradient_tensor(g, t, p))
            preprocessed = self._preprocess(grads, group.tensors, n)
            if preprocessed is not grads or exact or (owned and _apart(grads)):
                preprocessed = ScratchGradients(preprocessed)
            self._step(group, preprocessed, lr, n)
            self._postprocess(group, lr, n)
        if self._noise_std_dev() > 0:
            self._noise_updates += 1

    def _state_dtype(self, dtype):
        """The dtype of the smoothed-gradient state kept for parameters of ``dtype`` (theirs by default)."""
        return dtype

    def _step(self, group, grads, lr, n):
        """Update ``group``'s tensors with its gradients ``grads`` (a :class:`ScratchGradients` when the step
        may overwrite them) at the effective learning rate ``lr`` for a minibatch of ``n`` samples."""
        raise NotImplementedError("%s does not implement _step" % type(self).__name__)

    def _on_minibatch(self, n):
        """Called once per update after the learning-rate check (reports extra hyper-parameters)."""

    def _extra_state(self):
        return {}

    def _load_extra_state(self, extra):
        pass

    def _reset_extra_state(self):
        pass

    # -- hyper-parameters -------------------------------------------------------------------------------------
    def _current(self, schedule, origin=(0, 0)):
        if schedule.is_sweep_based():
            return schedule[self._sweep_count - origin[1]]
        return schedule[self._sample_count - origin[0]]

    def _effective_learning_rate(self, n, lr):
        """The rate to apply to this minibatch's gradient: its sum, or in compatible mode its mean (there a rate
        with a reference minibatch size of its own, such as a per-sample one, is scaled by n / reference)."""
        reference = self._lr_schedule.minibatch_size
        if self.is_compatible_mode():
            return lr if reference == IGNORE else lr * n / reference
        return lr / (n if reference == IGNORE else reference)

    def _per_minibatch(self, schedule, n):
        """A decay-type value (momentum) for a minibatch of ``n`` samples: ``value ** (n / reference)``."""
        value = self._current(schedule)
        if self.is_compatible_mode() or schedule.minibatch_size == IGNORE:
            return value
        return value ** (n / schedule.minibatch_size)

    def _report(self, name, schedule, origin=(0, 0), value=None):
        if not self._progress_writers:
            return
        if value is None:
            value = self._current(schedule, origin)
        if self._reported.get(name) == value:
            return
        self._reported[name] = value
        if schedule.minibatch_size == IGNORE:
            key = "%s per minibatch" % name
        else:
            key = "%s per %d samples" % (name, schedule.minibatch_size)
        for writer in self._progress_writers:
            writer.write(key, value)

    # -- shared processing ------------------------------------------------------------------------------------
    @property
    def _param_groups(self):
        if self._groups is None:
            groups = {}
            for i, p in enumerate(self._parameters):
                t = p.tensor
                group = groups.get((t.dtype, t.device))
                if group is None:
                    group = groups[(t.dtype, t.device)] = _Group(t.dtype, t.device)
                group.indices.append(i)
                group.params.append(p)
                group.tensors.append(t)
            for group in groups.values():
                # zeros_like: the state has its parameter's strides (a weight stored transposed for a fused
                # recurrence, core.fused_recurrence.store_for_kernel), so the update runs over matching memory
                state_dtype = self._state_dtype(group.dtype)
                group.state = {name: [torch.zeros_like(t, dtype=state_dtype, requires_grad=False)
                                      for t in group.tensors]
                               for name in self._state_names}
            self._groups = list(groups.values())
        return self._groups

    def _preprocess(self, grads, params, n):
        opts = self._options
        compatible = self.is_compatible_mode()
        if compatible:
            grads = torch._foreach_mul(grads, 1.0 / n)
        threshold = opts.gradient_clipping_threshold_per_sample
        if threshold != math.inf:
            limit = threshold if compatible else threshold * n
            if opts.gradient_clipping_with_truncation:
                grads = torch._foreach_clamp_max(grads, limit)
                torch._foreach_clamp_min_(grads, -limit)
            else:
                factors = torch._foreach_reciprocal(torch._foreach_norm(grads))
                torch._foreach_mul_(factors, limit)
                torch._foreach_clamp_max_(factors, 1.0)
                grads = torch._foreach_mul(grads, factors)
        if opts.l2_regularization_weight > 0:
            weight = opts.l2_regularization_weight * (1 if compatible else n)
            grads = torch._foreach_add(grads, params, alpha=weight)
        return grads

    def _noise_std_dev(self):
        """This update's standard deviation of the Gaussian noise injected into the parameters (0: none)."""
        noise = self._options.gaussian_noise_injection_std_dev
        return self._current(noise) if any(noise._values) else 0.0     # (no lookup for the usual "none")

    def _postprocess(self, group, lr, n):
        opts = self._options
        std_dev = self._noise_std_dev()
        if std_dev > 0:
            # CNTK 2.7 adds to each updated parameter N(0, std_dev) noise drawn with a seed of its own: the
            # learner's seed plus a counter that every parameter of every such update advances, in the learner's
            # parameter order (core.cntk_rng draws CNTK's normals)
            first = self._noise_seed + self._noise_updates * len(self._parameters)
            for i, t in zip(group.indices, group.tensors):
                draws = cntk_rng.normal(first + i, t.numel(), std_dev,
                                        np.float64 if t.dtype == torch.float64 else np.float32)
                t.add_(torch.from_numpy(draws).reshape(t.shape).to(device=t.device, dtype=t.dtype))
        if opts.l1_regularization_weight > 0:
            # proximal step: soft-threshold every value by lr * l1 (per sample, hence * n)
            weight = lr * opts.l1_regularization_weight * (1 if self.is_compatible_mode() else n)
            shrunk = torch._foreach_abs(group.tensors)
            torch._foreach_sub_(shrunk, weight)
            torch._foreach_clamp_min_(shrunk, 0.0)
            torch._foreach_mul_(shrunk, torch._foreach_sign(group.tensors))
            torch._foreach_copy_(group.tensors, shrunk)

    def __repr__(self):
        return "%s(%d parameters, learning_rate=%r)" % (type(self).__name__, len(self._parameters),
                                                        self.learning_rate())


def scalar_operand(value, group):
    """``value`` as the scalar operand of a group's foreach op: on the CPU a 0-dim tensor of the group's dtype
    (float32 or float64), which each op reads as it is, where a Python float is wrapped into a new double tensor
    and cast for every tensor of the group; the product rounds the same (the float is rounded to the dtype
    either way). Elsewhere (and for other dtypes, whose ops compute in float32) the float itself."""
    if group.device.type == "cpu" and group.dtype in (torch.float32, torch.float64):
        return torch.scalar_tensor(value, dtype=group.dtype)
    return value


def complement(x, dtype):
    """``1 - x`` rounded as CNTK computes it in the parameters' precision (matters for values close to 1)."""
    np_dtype = {torch.float32: np.float32, torch.float16: np.float16}.get(dtype)
    if np_dtype is None:
        return 1.0 - x
    return float(np_dtype(1) - np_dtype(x))


def sparse_blocks(tensors, grad, leading):
    """CNTK's sparse block gradient of a parameter (see OwnedGradients.sparse): ``tensors`` (the parameter and
    its state tensors) and ``grad`` viewed with the ``leading`` axes the sparse operand indexes as one axis, and
    the indices of the blocks (rows) the minibatch touched, where the gradient is not zero; None when none is."""
    rows = math.prod(tuple(grad.shape[:leading]))
    if leading != 1:
        if not all(t.is_contiguous() for t in tensors):
            raise NotImplementedError("a sparse gradient of a non-contiguous parameter")
        tensors = [t.view((rows,) + tuple(t.shape[leading:])) for t in tensors]
        grad = grad.reshape((rows,) + tuple(grad.shape[leading:]))
    touched = grad.reshape(rows, -1).ne(0).any(dim=1).nonzero().squeeze(1)
    return (tensors, grad, touched) if touched.numel() else None
