"""edit_distance_error: CNTK's EditDistanceError, an edit-distance error rate scaled to the minibatch's frames.

Each frame's label is the argmax of its values; a sample without a sequence axis is a sequence of one frame.
Optionally runs of equal labels are squashed (before dropping) and the labels in tokensToIgnore are dropped.
Per sequence, CNTK's dynamic programme aligns input_a's labels (rows; a deletion drops one) with input_b's
(columns; an insertion adds one): equal labels copy the diagonal; otherwise substitution wins when no dearer
than deletion and insertion, then deletion when cheaper than insertion, else insertion (penalties decide,
float32 costs as in CNTK). The operations
(substitutions + deletions + insertions) of the chosen alignments are summed over the minibatch and the
result is

    operations * frames / (number of input_b labels kept)

so that the Trainer's per-frame average is the label error rate (infinite when input_b keeps no label, as in
CNTK). A forward-only metric. The programme runs over all sequences at once, one anti-diagonal per step.
"""
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from ..core.sequence_masks import pack_by_counts


def _labels(x, mask, squash, ignore):
    """(B, L) packed labels and their lengths (B,), after squashing and dropping ignored labels."""
    labels = x.reshape(x.shape[0], x.shape[1], -1).argmax(-1)
    keep = mask.clone()
    if squash:
        keep[:, 1:] &= labels[:, 1:] != labels[:, :-1]
    for token in ignore:
        keep &= labels != token
    packed, packed_mask = pack_by_counts(labels, keep.long())
    return packed, packed_mask.sum(1)


def _operations(rows, n_rows, cols, n_cols, sub_pen, del_pen, ins_pen):
    """The operations of CNTK's chosen alignment of rows (B, R) with cols (B, C), at (n_rows, n_cols) each."""
    batch, r_max, c_max = rows.shape[0], rows.shape[1], cols.shape[1]
    device = rows.device
    i = torch.arange(r_max + 1, device=device)  # anti-diagonal k holds the cells (i, k - i)
    zero = torch.zeros(batch, r_max + 1, device=device)
    cost_1 = cost_2 = ops_1 = ops_2 = zero
    result = torch.zeros(batch, device=device)
    target_k = n_rows + n_cols
    for k in range(r_max + c_max + 1):
        j = k - i
        border_cost = torch.where(i == 0, j.float() * ins_pen, i.float() * del_pen).expand(batch, -1)
        border_ops = torch.where(i == 0, j, i).float().expand(batch, -1)
        if k >= 2:
            up_cost, up_ops = _shift_down(cost_1), _shift_down(ops_1)          # (i - 1, j)
            diag_cost, diag_ops = _shift_down(cost_2), _shift_down(ops_2)      # (i - 1, j - 1)
            same = rows.gather(1, (i - 1).clamp(0, max(r_max - 1, 0)).expand(batch, -1)) == \
                cols.gather(1, (j - 1).clamp(0, max(c_max - 1, 0)).expand(batch, -1)) \
                if r_max and c_max else torch.zeros(batch, r_max + 1, dtype=torch.bool, device=device)
            sub_c, del_c, ins_c = diag_cost + sub_pen, up_cost + del_pen, cost_1 + ins_pen
            take_sub = (sub_c <= del_c) & (sub_c <= ins_c)
            take_del = del_c < ins_c
            cost = torch.where(same, diag_cost, torch.where(take_sub, sub_c, torch.where(take_del, del_c, ins_c)))
            ops = torch.where(same, diag_ops, torch.where(take_sub, diag_ops, torch.where(take_del, up_ops, ops_1)) + 1)
            inner = (i >= 1) & (j >= 1)
            cost, ops = torch.where(inner, cost, border_cost), torch.where(inner, ops, border_ops)
        else:
            cost, ops = border_cost, border_ops
        at_target = (target_k == k)
        if bool(at_target.any()):
            picked = ops.gather(1, n_rows.clamp(max=r_max)[:, None])[:, 0]
            result = torch.where(at_target, picked, result)
        cost_2, ops_2, cost_1, ops_1 = cost_1, ops_1, cost, ops
    return result


def _shift_down(x):
    """x moved one place toward larger i (row i - 1's value at i)."""
    return torch.cat((torch.zeros_like(x[:, :1]), x[:, :-1]), 1)


def _per_frame(x, mask, n_dyn):
    if n_dyn == 1:
        return x.unsqueeze(1), torch.ones(x.shape[0], 1, dtype=torch.bool, device=x.device)
    return x, mask


def _edit_distance_error(a, b, masks, sub_pen, del_pen, ins_pen, squash, ignore, n_dyn):
    b, frames = _per_frame(b, masks[1], n_dyn)
    a, _ = _per_frame(a, masks[0] if masks[0] is not None else frames, n_dyn)
    if masks[0] is not None and masks[1] is not None and not torch.equal(masks[0], masks[1]):
        raise ValueError("edit_distance_error: input_a and input_b must have sequences of the same lengths, got "
                         "%s and %s" % (masks[0].sum(1).tolist(), masks[1].sum(1).tolist()))
    rows, n_rows = _labels(a, frames, squash, ignore)
    cols, n_cols = _labels(b, frames, squash, ignore)
    operations = _operations(rows, n_rows, cols, n_cols, sub_pen, del_pen, ins_pen).double().sum()
    rate = operations * frames.sum().double() / n_cols.sum().double()
    return rate.to(torch.promote_types(a.dtype, b.dtype))


def _infer(inputs, attributes):
    a, b = inputs
    if a._dynamic_axes is not None and b._dynamic_axes is not None and \
            tuple(a._dynamic_axes) != tuple(b._dynamic_axes):
        raise ValueError("edit_distance_error: input_a and input_b must have the same dynamic axes (they are "
                         "compared frame by frame), got %s and %s" % (list(a._dynamic_axes), list(b._dynamic_axes)))
    return [OutputSpec((), promote(a._dtype, b._dtype), (), needs_gradient=False)]


def _public(attrs, node):
    return {"SubstitutionPenalty": attrs["sub_pen"], "DeletionPenalty": attrs["del_pen"],
            "InsertionPenalty": attrs["ins_pen"], "SquashInputs": attrs["squash"],
            "TokensToIgnore": list(attrs["ignore"])}


register_op("EditDistanceError", _infer, _edit_distance_error, uses_masks=True, public_attributes=_public,
            prepare=lambda node: dict(node._attributes, n_dyn=node._inputs[1]._n_dynamic))


def edit_distance_error(input_a, input_b, subPen=1, delPen=1, insPen=1, squashInputs=False, tokensToIgnore=[],
                        name=""):
    """CNTK's edit-distance error rate of input_a's argmax labels against input_b's, times the frame count."""
    a, b = sanitize_operands(input_a, input_b, names=["input_a", "input_b"])
    for what, token in (("tokensToIgnore", t) for t in tokensToIgnore):
        if isinstance(token, bool) or int(token) != token or token < 0:
            raise ValueError("edit_distance_error: %s must hold label indices (non-negative integers), got %r"
                             % (what, token))
    attributes = {"sub_pen": float(subPen), "del_pen": float(delPen), "ins_pen": float(insPen),
                  "squash": bool(squashInputs), "ignore": tuple(int(t) for t in tokensToIgnore)}
    return make("EditDistanceError", [a, b], attributes, name)
