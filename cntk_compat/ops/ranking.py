"""Ranking criteria over the whole minibatch, as CNTK 2.7 computes them: lambda_rank and ndcg_at_1.

Samples carry a score, a gain and a group id. CNTK reads the minibatch as one row of samples (for sequences:
CNTK's packed layout, see _packed_layout, its gaps included as zeros) and cuts it into
groups wherever the integer part of the group id changes from one sample to the next, so a group is a run of
consecutive samples. Inside a group:

* the "ideal" order is the order the samples come in (CNTK expects them sorted by decreasing gain and does not
  sort them): ideal DCG = sum(gain / ln(2 + position));
* the ranked order sorts by decreasing score; equal scores put the smaller gain first (then sample order):
  DCG = sum(gain / ln(2 + rank)); NDCG = DCG / ideal DCG, or 0 where the ideal DCG is 0.

lambda_rank = (1 - sum of the groups' NDCG / number of groups) * 100 * number of samples. Its gradient for the
scores is CNTK's LambdaRank update, added to the scores' gradient as it is (it does not scale with the gradient
that reaches lambda_rank's output): for every pair (i, j) of a group with i before j and gain(i) larger than the
gain of the group's last sample, pairs of (nearly) equal gains left out, lambda = -|delta NDCG(i, j)| /
(1 + exp(s_i - s_j)) goes to i and -lambda to j, where |delta NDCG| = |(g_i - g_j)(1/ln(2 + rank_j) -
1/ln(2 + rank_i))| / ideal DCG. CNTK takes the k-th kept pair's score difference from the k-th pair of the full
list (equal-gain pairs included), so after a skipped pair the differences shift along; that is reproduced.
With no positive gain in the minibatch there is no update.

ndcg_at_1 = (sum over groups of gain(top ranked) / gain(first sample); groups whose first gain is 0 add 0)
/ number of groups * 100 * number of samples.
"""
import math

import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from ._evaluation_only import evaluation_only
from ._packed_layout import packed_columns


def _row(x, mask):
    """The samples as CNTK's matrix columns: batch order, or for sequences CNTK's packed layout with its gaps
    as zeros."""
    if mask is None:
        return x.reshape(-1)
    x = x.reshape(mask.shape[0], mask.shape[1], -1)[..., 0]
    columns, n = packed_columns(mask)
    return torch.zeros(n, dtype=x.dtype, device=x.device).index_put((columns,), x[mask])


def _rows(score, gain, group, masks):
    mask = next((m for m in masks if m is not None), None)
    return _row(score, mask), _row(gain, mask).detach(), _row(group, mask).detach()


class _Groups(object):
    """How a row of samples splits into groups, and where each sample ranks."""

    def __init__(self, score, gain, group):
        n = score.shape[0]
        ids = group.to(torch.int64)
        index = torch.arange(n, device=score.device)
        starts = torch.ones(n, dtype=torch.bool, device=score.device)
        starts[1:] = ids[1:] != ids[:-1]
        self.of = torch.cumsum(starts.to(torch.int64), 0) - 1  # group number of each sample
        self.count = int(self.of[-1]) + 1 if n else 0
        first = index[starts]
        self.position = index - first[self.of]
        self.last = torch.cat((first[1:] - 1, index[-1:]))  # the last sample of each group
        self.same = self.of[:, None] == self.of[None, :]
        # before[i, j]: sample j ranks before sample i
        tie = (score[None, :] == score[:, None]) | torch.isnan(score)[None, :] | torch.isnan(score)[:, None]
        by_gain = (gain[None, :] < gain[:, None]) | ((gain[None, :] == gain[:, None]) & (index[None, :] < index[:, None]))
        before = torch.where(tie, by_gain, score[None, :] > score[:, None])
        self.rank = (before & self.same).sum(1)

    def sums(self, per_sample):
        return torch.zeros(self.count, dtype=per_sample.dtype, device=per_sample.device).index_add_(
            0, self.of, per_sample)


def _dcgs(groups, gain):
    ideal = groups.sums(gain / torch.log(2.0 + groups.position.to(gain.dtype)))
    actual = groups.sums(gain / torch.log(2.0 + groups.rank.to(gain.dtype)))
    return ideal, actual


class _LambdaRank(torch.autograd.Function):
    @staticmethod
    def forward(ctx, score, gain, group):
        groups = _Groups(score, gain, group)
        ideal, actual = _dcgs(groups, gain)
        ndcg = torch.where(ideal != 0, actual / torch.where(ideal != 0, ideal, torch.ones_like(ideal)),
                           torch.zeros_like(ideal))
        n = score.shape[0]
        ctx.save_for_backward(score, gain, ideal)
        ctx.groups = groups
        return (1.0 - ndcg.sum() / groups.count) * 100 * n

    @staticmethod
    def backward(ctx, grad_output):
        score, gain, ideal = ctx.saved_tensors
        groups = ctx.groups
        update = torch.zeros_like(score)
        if not bool((gain > 0).any()):
            return update, None, None
        n = score.shape[0]
        index = torch.arange(n, device=score.device)
        eligible = gain > gain[groups.last][groups.of]
        pairs = groups.same & (index[None, :] > index[:, None]) & eligible[:, None]
        i, j = pairs.nonzero(as_tuple=True)  # row-major: CNTK's pair order
        kept = (gain[i] - gain[j]).abs() >= 1e-7
        differences = (score[i] - score[j])[:int(kept.sum())]
        i, j = i[kept], j[kept]
        discount_i = torch.log(2.0 + groups.rank[i].to(score.dtype))
        discount_j = torch.log(2.0 + groups.rank[j].to(score.dtype))
        delta = (gain[i] - gain[j]) * (discount_i - discount_j) / (discount_i * discount_j)
        ideal_ij = ideal[groups.of[i]]
        delta = torch.where(ideal_ij == 0, torch.zeros_like(delta),
                            (delta / torch.where(ideal_ij == 0, torch.ones_like(ideal_ij), ideal_ij)).abs())
        lambdas = -1.0 / (1.0 + torch.exp(differences)) * delta
        update.index_add_(0, i, lambdas)
        update.index_add_(0, j, -lambdas)
        return update, None, None


def _lambda_rank(score, gain, group, masks):
    s, g, q = _rows(score, gain, group, masks)
    return _LambdaRank.apply(s, g, q)


def _ndcg_at_1(score, gain, group, masks):
    return evaluation_only("NDCG1Eval", lambda score, gain, group: _ndcg(score, gain, group, masks),
                           score, gain, group)


def _ndcg(score, gain, group, masks):
    s, g, q = _rows(score, gain, group, masks)
    groups = _Groups(s, g, q)
    first = torch.nonzero(groups.position == 0, as_tuple=True)[0]
    ln2 = math.log(2.0)
    ideal = g[first] / ln2
    top = torch.zeros(groups.count, dtype=torch.int64, device=s.device).index_put_(
        (groups.of[groups.rank == 0],), torch.nonzero(groups.rank == 0, as_tuple=True)[0])
    actual = g[top] / ln2
    ratio = torch.where(ideal != 0, actual / torch.where(ideal != 0, ideal, torch.ones_like(ideal)),
                        torch.zeros_like(ideal))
    return ratio.sum() / groups.count * 100 * s.shape[0]


def _infer(inputs, attributes):
    for v in inputs:
        if v._shape is not None and tuple(v._shape) not in ((), (1,)):
            raise ValueError("%s: output, gain and group must be scalars per sample (shape (1,)), got %s"
                             % (attributes["op_name"], v._shape))
    return [OutputSpec((), promote(*[v._dtype for v in inputs]), (), needs_gradient=attributes["differentiable"])]


register_op("LambdaRank", _infer, _lambda_rank, uses_masks=True, public_attributes=lambda attributes, node: {})
register_op("NDCG1Eval", _infer, _ndcg_at_1, uses_masks=True, public_attributes=lambda attributes, node: {},
            public_name="NDCG")


def _ranking_op(op, op_name, output, gain, group, name, differentiable):
    o, g, grp = sanitize_operands(output, gain, group, names=["output", "gain", "group"])
    return make(op, [o, g, grp], {"op_name": op_name, "differentiable": differentiable}, name)


def lambda_rank(output, gain, group, name=""):
    """CNTK's LambdaRank criterion: (1 - mean NDCG over the groups) * 100 * number of samples, with the
    LambdaRank update as the scores' gradient (see the module docstring for CNTK's exact rules)."""
    return _ranking_op("LambdaRank", "lambda_rank", output, gain, group, name, True)


def ndcg_at_1(output, gain, group, name=""):
    """CNTK's NDCG@1 metric: mean over the groups of gain(top scored) / gain(first sample), times 100 * number
    of samples (no gradient)."""
    return _ranking_op("NDCG1Eval", "ndcg_at_1", output, gain, group, name, False)
