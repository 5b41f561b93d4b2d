"""Reductions over static axes (and over the batch axis), argmax/argmin."""
import torch

from ..core.axis import Axis, BATCH_AXIS_NAME, is_sequence_axis
from ..core.criterion_fusion import register_computation
from ..core.function import Function
from ..core.native_errors import announced
from ..core.registry import OutputSpec, register_op
from ._common import make, native_axis, normalize_axis, refuse_axis_of_rank0, resolve_axes, sanitize_operands


def _parse_axes(x, axis, keepdims, op_name):
    """(static axis indices, reduce over batch, reduce over all dynamic axes) from CNTK's axis forms."""
    listed = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in listed:
        if isinstance(a, Axis) and is_sequence_axis(a):   # CNTK 2.7's sanitize_multi_axis_reduction_list
            raise ValueError("Reduction operation over multiple axes can not contain sequence axis: %r\n\n"
                             "(cntk-compat: %s; cntk.sequence.reduce_* reduce along a sequence axis)" % (a, op_name))
    if not keepdims and any(a is None or (isinstance(a, Axis) and a._index is None) for a in listed):
        # CNTK 2.7 drops reduced dimensions by their static index only
        raise ValueError("%s: keepdims=False needs static axes given by their index (cannot query the static axis "
                         "index for a non-static axis: %s)" % (op_name, axis))
    if len(listed) == 1:  # [Axis.all_axes()] is Axis.all_axes()
        axis = listed[0]
    rank = len(x._shape) if x._shape is not None else None
    if axis is None or (isinstance(axis, Axis) and axis == Axis.all_static_axes()):
        return None, False, False
    if isinstance(axis, Axis) and axis == Axis.all_axes():
        return None, True, True
    if isinstance(axis, Axis) and axis.is_dynamic_axis:
        _check_batch_reduction(x, op_name)
        return (), True, False
    static, batch = [], False
    for a in listed:
        if isinstance(a, Axis) and a.is_dynamic_axis:
            _check_batch_reduction(x, op_name)
            batch = True
            continue
        refuse_axis_of_rank0(a, x, op_name)
        static.append(normalize_axis(a, rank, op_name))
    return tuple(static), batch, False


def _check_batch_reduction(x, op_name):
    """CNTK 2.7 reduces along the batch axis only an operand that has one and no sequence axis (RuntimeError)."""
    if x._dynamic_axes is None:
        return
    if not any(a.name == BATCH_AXIS_NAME for a in x._dynamic_axes):
        raise RuntimeError("%s: operand '%s' has no batch axis to reduce along (no batch axis found during "
                           "reduction along the batch axis)" % (op_name, x.name or x.uid))
    if x._sequence_axis is not None:
        raise RuntimeError("%s: operand '%s' is a sequence; reduction along the batch axis on input sequence is "
                           "unsupported (CNTK 2.7)" % (op_name, x.name or x.uid))


def _reduce_infer(inputs, attributes):
    (x,) = inputs
    keepdims = attributes["keepdims"]
    dyn = x._dynamic_axes
    if attributes["all_dynamic"]:
        dyn = ()
    elif attributes["batch"] and dyn is not None:
        dyn = tuple(a for a in dyn if a.name != BATCH_AXIS_NAME)
    if x._shape is None:
        return [OutputSpec(None, x._dtype, dyn)]
    if attributes["axes"] is None:
        # all static axes (axis=None, Axis.all_static_axes() or Axis.all_axes()): a scalar per sample, or one
        # scalar, whatever keepdims says (CNTK 2.7)
        return [OutputSpec((), x._dtype, dyn)]
    axes = resolve_axes(attributes["axes"], len(x._shape), attributes["kind"])
    if keepdims:
        shape = tuple(1 if k in axes else d for k, d in enumerate(x._shape))
    else:
        shape = tuple(d for k, d in enumerate(x._shape) if k not in axes)
    if attributes["all_dynamic"] and not keepdims:
        shape = ()
    return [OutputSpec(shape, x._dtype, dyn)]


def _saved(ctx, t, y, dims, keepdim):
    """y, after keeping the operand, the output and the reduction's geometry for backward."""
    ctx.save_for_backward(t, y)
    ctx.dims, ctx.keepdim = dims, keepdim
    return y


def _with_reduced_dims(ctx, ndim, *tensors):
    """A reduction's output (and its gradient) with the reduced dimensions back as size-1 axes."""
    if ctx.keepdim:
        return tensors
    for d in sorted(d % ndim for d in ctx.dims):
        tensors = tuple(t.unsqueeze(d) for t in tensors)
    return tensors


class _Extreme(torch.autograd.Function):
    """reduce_max / reduce_min with CNTK 2.7's gradient: every element equal to the extreme gets the whole output
    gradient (torch's amax/amin share it among ties)."""

    @staticmethod
    def forward(ctx, t, dims, keepdim, largest):
        return _saved(ctx, t, t.amax(dim=dims, keepdim=keepdim) if largest else t.amin(dim=dims, keepdim=keepdim),
                      dims, keepdim)

    @staticmethod
    def backward(ctx, g):
        t, y = ctx.saved_tensors
        y, g = _with_reduced_dims(ctx, t.dim(), y, g)
        return g * (t == y).to(g.dtype), None, None, None


def _accumulates_in_double(t):
    """CNTK 2.7's CPU reductions (sum, mean, product, log-sum-exp) accumulate single precision in double and
    round the result once: bit for bit CNTK's, where torch's float32 sum differs in the last bits. On a GPU
    (float64 is slow there, and CNTK's GPU reductions are float32) a reduction stays in the operand's precision."""
    return t.dtype in (torch.float32, torch.float16, torch.bfloat16) and t.is_cpu


def _accumulated(t, reduce):
    """``reduce(t)`` with _accumulates_in_double's rounding."""
    if _accumulates_in_double(t):
        return reduce(t.double()).to(t.dtype)
    return reduce(t)


class _Product(torch.autograd.Function):
    """reduce_prod as CNTK 2.7 computes it: the product in double precision, rounded once; the gradient (output
    gradient times output) times 1/input, where 1/0 counts as 0 (CNTK's guarded division; torch gives the
    product of the other elements there)."""

    @staticmethod
    def forward(ctx, t, dims, keepdim):
        def product(u):
            for d in reversed(dims):
                u = u.prod(dim=d, keepdim=keepdim)
            return u
        return _saved(ctx, t, _accumulated(t, product), dims, keepdim)

    @staticmethod
    def backward(ctx, g):
        t, y = ctx.saved_tensors
        y, g = _with_reduced_dims(ctx, t.dim(), y, g)
        zero = t == 0
        reciprocal = torch.where(zero, torch.zeros_like(t), torch.reciprocal(torch.where(zero, torch.ones_like(t), t)))
        return (g * y) * reciprocal, None, None


class _LogSumExp(torch.autograd.Function):
    """reduce_log_sum_exp as CNTK 2.7 computes it: the value in double precision, rounded once; the gradient
    output gradient times exp(input - output) in the operand's precision."""

    @staticmethod
    def forward(ctx, t, dims, keepdim):
        return _saved(ctx, t, _accumulated(t, lambda u: torch.logsumexp(u, dim=dims, keepdim=keepdim)), dims,
                      keepdim)

    @staticmethod
    def backward(ctx, g):
        t, y = ctx.saved_tensors
        y, g = _with_reduced_dims(ctx, t.dim(), y, g)
        return g * torch.exp(t - y), None, None


class _LogSumExpMinusDot(torch.autograd.Function):
    """``log_sum_exp(z) - reduce_sum(y * z)`` along one axis (cross_entropy_with_softmax's composition) as those
    two reductions and the subtraction compute it, values and gradients bit for bit, in one autograd node instead
    of seven: the Trainer's usual criterion runs at each minibatch, where their dispatch cost adds up."""

    @staticmethod
    def forward(ctx, z, y, dim, keepdim):
        # _accumulated's and _apply's rules written out: their helper calls were a tenth of a small step
        if _accumulates_in_double(z):
            lse = torch.logsumexp(z.double(), dim, True).to(z.dtype)
            loss = lse - (y * z).sum(dim, keepdim=True, dtype=torch.float64).to(z.dtype)
        else:
            lse = torch.logsumexp(z, dim, True)
            loss = lse - (y * z).sum(dim, keepdim=True)
        ctx.save_for_backward(z, y, lse)
        ctx.dim = dim
        return loss if keepdim else loss.squeeze(dim)

    @staticmethod
    def backward(ctx, g):
        z, y, lse = ctx.saved_tensors
        if g.dim() < z.dim():
            g = g.unsqueeze(ctx.dim)
        grad_y = -g * z if ctx.needs_input_grad[1] else None
        return g * torch.exp(z - lse) - g * y, grad_y, None, None


def log_sum_exp_minus_dot(z, y, dim, keepdim):
    """log_sum_exp(z) - reduce_sum(y * z) along tensor axis ``dim`` (``y`` of z's shape and type)."""
    return _LogSumExpMinusDot.apply(z, y, dim % z.dim(), keepdim)


# what a reduction over no axis (a rank-0 operand's static axes) still computes: its elementwise part
_OVER_NO_AXIS = {"l1": torch.abs, "l2": torch.abs, "sum_square": torch.square}


def _apply(kind, t, dims, keepdim):
    if not dims:
        return _OVER_NO_AXIS[kind](t) if kind in _OVER_NO_AXIS else t
    if kind == "sum":
        if _accumulates_in_double(t):
            # _accumulated's rule in one kernel: the sum accumulates the operand's values in double
            return t.sum(dim=dims, keepdim=keepdim, dtype=torch.float64).to(t.dtype)
        return t.sum(dim=dims, keepdim=keepdim)
    if kind == "mean":  # the rounded sum times the rounded 1/n, as CNTK computes it (torch rounds the Python
        count = 1       # scalar to the tensor's type)
        for d in dims:
            count *= t.shape[d]
        return _apply("sum", t, dims, keepdim) * (1.0 / count)
    if kind in ("max", "min"):
        return _Extreme.apply(t, tuple(dims), keepdim, kind == "max")
    if kind == "log_sum_exp":
        return _LogSumExp.apply(t, tuple(sorted(d % t.dim() for d in dims)), keepdim)
    if kind == "l1":
        return t.abs().sum(dim=dims, keepdim=keepdim)
    if kind == "l2":
        return t.square().sum(dim=dims, keepdim=keepdim).sqrt()
    if kind == "sum_square":
        return t.square().sum(dim=dims, keepdim=keepdim)
    if kind == "prod":
        return _Product.apply(t, tuple(sorted(d % t.dim() for d in dims)), keepdim)
    raise ValueError(kind)


# how per-sample results combine over the dynamic axes (a sum of squares adds up; squaring it again would not)
_COMBINE = {"sum_square": "sum", "l1": "sum"}


def _reduce(x, kind, static_dims, dyn_dims, keepdims):
    if static_dims and dyn_dims and kind not in _COMBINE:  # one reduction over all of them, as CNTK's
        y = _apply(kind, x, static_dims + dyn_dims, True)
        return y.squeeze(dyn_dims + (() if keepdims else static_dims))
    if dyn_dims and not static_dims:
        return _apply(kind, x, dyn_dims, False)
    y = _apply(kind, x, static_dims, keepdims)
    if dyn_dims:
        y = _apply(_COMBINE.get(kind, kind) if static_dims else kind, y, dyn_dims, False)
    return y


register_computation("reduce", _reduce)
register_computation("log_sum_exp_minus_dot", log_sum_exp_minus_dot)


def _reduce_prepare(node):
    x = node._inputs[0]
    a = node._attributes
    n_dyn = x._n_dynamic
    dyn_dims = ()
    if a["all_dynamic"]:
        dyn_dims = tuple(range(n_dyn))
    elif a["batch"]:
        dyn_dims = (0,)
    static = resolve_axes(a["axes"], len(x._shape), a["kind"])
    return {"kind": a["kind"], "static_dims": tuple(n_dyn + k for k in static), "dyn_dims": dyn_dims,
            "keepdims": a["keepdims"] and a["axes"] is not None}


# what the padding of a sequence is filled with so that it does not change the reduction
_NEUTRAL = {"sum": 0.0, "mean": 0.0, "l1": 0.0, "l2": 0.0, "sum_square": 0.0, "prod": 1.0,
            "max": float("-inf"), "min": float("inf"), "log_sum_exp": float("-inf")}


def _reduce_all_sequences(x, kind, static_dims, dyn_dims, keepdims, mask):
    """A reduction over every axis of a padded (B, T, ...) sequence tensor: padding does not count."""
    valid = mask.reshape(tuple(mask.shape) + (1,) * (x.dim() - mask.dim()))
    y = _reduce(torch.where(valid, x, torch.full_like(x, _NEUTRAL[kind])),
                "sum" if kind == "mean" else kind, static_dims, dyn_dims, keepdims)
    if kind == "mean":
        y = y / (mask.sum() * (x[0, 0].numel()))
    return y


_OP_NAMES = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
             "prod": "ReduceProd", "log_sum_exp": "ReduceLogSum", "l1": "ReduceL1", "l2": "ReduceL2",
             "sum_square": "ReduceSumSquare"}
# CNTK's reductionOpName of the kinds that are its ReduceElements primitive (L1, L2 and SumSquare are not)
_CNTK_REDUCTION_NAMES = {"sum": "Sum", "mean": "Mean", "max": "Max", "min": "Min", "prod": "Prod",
                         "log_sum_exp": "LogSum"}


def _reduce_public(attrs, node):
    """Function.attributes of a reduction as CNTK 2.7 reports them: the reduced axes (a static axis by its
    negative column-major index, -1 for the last Python axis), whether dimensions are kept, the kind."""
    if attrs["all_dynamic"]:
        axes = [Axis.all_axes()]
    elif attrs["axes"] is None:
        axes = [Axis.all_static_axes()]
    else:
        axes = [Axis(-int(a) - 1) for a in attrs["axes"]]
        if attrs["batch"]:
            axes.append(Axis.default_batch_axis())
    public = {"axisVec": axes, "reductionKeepDimensions": bool(attrs["keepdims"])}
    if attrs["kind"] in _CNTK_REDUCTION_NAMES:
        public["reductionOpName"] = _CNTK_REDUCTION_NAMES[attrs["kind"]]
    return public


for _kind, _name in _OP_NAMES.items():
    _public = "ReduceElements" if _kind in _CNTK_REDUCTION_NAMES else _name
    register_op(_name, _reduce_infer, _reduce, prepare=_reduce_prepare, public_attributes=_reduce_public,
                public_name=_public)
    register_op(_name + "OverSequences", _reduce_infer, _reduce_all_sequences, prepare=_reduce_prepare,
                uses_mask=True, public_attributes=_reduce_public, public_name=_public)


def _reduction(kind, x, axis, keepdims, name):
    (x,) = sanitize_operands(x, names=["x"])
    op_name = _OP_NAMES[kind]
    axes, batch, all_dyn = _parse_axes(x, axis, keepdims, op_name)
    attributes = {"kind": kind, "axes": axes, "batch": batch, "all_dynamic": all_dyn, "keepdims": bool(keepdims)}
    if all_dyn and x._sequence_axis is not None:
        prim = Function._primitive(op_name + "OverSequences", [x], attributes, name)
        return Function._composite(prim.outputs)
    return make(op_name, [x], attributes, name)


def reduce_sum(x, axis=None, keepdims=True, name=""):
    return _reduction("sum", x, axis, keepdims, name)


def reduce_mean(x, axis=None, keepdims=True, name=""):
    return _reduction("mean", x, axis, keepdims, name)


def reduce_max(x, axis=None, keepdims=True, name=""):
    return _reduction("max", x, axis, keepdims, name)


def reduce_min(x, axis=None, keepdims=True, name=""):
    return _reduction("min", x, axis, keepdims, name)


def reduce_prod(x, axis=None, keepdims=True, name=""):
    return _reduction("prod", x, axis, keepdims, name)


def reduce_log_sum_exp(x, axis=None, keepdims=True, name=""):
    return _reduction("log_sum_exp", x, axis, keepdims, name)


def reduce_l1(x, axis=None, keepdims=True, name=""):
    return _reduction("l1", x, axis, keepdims, name)


def reduce_l2(x, axis=None, keepdims=True, name=""):
    return _reduction("l2", x, axis, keepdims, name)


def reduce_sum_square(x, axis=None, keepdims=True, name=""):
    return _reduction("sum_square", x, axis, keepdims, name)


# -- argmax / argmin ---------------------------------------------------------------------------------

def _arg_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    axis = attributes["axis"]
    if axis is not None:
        axis = normalize_axis(axis, len(x._shape), "argmax/argmin")
    if axis is None:
        shape = ()  # the index into the flattened sample, a scalar (CNTK 2.7)
    else:
        shape = tuple(1 if k == axis else d for k, d in enumerate(x._shape))
    return [OutputSpec(shape, x._dtype, x._dynamic_axes, needs_gradient=False)]


def _arg_extreme(x, n_dyn, axis, largest):
    if axis is None:
        flat = x.reshape(tuple(x.shape[:n_dyn]) + (-1,))
        idx = flat.argmax(dim=-1) if largest else flat.argmin(dim=-1)
    else:
        idx = x.argmax(dim=n_dyn + axis, keepdim=True) if largest else x.argmin(dim=n_dyn + axis, keepdim=True)
    return idx.to(x.dtype)


def _arg_prepare(largest):
    def prepare(node):
        x, axis = node._inputs[0], node._attributes["axis"]
        if axis is not None:
            axis = normalize_axis(axis, len(x._shape), "argmax/argmin")
        return {"n_dyn": x._n_dynamic, "axis": axis, "largest": largest}
    return prepare


def _arg_public(op_name):
    def public(attrs, node):
        axis = attrs["axis"]
        return {"axis": Axis.all_static_axes() if axis is None else native_axis(axis, len(node.inputs[0].shape)),
                "reductionKeepDimensions": True, "reductionOpName": op_name}
    return public


register_op("Argmax", _arg_infer, _arg_extreme, prepare=_arg_prepare(True), public_attributes=_arg_public("Argmax"),
            public_name="ReduceElements")
register_op("Argmin", _arg_infer, _arg_extreme, prepare=_arg_prepare(False), public_attributes=_arg_public("Argmin"),
            public_name="ReduceElements")


def _arg(op_name, x, axis, name):
    (x,) = sanitize_operands(x, names=["x"])
    rank = len(x._shape) if x._shape is not None else None
    everything = axis is None or (isinstance(axis, Axis) and axis == Axis.all_static_axes())
    if isinstance(axis, Axis) and is_sequence_axis(axis):
        raise announced(RuntimeError, "ReduceElements: operand %r; Invalid axis argument provided. To reduce an "
                        "operand along its ordered dynamic axis use Sequence::ReduceElements." % (x,))
    if isinstance(axis, (list, tuple)):   # CNTK 2.7 reads axis.is_static_axis of it: an AttributeError
        raise AttributeError("%s: axis must be one int or Axis, got %r" % (op_name, axis))
    if isinstance(axis, Axis) and axis.is_dynamic_axis:   # CNTK 2.7's RuntimeErrors for a sequence or no batch axis
        _check_batch_reduction(x, op_name)
    if not everything:
        refuse_axis_of_rank0(axis, x, op_name)
    a = None if everything else normalize_axis(axis, rank, op_name)
    return make(op_name, [x], {"axis": a}, name)


def argmax(x, axis=None, name=""):
    return _arg("Argmax", x, axis, name)


def argmin(x, axis=None, name=""):
    return _arg("Argmin", x, axis, name)
