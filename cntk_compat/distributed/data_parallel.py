"""Data-parallel SGD on torch's DistributedDataParallel.

The Trainer's training forward pass runs inside a DDP module that owns the learned parameters, so the
gradients are summed over the workers bucket by bucket while the backward pass still runs, by one of the
summing hooks of :mod:`.hooks`: a full-precision all-reduce, or with fewer than 32 bits CNTK's column-wise
quantization with error feedback. The gradients reach the local learner through ``.grad``; the sample counts
and the loss and metric sums are summed by one small all-reduce that overlaps the backward pass. Each worker's
local learner applies the sums, so two workers with N samples each update exactly as one worker with the
2N-sample minibatch.

During the warm start (``distributed_after``) every worker trains alone on the whole minibatch (DDP's
``no_sync``), in full precision. A lone worker (no process group) trains as its local learner: nothing travels,
so nothing is quantized.
"""
import contextlib

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from . import hooks
from .communicator import Communicator, DistributedError, collective, describe_failure, process_group_ready
from .learner import DistributedLearner
from .quantization import check_bits

__all__ = ["DataParallelDistributedLearner", "data_parallel_distributed_learner"]


class _LearnedParameters(torch.nn.Module):
    """The module DDP wraps: it owns the learned parameters (by position) and runs the Trainer's forward pass
    handed to it. A worker without data returns a zero loss that still reaches every parameter, so that it
    takes part in each bucket's reduction."""

    def __init__(self, parameters, used):
        super(_LearnedParameters, self).__init__()
        self.learned = torch.nn.ParameterList(parameters)
        self._unused = [p for p, u in zip(parameters, used) if not u]
        self.forward_failed = False     # whether the last error came from the forward pass, not DDP's collectives

    def forward(self, run_forward):
        if run_forward is None:
            return 0, sum(p.sum() * 0.0 for p in self.learned), None, {}, ()
        try:
            n, loss, metric, fetched, gradient_inputs = run_forward()
        except BaseException:
            self.forward_failed = True
            raise
        if self._unused:    # parameters only the metric (or nothing) depends on: zero gradients, reduced too
            loss = loss + sum(p.sum() * 0.0 for p in self._unused)
        return n, loss, metric, fetched, gradient_inputs


class DataParallelDistributedLearner(DistributedLearner):
    """Sums the gradients of all workers every minibatch; see :func:`data_parallel_distributed_learner`."""

    def __init__(self, learner, distributed_after=0, num_quantization_bits=32):
        super(DataParallelDistributedLearner, self).__init__(learner, distributed_after)
        self._bits = num_quantization_bits
        self._ddp = None
        self._hook_state = None
        self._pending = None        # the all-reduce of (samples, loss, metric) of the minibatch in flight
        self._saved_hook_state = None

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
        module = _LearnedParameters(parameters, [p in in_loss for p in self._learner.parameters])
        self._ddp = DistributedDataParallel(module, gradient_as_bucket_view=True, init_sync=False)
        if self._bits == 32:
            self._hook_state = hooks.SumState()
            self._ddp.register_comm_hook(self._hook_state, hooks.allreduce_sum_hook)
        else:
            self._hook_state = hooks.QuantizedGradientState(self._bits, module=module)
            if self._saved_hook_state is not None:
                self._hook_state.load_state_dict(self._saved_hook_state)
            self._ddp.register_comm_hook(self._hook_state, hooks.quantized_gradient_hook)

    def forward_backward(self, run_forward, loss_function, gradients):
        """Runs the Trainer's forward pass (None: this worker has no data) and the backward pass; returns
        (samples, loss, metric, fetched outputs, gradients by parameter). The gradients are this worker's in
        the warm start and the sums over all workers afterwards."""
        if not _several_workers():
            return super(DataParallelDistributedLearner, self).forward_backward(run_forward, loss_function,
                                                                                  gradients)
        self._synchronize_parameters()
        if self._ddp is None:
            self._wrap(loss_function)
        parameters = [p.tensor for p in self._learner.parameters]
        warm_start = self._samples_seen < self._distributed_after
        with self._ddp.no_sync() if warm_start else contextlib.nullcontext():
            n, loss, metric, fetched, gradient_inputs = self._run_ddp(run_forward)
            if not warm_start:
                self._pending = _launch_totals(n, loss, metric, parameters[0].device)
            self._hook_state.failure = None
            try:
                # inputs with needs_gradient=True get theirs too (computed and dropped, as CNTK)
                torch.autograd.backward(loss, inputs=parameters + list(gradient_inputs))
            except RuntimeError as e:
                if self._hook_state.failure is None:
                    raise
                raise DistributedError(self._hook_state.failure) from e
        grads = {}
        for p, t in zip(self._learner.parameters, parameters):
            grads[p] = t.grad
            t.grad = None
        return n, (loss.detach() if n else None), (None if metric is None else metric.detach()), fetched, grads

    def _run_ddp(self, run_forward):
        """DDP's forward: before the Trainer's forward pass it may run collectives of its own (the bucket order
        after the first step, buffers), whose failures become DistributedErrors."""
        module = self._ddp.module
        module.forward_failed = False
        try:
            return self._ddp(run_forward)
        except RuntimeError as e:
            if module.forward_failed:
                raise
            raise DistributedError(describe_failure("DDP's collectives before the forward pass", e)) from e

    # -- the update ---------------------------------------------------------------------------------------
    def _distributed_minibatch(self, gradient_values, info):
        if self._pending is not None:
            info.num_samples, info.loss, info.metric = _wait_totals(self._pending, info.metric is not None)
            self._pending = None
        self._samples_seen += info.num_samples
        if info.num_samples == 0:
            return False
        return self._learner.update(gradient_values, info.num_samples, info.is_sweep_end)

    # -- checkpoint state ---------------------------------------------------------------------------------
    def worker_state(self):
        """This worker's quantization residuals (None for 32 bits)."""
        if self._bits == 32:
            return None
        if self._hook_state is not None:
            return self._hook_state.state_dict()
        return self._saved_hook_state

    def load_worker_state(self, state):
        if self._bits == 32:
            return
        self._saved_hook_state = state
        if self._hook_state is not None:
            if state is None:
                self._hook_state.reset()
            else:
                self._hook_state.load_state_dict(state)


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
