"""The Trainer's usual criterion pair, cross_entropy_with_softmax and classification_error, as fused torch ops.

Both are composed of primitives in the graph (what CNTK's graph API, saved models and exports see):

    loss   = log_sum_exp(z) - reduce_sum(y * z)            (along z's last axis)
    metric = 1 - reduce_sum(hardmax(z) * y)

Lowered as they stand that is several passes over the (samples, classes) logits each way, where torch's
``cross_entropy`` runs one fused ``log_softmax``. ``fuse`` rewrites the finished graph's two patterns (the inner
results read by nothing else) as one call each:

- ``softmax_cross_entropy``: when the labels ``y`` are known one-hot at run time (their producer recorded the
  column of each row's 1, core/one_hot.py: ``Value.one_hot``, one-hot CSR sequences, readers), ``y·z`` is the
  picked logit and the loss is ``-log_softmax(z)[label]``, torch's ``cross_entropy`` (CNTK's own node computes
  ``-y·log_softmax(z)`` this way; the values agree with the composed form to rounding). A row without a 1
  (padding, a skipped sample) gets ``log_sum_exp(z)`` as in the composed form. Any other case -- labels without a
  record or that need a gradient, a reduction over another axis, a graph being traced -- computes the composed
  ops' values and gradients bit for bit, in one autograd node where ``y`` has ``z``'s shape and type.
- ``classification_error``: ``reduce_sum(hardmax(z) * y)`` is ``y`` at ``z``'s argmax (every other product is
  a zero), so the metric is ``1 - y.gather(argmax(z))``, with the same values (for finite labels) and the same
  gradient with respect to ``y`` (``-hardmax(z)``) for any labels, one-hot or not.

Checked mode (NaN reports per node) keeps the composed ops.
"""
import torch

from .one_hot import recorded_one_hot_columns

# the ops' computations the patterns are made of, by role ("reduce": ops.reductions' reduction,
# "log_sum_exp_minus_dot": its one-node form of the loss pattern, "hardmax": ops.softmax's hardmax), registered
# by the ops (the core does not import them; importing any part of the package imports the ops, so they are
# registered wherever a lowered module runs)
_COMPUTATIONS = {}


def register_computation(role, function):
    """Declares ``function`` (an op's torch computation, the target of its fx calls) as the one of ``role``."""
    _COMPUTATIONS[role] = function


def _last_axis_reduction(n, kind):
    """Whether fx node n is a reduction ``kind`` over static axes only (one axis), and its kwargs."""
    if n.op != "call_function" or n.target is not _COMPUTATIONS.get("reduce"):
        return None
    kw = n.kwargs
    if kw.get("kind") != kind or kw.get("dyn_dims") or len(kw.get("static_dims", ())) != 1:
        return None
    return kw


def _product_operands(n):
    if n.op != "call_function" or n.target is not torch.mul or len(n.args) != 2 or n.kwargs:
        return None
    return n.args


def softmax_cross_entropy(z, y, dim, keepdims):
    """``log_sum_exp(z) - reduce_sum(y * z)`` along tensor axis ``dim`` (see the module docstring)."""
    record = None
    if not torch.compiler.is_compiling() and dim == z.dim() - 1 and y.shape == z.shape and y.dtype == z.dtype \
            and not y.requires_grad and z.dtype.is_floating_point:
        record = recorded_one_hot_columns(y)
    if record is None:
        if y.shape == z.shape and y.dtype == z.dtype:
            return _COMPUTATIONS["log_sum_exp_minus_dot"](z, y, dim, keepdims)
        reduce = _COMPUTATIONS["reduce"]
        return torch.sub(reduce(z, "log_sum_exp", (dim,), (), keepdims),
                         reduce(torch.mul(y, z), "sum", (dim,), (), keepdims))
    columns, every_row_hot = record
    flat = z.reshape(-1, z.shape[-1])
    if every_row_hot:
        loss = torch.nn.functional.cross_entropy(flat, columns, reduction="none")
    else:
        log_p = torch.log_softmax(flat, 1)
        picked = log_p.gather(1, columns.clamp(min=0)[:, None])[:, 0]
        # a row of zeros: y·z is 0, the loss log_sum_exp(z) = z_0 - log_softmax(z)_0
        loss = torch.where(columns >= 0, -picked, flat[:, 0] - log_p[:, 0])
    return loss.reshape(tuple(z.shape[:-1]) + ((1,) if keepdims else ()))


def classification_error(one, z, y, n_dyn, axis, dim, keepdims):
    """``one - reduce_sum(hardmax(z) * y)`` along tensor axis ``dim`` (hardmax's axis ``axis`` of the static
    axes; see the module docstring)."""
    along = n_dyn + axis if axis is not None else (n_dyn if z.dim() == n_dyn + 1 else None)
    if torch.compiler.is_compiling() or along != dim or y.shape != z.shape or y.dtype != z.dtype:
        product = torch.mul(_COMPUTATIONS["hardmax"](z, n_dyn, axis), y)
        return torch.sub(one, _COMPUTATIONS["reduce"](product, "sum", (dim,), (), keepdims))
    hit = y.gather(dim, z.detach().argmax(dim, keepdim=True))
    return torch.sub(one, hit if keepdims else hit.squeeze(dim))


def _only_user(n, user):
    return len(n.users) == 1 and user in n.users


def _is_one(root, n):
    if n.op != "get_attr":
        return False
    value = root
    for part in n.target.split("."):
        value = getattr(value, part, None)
    return isinstance(value, torch.Tensor) and value.numel() == 1 and bool(value.reshape(()) == 1)


def fuse(graph, root):
    """Rewrites the loss and metric patterns of the module docstring as one call each."""
    changed = False
    for n in list(graph.nodes):
        if n.op != "call_function" or n.target is not torch.sub or len(n.args) != 2 or n.kwargs:
            continue
        left, right = n.args
        if not isinstance(left, torch.fx.Node) or not isinstance(right, torch.fx.Node):
            continue
        total = _last_axis_reduction(right, "sum")
        if total is None or not _only_user(right, n):
            continue
        product = right.args[0]
        operands = _product_operands(product) if isinstance(product, torch.fx.Node) else None
        if operands is None or not _only_user(product, right):
            continue
        dim, keepdims = total["static_dims"][0], total["keepdims"]
        lse = _last_axis_reduction(left, "log_sum_exp")
        if lse is not None and _only_user(left, n) and lse["static_dims"][0] == dim and \
                lse["keepdims"] == keepdims and left.args[0] in operands and operands[0] is not operands[1]:
            z = left.args[0]
            y = operands[1] if operands[0] is z else operands[0]
            with graph.inserting_before(n):
                fused = graph.call_function(softmax_cross_entropy, (z, y, dim, keepdims))
            erased = (left, right, product)
        elif _is_one(root, left):
            hardmax = [a for a in operands if isinstance(a, torch.fx.Node) and a.op == "call_function" and
                       a.target is _COMPUTATIONS["hardmax"] and _only_user(a, product)]
            if len(hardmax) != 1 or operands[0] is operands[1]:
                continue
            h = hardmax[0]
            y = operands[1] if operands[0] is h else operands[0]
            z, n_dyn, axis = h.args[0], h.kwargs.get("n_dyn", h.args[1] if len(h.args) > 1 else None), \
                h.kwargs.get("axis", h.args[2] if len(h.args) > 2 else None)
            with graph.inserting_before(n):
                fused = graph.call_function(classification_error, (left, z, y, n_dyn, axis, dim, keepdims))
            erased = (right, product, h)
        else:
            continue
        fused.meta.update(n.meta)
        n.replace_all_uses_with(fused)
        graph.erase_node(n)
        for e in erased:
            graph.erase_node(e)
        changed = True
    return changed
