"""Ranking criteria over the whole minibatch: lambda_rank (NDCG loss with LambdaRank gradients) and ndcg_at_1.

Samples carry a score, a gain and a group id; samples with the same group id are ranked against each other.
DCG = sum(gain / log(2 + rank)) with 0-based ranks by decreasing score; NDCG divides by the DCG of the ideal
order (decreasing gain). Both results are scalars for the minibatch: (1 - mean NDCG) * 100 * N for lambda_rank
and mean NDCG@1 * 100 * N for ndcg_at_1, N being the number of samples. All pairwise work is done on (N, N)
matrices.
"""
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands


def _flat(t):
    return t.reshape(-1)


def _ranks(values, same_group):
    """0-based rank of each sample inside its group by decreasing value (ties keep sample order)."""
    n = values.shape[0]
    index = torch.arange(n, device=values.device)
    ahead = (values[None, :] > values[:, None]) | ((values[None, :] == values[:, None]) & (index[None, :] <
                                                                                           index[:, None]))
    return (ahead & same_group).sum(1)


def _group_sums(per_sample, same_group):
    """For every sample: the sum of per_sample over the samples of its group."""
    return same_group.to(per_sample.dtype) @ per_sample


def _ndcg_parts(score, gain, group):
    same_group = group[:, None] == group[None, :]
    n = score.shape[0]
    index = torch.arange(n, device=score.device)
    group_first = ~((same_group & (index[None, :] < index[:, None])).any(1))
    discount = 1.0 / torch.log(2.0 + _ranks(score, same_group).to(score.dtype))
    ideal_discount = 1.0 / torch.log(2.0 + _ranks(gain, same_group).to(score.dtype))
    return same_group, group_first, discount, ideal_discount


class _LambdaRank(torch.autograd.Function):
    @staticmethod
    def forward(ctx, score, gain, group):
        s, g, grp = _flat(score), _flat(gain), _flat(group)
        same_group, first, discount, ideal_discount = _ndcg_parts(s, g, grp)
        dcg = _group_sums(g * discount, same_group)
        idcg = _group_sums(g * ideal_discount, same_group)
        ndcg = torch.where(idcg > 0, dcg / idcg.clamp(min=1e-30), torch.ones_like(idcg))[first]
        ctx.save_for_backward(s, g, same_group, discount, idcg)
        ctx.score_shape = score.shape
        return (1.0 - ndcg.mean()) * 100.0 * s.shape[0]

    @staticmethod
    def backward(ctx, grad_output):
        s, g, same_group, discount, idcg = ctx.saved_tensors
        better = same_group & (g[:, None] > g[None, :])  # pairs (i, j): i should rank above j
        swap_change = ((g[:, None] - g[None, :]) * (discount[:, None] - discount[None, :])).abs()
        swap_change = swap_change / idcg[:, None].clamp(min=1e-30)
        pull = torch.sigmoid(s[None, :] - s[:, None]) * swap_change * better.to(s.dtype)
        lambdas = pull.sum(0) - pull.sum(1)
        return (grad_output * lambdas).reshape(ctx.score_shape), None, None


def _ndcg_at_1(score, gain, group):
    s, g, grp = _flat(score), _flat(gain), _flat(group)
    same_group, first, _, _ = _ndcg_parts(s, g, grp)
    top = _ranks(s, same_group) == 0
    top_gain = _group_sums(g * top.to(g.dtype), same_group)[first]
    best_gain = torch.where(same_group, g[None, :], torch.full_like(g[None, :], -torch.inf)).amax(1)[first]
    ratio = torch.where(best_gain > 0, top_gain / best_gain.clamp(min=1e-30), torch.ones_like(top_gain))
    return ratio.mean() * 100.0 * s.shape[0]


def _infer(inputs, attributes):
    for v in inputs:
        if v._shape is not None and tuple(v._shape) not in ((), (1,)):
            raise ValueError("%s: output, gain and group must be scalars per sample (shape (1,)), got %s"
                             % (attributes["op_name"], v._shape))
    return [OutputSpec((), promote(*[v._dtype for v in inputs]), (), needs_gradient=attributes["differentiable"])]


def _lambda_rank(score, gain, group):
    return _LambdaRank.apply(score, gain, group)


register_op("LambdaRank", _infer, _lambda_rank)
register_op("NDCG1Eval", _infer, _ndcg_at_1)


def _ranking_op(op, op_name, output, gain, group, name, differentiable):
    o, g, grp = sanitize_operands(output, gain, group, names=["output", "gain", "group"])
    return make(op, [o, g, grp], {"op_name": op_name, "differentiable": differentiable}, name)


def lambda_rank(output, gain, group, name=""):
    """(1 - mean NDCG over the groups) * 100 * number of samples; its gradient is the LambdaRank gradient."""
    return _ranking_op("LambdaRank", "lambda_rank", output, gain, group, name, True)


def ndcg_at_1(output, gain, group, name=""):
    """Mean over the groups of gain(top scored sample) / max gain, times 100 * number of samples (no gradient)."""
    return _ranking_op("NDCG1Eval", "ndcg_at_1", output, gain, group, name, False)
