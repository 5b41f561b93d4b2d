"""Data-parallel SGD on torch's DistributedDataParallel.

The Trainer's training forward pass runs inside a DDP module that owns the learned parameters, so the
gradients are summed over the workers bucket by bucket while the backward pass still runs: at 32 bits on the
CPU by DDP's own all-reduce (made to sum instead of average), otherwise by one of the summing hooks of
:mod:`.hooks` (a full-precision all-reduce, or with fewer than 32 bits CNTK's column-wise quantization with error
feedback). The gradients reach the local learner through ``.grad``. The sample counts and the loss and metric
sums ride along as the gradient of a small extra parameter in DDP's first bucket (32 bits on the CPU), or are
summed by one small all-reduce that overlaps the backward pass. Each worker's local learner applies the sums, so
two workers with N samples each update exactly as one worker with the 2N-sample minibatch.

During the warm start (``distributed_after``) every worker trains alone on the whole minibatch (DDP's
``no_sync``), in full precision. A lone worker (no process group) trains as its local learner: nothing travels,
so nothing is quantized.
"""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from . import hooks
from ..core import autograd_calls
from .communicator import (Communicator, DistributedError, collective, describe_failure, holds_process_group,
                           process_group_ready)
from ..learners.learner import OwnedGradients
from .learner import DistributedLearner
from .quantization import check_bits

__all__ = ["DataParallelDistributedLearner", "data_parallel_distributed_learner"]


# The totals carrier: (sample count mod 2^12, sample count // 2^12, loss sum, metric sum, 1). The count is split
# so that it stays exact in float32 for any total below 2^36 samples; the last value sums to the number of
# workers, which checks at every step that DDP summed (not averaged) the gradients.
_COUNT_SPLIT = 4096


class _LearnedParameters(torch.nn.Module):
    """The module DDP wraps: it owns the learned parameters (by position) and runs the Trainer's forward pass
    handed to it. A worker without data returns a zero loss that still reaches every parameter, so that it
    takes part in each bucket's reduction.

    With ``carrier_dtype`` it also owns a 5-value parameter (registered last, so DDP puts it in the first bucket
    it reduces) and returns ``carry``, a second root of the backward pass whose gradient for the carrier is this
    worker's (sample count, loss sum, metric sum, 1): DDP's gradient all-reduce then sums them over the workers
    with the gradients, and no collective of their own is needed. (Without a carrier ``carry`` is None.)"""

    def __init__(self, parameters, used, carrier_dtype=None):
        super(_LearnedParameters, self).__init__()
        self.learned = torch.nn.ParameterList(parameters)
        self._unused = [p for p, u in zip(parameters, used) if not u]
        self.carrier = None if carrier_dtype is None else \
            torch.nn.Parameter(torch.zeros(5, dtype=carrier_dtype, device=parameters[0].device))
        # this worker's totals, written in place through a numpy view at each step (the backward pass of a step
        # reads them before the next step writes them again): no new tensor per step
        self._totals = None if carrier_dtype is None else torch.zeros(5, dtype=carrier_dtype)
        self._totals_view = None if carrier_dtype is None else self._totals.numpy()
        self.forward_failed = False     # whether the last error came from the forward pass, not DDP's collectives

    def forward(self, run_forward):
        if run_forward is None:
            n, loss, metric, fetched, gradient_inputs = 0, sum(p.sum() * 0.0 for p in self.learned), None, {}, ()
        else:
            try:
                n, loss, metric, fetched, gradient_inputs = run_forward()
            except BaseException:
                self.forward_failed = True      # (reset by the next step only when set: nn.Module's setattr is slow)
                raise
            if self._unused:    # parameters only the metric (or nothing) depends on: zero gradients, reduced too
                loss = loss + sum(p.sum() * 0.0 for p in self._unused)
        carry = None
        if self._totals is not None:
            self._totals_view[:] = (n % _COUNT_SPLIT, n // _COUNT_SPLIT, loss.item() if n else 0.0,
                                    0.0 if metric is None or not n else metric.item(), 1.0)
            carry = torch.dot(self.carrier, self._totals)     # d carry / d carrier = totals, exactly
        return n, loss, metric, fetched, gradient_inputs, carry


class DataParallelDistributedLearner(DistributedLearner):
    """Sums the gradients of all workers every minibatch; see :func:`data_parallel_distributed_learner`."""

    def __init__(self, learner, distributed_after=0, num_quantization_bits=32):
        super(DataParallelDistributedLearner, self).__init__(learner, distributed_after)
        self._bits = num_quantization_bits
        self._ddp = None
        self._hook_state = None
        self._ddp_sums = False      # whether DDP's own all-reduce sums the gradients (no Python hook)
        self._pending = None        # the all-reduce of (samples, loss, metric) of the minibatch in flight
        self._carried = None        # or their sums, carried by DDP's gradient all-reduce

    @property
    def num_quantization_bits(self):
        return self._bits

    # -- the forward and backward pass --------------------------------------------------------------------
    def _wrap(self, loss_function):
        parameters = [p.tensor for p in self._learner.parameters]
        for t in parameters:
            if not t.is_contiguous():
                # a weight a fused recurrence lowered earlier stored transposed (core.fused_recurrence.
                # store_for_kernel): DDP's buckets and the gradient hooks' flat views want the plain layout
                with torch.no_grad():
                    t.data = t.contiguous()
        in_loss = set(loss_function.parameters)
        module = _LearnedParameters(parameters, [p in in_loss for p in self._learner.parameters],
                                    _carrier_dtype(parameters, self._bits))
        self._tensors = parameters + ([module.carrier] if module.carrier is not None else [])
        self._inputs = tuple(self._tensors)
        self._carrier = module.carrier
        self._module = module
        self._ddp = DistributedDataParallel(module, gradient_as_bucket_view=True, init_sync=False)
        holds_process_group(self)
        self._ddp_parts = _runs_through_parts(self._ddp)
        self._parameters = list(self._learner.parameters)
        self._workers = Communicator.num_workers()
        if self._bits == 32:
            self._hook_state = hooks.SumState()
            # DDP's own C++ all-reduce, made to sum, where the carrier checks each step that it did; else the hook
            self._ddp_sums = module.carrier is not None and _sum_without_hook(self._ddp)
            if not self._ddp_sums:
                self._ddp.register_comm_hook(self._hook_state, hooks.allreduce_sum_hook)
        else:
            self._hook_state = hooks.QuantizedGradientState(self._bits, module=module)
            self._ddp.register_comm_hook(self._hook_state, hooks.quantized_gradient_hook)

    def release_process_group(self):
        """Let go of the DDP module (and with it the process group): called by Communicator.finalize, after
        which this worker trains alone."""
        self._ddp = None

    def forward_backward(self, run_forward, loss_function, gradients):
        """Runs the Trainer's forward pass (None: this worker has no data) and the backward pass; returns
        (samples, loss, metric, fetched outputs, gradients by parameter). The gradients are this worker's in
        the warm start and the sums over all workers afterwards."""
        if not _several_workers():
            return super(DataParallelDistributedLearner, self).forward_backward(run_forward, loss_function,
                                                                                  gradients)
        warm_start = self._synchronize_parameters()
        if self._ddp is None:
            self._wrap(loss_function)
        tensors = self._tensors
        carrier = self._carrier
        if warm_start:
            with self._ddp.no_sync():
                n, loss, metric, fetched, carry = self._forward_backward(run_forward, warm_start)
        else:
            n, loss, metric, fetched, carry = self._forward_backward(run_forward, warm_start)
        if carrier is not None:
            if not warm_start:      # the sums of all workers, reduced by DDP with the first gradient bucket
                low, high, loss_sum, metric_sum, workers = carrier.grad.tolist()
                if workers != self._workers:
                    raise RuntimeError("DDP's gradient all-reduce did not sum over the %d workers (the check value "
                                       "came back as %r): this version of torch changed DDP's Join divisor"
                                       % (self._workers, workers))
                self._carried = (int(low) + _COUNT_SPLIT * int(high), loss_sum,
                                 None if metric is None and not self.metric_expected else metric_sum)
            carrier.grad = None
        # at 32 bits the gradients are DDP's bucket views, which the next backward pass overwrites whole: the
        # learner may scale them in place (OwnedGradients); the quantizing hooks' buckets are left alone
        if self._bits == 32:
            grads = OwnedGradients()
            # after the warm start they are views of distinct parameters' slots of the buckets, in the (contiguous)
            # layout of their parameters; the warm start's are autograd's own, which the learner checks
            grads.exact = not warm_start
        else:
            grads = {}
        for p, t in zip(self._parameters, tensors):
            grads[p] = t.grad
            t.grad = None
        return n, (loss.detach() if n else None), (None if metric is None else metric.detach()), fetched, grads

    def _forward_backward(self, run_forward, warm_start):
        """The forward pass under DDP and the backward pass (DDP's all-reduce of each bucket overlapping it, but
        in the warm start); returns (samples, loss, metric, fetched outputs, the carrier's root or None)."""
        n, loss, metric, fetched, gradient_inputs, carry = self._run_ddp(run_forward)
        if not warm_start and self._carrier is None:
            self._pending = _launch_totals(n, loss, metric, self._tensors[0].device)
        self._hook_state.failure = None
        try:
            # inputs with needs_gradient=True get theirs too (computed and dropped, as CNTK)
            autograd_calls.backward((loss,) if carry is None else (loss, carry),
                                    self._inputs + tuple(gradient_inputs) if gradient_inputs else self._inputs)
        except RuntimeError as e:
            if self._hook_state.failure is not None:
                raise DistributedError(self._hook_state.failure) from e
            if not warm_start and self._ddp_sums and _from_collective(e):
                raise DistributedError(describe_failure("the all-reduce of the gradients", e)) from e
            raise
        return n, loss, metric, fetched, carry

    def _run_ddp(self, run_forward):
        """DDP's forward: before the Trainer's forward pass it may run collectives of its own (the bucket order
        after the first step, buffers), whose failures become DistributedErrors.

        Where this torch's DDP has them, its own two halves run around the module's forward (what
        ``DistributedDataParallel.forward`` does between its profiler label and the bookkeeping torch.compile's
        DDP optimizer reads, which no compiled code reads here): the same reducer calls and collectives, without
        about 50 us of Python per step."""
        module = self._module
        if module.forward_failed:
            module.forward_failed = False
        try:
            if self._ddp_parts:
                inputs, kwargs = self._ddp._pre_forward(run_forward)
                return self._ddp._post_forward(module.forward(*inputs, **kwargs))
            return self._ddp(run_forward)
        except RuntimeError as e:
            if module.forward_failed:
                raise
            raise DistributedError(describe_failure("DDP's collectives before the forward pass", e)) from e

    # -- the update ---------------------------------------------------------------------------------------
    def _distributed_minibatch(self, gradient_values, info):
        if self._carried is not None:
            info.num_samples, info.loss, info.metric = self._carried
            self._carried = None
        elif self._pending is not None:
            info.num_samples, info.loss, info.metric = _wait_totals(
                self._pending, info.metric is not None or self.metric_expected)
            self._pending = None
        self._samples_seen += info.num_samples
        if info.num_samples == 0:
            return False
        return self._learner.update(gradient_values, info.num_samples, info.is_sweep_end)

    # -- checkpoint state ---------------------------------------------------------------------------------
    def state_dict(self):
        """The checkpoint state. As CNTK 2.7's, a checkpoint resets this worker's quantization residuals, which it
        does not keep: a run restored from it continues as the run that wrote it."""
        if self._bits != 32 and self._hook_state is not None:
            self._hook_state.reset()
        return super(DataParallelDistributedLearner, self).state_dict()


def _from_collective(error):
    """Whether a RuntimeError of the backward pass came from the process group (not from the model's backward)."""
    text = str(error)
    return isinstance(error, getattr(dist, "DistBackendError", ())) or any(
        mark in text for mark in ("gloo", "NCCL", "ProcessGroup", "c10d", "Connection closed", "Timed out"))


def _runs_through_parts(ddp):
    """Whether DDP's forward is its _pre_forward, the module's forward and its _post_forward (torch >= 2.0 without
    torch.compile's Python reducer or a delayed all-reduce of every parameter, and no hooks on the module), so
    that they can be called as they are."""
    module = ddp.module
    return callable(getattr(ddp, "_pre_forward", None)) and callable(getattr(ddp, "_post_forward", None)) and \
        getattr(ddp, "_use_python_reducer", True) is False and \
        getattr(ddp, "_delay_all_reduce_all_params", True) is False and \
        not (module._forward_hooks or module._forward_pre_hooks or module._backward_hooks or
             any(getattr(torch.nn.modules.module, "_global_%s_hooks" % kind, None)
                 for kind in ("forward", "forward_pre", "backward", "backward_pre")))


def _sum_without_hook(ddp):
    """Makes DDP's own (C++) gradient reduction sum instead of average: its divisor is the result of the
    "forward pass work" that DDP's Join sets (the number of workers still training); a finished all-reduce (min)
    of ones makes it 1 for every step (a work of the process group, whose result stays a C++ tensor list: no
    Python object to convert at each step). Returns False (nothing changed) where this torch lacks the private
    function."""
    set_handle = getattr(ddp.reducer, "_set_forward_pass_work_handle", None)
    if set_handle is None:
        return False
    with collective("the all-reduce that sets DDP's divisor"):
        work = dist.all_reduce(torch.ones(1), op=dist.ReduceOp.MIN, group=ddp.process_group, async_op=True)
        work.wait()
    set_handle(work, False)
    return True


def _carrier_dtype(parameters, bits):
    """The dtype in which the sample count, loss and metric sums ride in DDP's first gradient bucket: that of
    the parameter DDP reduces first, for 32 bits on the CPU (with CUDA reading them would synchronize the
    host with the device; quantized gradients would quantize them); None: they get an all-reduce of their own."""
    last = parameters[-1] if parameters else None
    if last is None or bits != 32 or last.device.type != "cpu" or last.dtype not in (torch.float32, torch.float64):
        return None
    return last.dtype


def _several_workers():
    return process_group_ready() and Communicator.num_workers() > 1


def _launch_totals(n, loss, metric, device):
    """Starts summing (samples, loss, metric) over the workers: on the CPU in one all-reduce; with CUDA the count
    on the host (gloo; no device sync) and the sums where they are. Returns (works, count, sums)."""
    on_host = device.type == "cpu"
    totals = torch.zeros(3 if on_host else 2, dtype=torch.float64, device=device)
    count, sums = (totals[:1], totals[1:]) if on_host else (torch.tensor([float(n)], dtype=torch.float64), totals)
    count[0] = float(n)
    if n:
        sums[0] = loss.detach()
        if metric is not None:
            sums[1] = metric.detach()
    with collective(_TOTALS):
        works = [dist.all_reduce(t, async_op=True) for t in ((totals,) if on_host else (count, totals))]
    return works, count, sums


_TOTALS = "the all-reduce of the minibatch's sample count, loss and metric"


def _wait_totals(pending, has_metric):
    works, count, sums = pending
    with collective(_TOTALS):
        for work in works:
            work.wait()
    return int(round(count.item())), sums[0], (sums[1] if has_metric else None)


def data_parallel_distributed_learner(learner, distributed_after=0, num_quantization_bits=32,
                                      use_async_buffered_parameter_update=False):
    """A data-parallel distributed learner around the local ``learner``.

    Args:
        learner: the local learner (such as ``cntk.sgd(...)``).
        distributed_after (int): samples trained locally before the workers start aggregating.
        num_quantization_bits (int): bits a gradient value travels with (1, 2, 4, 8, 16; 32: no quantization;
         see :func:`cntk_compat.distributed.hooks.quantized_gradient_hook`).
        use_async_buffered_parameter_update (bool): must be False (asynchronous updates are not supported).
    """
    if use_async_buffered_parameter_update:
        raise ValueError("use_async_buffered_parameter_update must be False: asynchronous buffered parameter "
                         "updates are not supported by the data-parallel distributed learner")
    if num_quantization_bits != 32:
        check_bits(num_quantization_bits)
    return DataParallelDistributedLearner(learner, distributed_after, num_quantization_bits)
