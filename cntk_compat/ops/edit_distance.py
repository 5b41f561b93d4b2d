"""edit_distance_error: the number of edit operations between two label sequences, summed over the minibatch.

Each step's label is the argmax of its vector (a sample without a sequence axis is a sequence of one step).
Optionally runs of equal labels are squashed and some labels are dropped. The classic dynamic programme picks
the cheapest alignment under the substitution / deletion / insertion penalties (ties: the fewest operations);
the result counts its operations (CNTK's EditDistanceError, a forward-only metric). The programme runs over all
sequences at once, one cell (i, j) per step.
"""
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from .sequence._masked import pack_by_counts


def _labels(x, mask, squash, ignore):
    """(B, L) packed labels and their (B, L) mask, after squashing and dropping ignored labels."""
    if mask is None:
        x, mask = x.unsqueeze(1), torch.ones(x.shape[0], 1, dtype=torch.bool, device=x.device)
    labels = x.reshape(x.shape[0], x.shape[1], -1).argmax(-1)
    keep = mask.clone()
    if squash:
        repeated = torch.zeros_like(keep)
        repeated[:, 1:] = labels[:, 1:] == labels[:, :-1]
        keep &= ~repeated
    for token in ignore:
        keep &= labels != token
    packed, packed_mask = pack_by_counts(labels, keep.to(torch.long))
    return packed, packed_mask


def _edit_distance_error(a, b, masks, sub_pen, del_pen, ins_pen, squash, ignore):
    la, ma = _labels(a, masks[0], squash, ignore)
    lb, mb = _labels(b, masks[1], squash, ignore)
    len_a, len_b = ma.sum(1), mb.sum(1)
    n_a, n_b = la.shape[1], lb.shape[1]
    dtype = a.dtype
    steps_b = torch.arange(n_b + 1, device=a.device, dtype=dtype)
    cost = (steps_b * ins_pen).expand(a.shape[0], n_b + 1).clone()  # row 0: insert the first j labels of b
    ops = steps_b.expand(a.shape[0], n_b + 1).clone()
    rows_cost, rows_ops = [cost], [ops]
    for i in range(1, n_a + 1):
        cost_i, ops_i = [rows_cost[-1][:, 0] + del_pen], [rows_ops[-1][:, 0] + 1]
        for j in range(1, n_b + 1):
            same = la[:, i - 1] == lb[:, j - 1]
            candidates = [
                (torch.where(same, rows_cost[-1][:, j - 1], rows_cost[-1][:, j - 1] + sub_pen),
                 torch.where(same, rows_ops[-1][:, j - 1], rows_ops[-1][:, j - 1] + 1)),
                (rows_cost[-1][:, j] + del_pen, rows_ops[-1][:, j] + 1),
                (cost_i[j - 1] + ins_pen, ops_i[j - 1] + 1),
            ]
            best_c, best_o = candidates[0]
            for c, o in candidates[1:]:
                better = (c < best_c) | ((c == best_c) & (o < best_o))
                best_c, best_o = torch.where(better, c, best_c), torch.where(better, o, best_o)
            cost_i.append(best_c)
            ops_i.append(best_o)
        rows_cost.append(torch.stack(cost_i, 1))
        rows_ops.append(torch.stack(ops_i, 1))
    all_ops = torch.stack(rows_ops, 1)  # (B, n_a + 1, n_b + 1)
    per_sequence = all_ops[torch.arange(a.shape[0], device=a.device), len_a, len_b]
    return per_sequence.sum().to(dtype)


def _infer(inputs, attributes):
    a, b = inputs
    return [OutputSpec((), promote(a._dtype, b._dtype), (), needs_gradient=False)]


register_op("EditDistanceError", _infer, _edit_distance_error, uses_masks=True,
            prepare=lambda node: dict(node._attributes))


def edit_distance_error(input_a, input_b, subPen=1, delPen=1, insPen=1, squashInputs=False, tokensToIgnore=[],
                        name=""):
    """Edit operations between the argmax label sequences of input_a and input_b, summed over the minibatch."""
    a, b = sanitize_operands(input_a, input_b, names=["input_a", "input_b"])
    attributes = {"sub_pen": float(subPen), "del_pen": float(delPen), "ins_pen": float(insPen),
                  "squash": bool(squashInputs), "ignore": tuple(int(t) for t in tokensToIgnore)}
    return make("EditDistanceError", [a, b], attributes, name)
