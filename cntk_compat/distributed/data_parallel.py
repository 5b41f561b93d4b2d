"""Data-parallel SGD: every minibatch the gradients, the sample counts and the loss and metric sums of all
workers are summed, and each worker's local learner applies the sum (so two workers with N samples each update
exactly as one worker with the 2N-sample minibatch). With fewer than 32 bits the gradients travel quantized
(CNTK's 1-bit SGD, see :mod:`.quantization`) with error feedback."""
import torch

from .communicator import all_gather_tensor, all_reduce_sum
from .learner import DistributedLearner, MinibatchInfo
from .quantization import ErrorFeedbackQuantizer, check_bits, packed_size, reconstruct

__all__ = ["DataParallelDistributedLearner", "data_parallel_distributed_learner"]


class DataParallelDistributedLearner(DistributedLearner):
    """Sums the gradients of all workers every minibatch; see :func:`data_parallel_distributed_learner`."""

    def __init__(self, learner, distributed_after=0, num_quantization_bits=32):
        super(DataParallelDistributedLearner, self).__init__(learner, distributed_after)
        self._quantizer = None if num_quantization_bits == 32 else ErrorFeedbackQuantizer(num_quantization_bits)

    @property
    def num_quantization_bits(self):
        return 32 if self._quantizer is None else self._quantizer.bits

    def _distributed_update(self, gradient_values, training_sample_count, is_sweep_end):
        return self._distributed_minibatch(gradient_values, MinibatchInfo(training_sample_count,
                                                                          is_sweep_end=is_sweep_end))

    def _distributed_minibatch(self, gradient_values, info):
        params = list(self._learner.parameters)
        device = params[0].tensor.device
        grads = [_dense_gradient(gradient_values, p, device) for p in params]
        header = torch.stack([_scalar(info.num_samples, device), _scalar(info.loss, device),
                              _scalar(info.metric, device)])
        if self._quantizer is None:
            all_reduce_sum(grads + [header])
        else:
            all_reduce_sum([header])
            grads = self._quantized_sum(params, grads)
        info.num_samples = int(round(header[0].item()))
        info.loss, info.metric = header[1], header[2]
        self._samples_seen += info.num_samples
        if info.num_samples == 0:
            return False
        return self._learner._update(dict(zip(params, grads)), info.num_samples, info.is_sweep_end)

    def _quantized_sum(self, params, grads):
        """The sum over all workers of each gradient, exchanged quantized (all workers get the same sums)."""
        bits = self._quantizer.bits
        quantized = [self._quantizer.quantize(p.uid, g) for p, g in zip(params, grads)]
        codes = all_gather_tensor(torch.cat([q[0] for q in quantized]))
        ranges = all_gather_tensor(torch.cat([torch.cat([q[1], q[2]]) for q in quantized]))
        sums = []
        code_at = range_at = 0
        for g, (_, lower, _) in zip(grads, quantized):
            n_bytes, n_columns = packed_size(g.numel(), bits), lower.numel()
            sums.append(reconstruct(codes[:, code_at:code_at + n_bytes],
                                    ranges[:, range_at:range_at + n_columns],
                                    ranges[:, range_at + n_columns:range_at + 2 * n_columns], g.shape, bits))
            code_at += n_bytes
            range_at += 2 * n_columns
        return sums

    def state_dict(self):
        if self._quantizer is not None:
            self._quantizer.reset()     # as CNTK: residuals are not checkpointed, so they restart from zero
        return super(DataParallelDistributedLearner, self).state_dict()


def _scalar(value, device):
    if value is None:
        return torch.zeros((), dtype=torch.float64, device=device)
    if isinstance(value, torch.Tensor):
        return value.detach().to(device=device, dtype=torch.float64).reshape(())
    return torch.tensor(float(value), dtype=torch.float64, device=device)


def _dense_gradient(gradient_values, parameter, device):
    """This worker's gradient of ``parameter`` as a fresh tensor (zeros when it has none: no data)."""
    g = gradient_values.get(parameter)
    like = parameter.tensor
    if g is None:
        return torch.zeros_like(like, device=device)
    g = torch.as_tensor(g, dtype=like.dtype, device=device)
    if tuple(g.shape) != tuple(like.shape):
        raise ValueError("gradient_values: the gradient of %r has shape %s, expected %s"
                         % (parameter, tuple(g.shape), tuple(like.shape)))
    return g.detach().clone()


def data_parallel_distributed_learner(learner, distributed_after=0, num_quantization_bits=32,
                                      use_async_buffered_parameter_update=False):
    """A data-parallel distributed learner around the local ``learner``.

    Args:
        learner: the local learner (such as ``cntk.sgd(...)``).
        distributed_after (int): samples trained locally before the workers start aggregating.
        num_quantization_bits (int): bits a gradient value travels with (1, 2, 4, 8, 16; 32: no quantization).
        use_async_buffered_parameter_update (bool): must be False (asynchronous updates are not supported).
    """
    if use_async_buffered_parameter_update:
        raise ValueError("use_async_buffered_parameter_update must be False: asynchronous buffered parameter "
                         "updates are not supported by the data-parallel distributed learner")
    if num_quantization_bits != 32:
        check_bits(num_quantization_bits)
    return DataParallelDistributedLearner(learner, distributed_after, num_quantization_bits)
