"""Results CNTK 2.7 computes for evaluation only (ClassificationError with topN > 1, NDCG1Eval): differentiating
through one is its RuntimeError "<op> operation is used for evaluation only.", raised when a gradient reaches the
node (a Trainer's metric is never differentiated, so it does not)."""
import torch


class _EvaluationOnly(torch.autograd.Function):
    @staticmethod
    def forward(ctx, op_name, compute, *tensors):
        ctx.op_name = op_name
        with torch.no_grad():
            return compute(*tensors)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("%s operation is used for evaluation only." % ctx.op_name)


def evaluation_only(op_name, compute, *tensors):
    """compute(*tensors), whose gradient is CNTK's refusal for op_name."""
    return _EvaluationOnly.apply(op_name, compute, *tensors)
