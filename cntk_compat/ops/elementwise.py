"""Elementwise ops: arithmetic, activations, comparisons, rounding, trigonometry (CNTK broadcasting)."""


import functools

import numpy as np

import torch
import torch.nn.functional as F

from ..core import rounding
from ..core.function import as_variable
from ..core.native_errors import RuntimeValueError
from ._common import (is_symbolic, make, refuse_integer_arrays, register_elementwise, require_matching_dynamic_axes,
                      sanitize_operands)

# -- unary ---------------------------------------------------------------------------------------


def _round_half_up(x):
    return torch.floor(x + 0.5)


def _reciprocal(x):
    # CNTK: 1/0 gives 0 (with gradient 0); elsewhere torch's reciprocal, whose gradient -(g * (1/x)^2) is CNTK's
    zero = x == 0
    return torch.where(zero, torch.zeros_like(x), torch.reciprocal(torch.where(zero, torch.ones_like(x), x)))


def _softplus(x, steepness=1.0):
    if steepness == 1.0:
        return F.softplus(x)
    return F.softplus(steepness * x) / steepness


def _softsign(x):
    return x / (1 + torch.abs(x))


class _ELU(torch.autograd.Function):
    """CNTK's ELU: x > 0 ? x : alpha * (exp(x) - 1), with the gradient g * (x > 0 ? 1 : output + alpha) (both
    checked against CNTK 2.7 bit for bit, up to the last bit of exp). torch's elu computes expm1, which differs
    from exp(x) - 1 by up to 1e-4 relative for x just below 0."""

    @staticmethod
    def forward(ctx, x, alpha):
        y = torch.where(x > 0, x, alpha * (torch.exp(torch.clamp(x, max=0)) - 1))
        ctx.save_for_backward(x, y)
        ctx.alpha = alpha
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return torch.where(x > 0, grad, grad * (y + ctx.alpha)), None


def _elu(x, alpha=1.0):
    return _ELU.apply(x, alpha)


def _selu(x, scale=1.0507009873554805, alpha=1.6732632423543772):
    # CNTK 2.7: scale * (alpha * (exp(x) - 1)) for x < 0 (not expm1), scale * x from 0 on (its gradient at 0 is
    # scale)
    return torch.where(x < 0, scale * (alpha * (torch.exp(torch.clamp(x, max=0)) - 1)), scale * x)


def _leaky_relu(x, alpha=0.01):
    # the gradient at 0 is 1, as in CNTK (torch's leaky_relu gives alpha there)
    return torch.where(x < 0, alpha * x, x)


def _hard_sigmoid(x, alpha=0.2, beta=0.5):
    return torch.clamp(alpha * x + beta, 0.0, 1.0)


def _element_not(x):
    return (x <= 0).to(x.dtype)  # CNTK 2.7: true means > 0, so negatives are false


def _straight_through(x):
    # forward: sign (>= 0 -> 1, else -1); backward: identity gradient clipped to |x| <= 1
    hard = torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))
    soft = torch.clamp(x, -1.0, 1.0)
    return soft + (hard - soft).detach()


def _stop_gradient(x):
    return x.detach()


def _identity(x):
    return x


_EPS_IN_LOG = 1e-37
_LOG_OF_EPS_IN_LOG = -85.1
EPS_IN_INVERSE = 1e-30


def chain(grad, local):
    """grad * local, but 0 wherever grad is 0: a local derivative that is infinite at 0 (sqrt, fractional pow,
    the cosine of a zero vector) meets 0 there in the padding after a sequence's end, whose gradient CNTK masks
    to 0 (0 * inf would make every parameter gradient that sums over the padding NaN)."""
    return torch.where(grad == 0, torch.zeros_like(local), grad * local)


def guarded_divisor(t):
    """CNTK's divisor guard (its ElementInverse and ElementDivision): |t| below 1e-30 divides as 1e-30 with t's
    sign (0 as +)."""
    return torch.where(t >= 0, t.clamp_min(EPS_IN_INVERSE), t.clamp_max(-EPS_IN_INVERSE))


class _Log(torch.autograd.Function):
    """CNTK's log: inputs below 1e-37 (zero and negatives included) give -85.1; the gradient is exp(-output)."""

    @staticmethod
    def forward(ctx, x):
        y = torch.where(x < _EPS_IN_LOG, torch.full_like(x, _LOG_OF_EPS_IN_LOG),
                        torch.log(x.clamp_min(_EPS_IN_LOG)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * torch.exp(-y)


class _Sqrt(torch.autograd.Function):
    """CNTK's sqrt: negative inputs give 0; the gradient is 1 / (2 * output) (infinite at 0)."""

    @staticmethod
    def forward(ctx, x):
        y = rounding.sqrt(x.clamp_min(0))  # correctly rounded, as CNTK's sqrtf (torch's CPU sqrt is not always)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return chain(grad, 0.5 / y)


def _log(x):
    return _Log.apply(x)


def _sqrt(x):
    return _Sqrt.apply(x)


_UNARY = {
    # public name: (CNTK op name, torch computation)
    "negate": ("Negate", torch.neg),
    "abs": ("Abs", torch.abs),
    "exp": ("Exp", torch.exp),
    "log": ("Log", _log),
    "sqrt": ("Sqrt", _sqrt),
    "square": ("Square", torch.square),
    "reciprocal": ("Reciprocal", _reciprocal),
    "sigmoid": ("Sigmoid", torch.sigmoid),
    "tanh": ("Tanh", torch.tanh),
    "relu": ("ReLU", torch.relu),
    "floor": ("Floor", torch.floor),
    "ceil": ("Ceil", torch.ceil),
    "round": ("Round", _round_half_up),
    "sin": ("Sin", torch.sin),
    "cos": ("Cos", torch.cos),
    "tan": ("Tan", torch.tan),
    "asin": ("Asin", torch.asin),
    "acos": ("Acos", torch.acos),
    "atan": ("Atan", torch.atan),
    "sinh": ("Sinh", torch.sinh),
    "cosh": ("Cosh", torch.cosh),
    "asinh": ("Asinh", torch.asinh),
    "atanh": ("Atanh", torch.atanh),
    "element_not": ("ElementNot", _element_not),
    "straight_through_impl": ("StraightThrough", _straight_through),
    "stop_gradient": ("StopGradient", _stop_gradient),
    "alias": ("Alias", _identity),
}

# what the core's pattern matchers may know about an op's math (registry data, see core.registry.OpDef.algebra)
_ALGEBRA = {"Sigmoid": "sigmoid", "Tanh": "tanh", "ReLU": "relu", "Alias": "identity", "Plus": "add",
            "Minus": "sub", "ElementTimes": "mul"}

# CNTK's own names of these primitives (Function.op_name)
_PUBLIC_NAMES = {"Sigmoid": "StableSigmoid", "Alias": "NoOp"}

for _public, (_op_name, _fn) in _UNARY.items():
    register_elementwise(_op_name, _fn, algebra=_ALGEBRA.get(_op_name), public_name=_PUBLIC_NAMES.get(_op_name))


def _unary(public, x, name, attributes=None):
    (x,) = sanitize_operands(x, names=["x"])
    return make(_UNARY[public][0], [x], attributes, name)


def negate(x, name=""):
    return _unary("negate", x, name)


def abs(x, name=""):
    return _unary("abs", x, name)


def exp(x, name=""):
    return _unary("exp", x, name)


def log(x, name=""):
    return _unary("log", x, name)


def sqrt(x, name=""):
    return _unary("sqrt", x, name)


def square(x, name=""):
    """x times itself, built as CNTK 2.7 builds it: an ElementTimes of x with x (its graphs, node timing tables and
    TensorBoard graphs show that node). The Square op stays registered: files saved in the package's own format
    before hold it."""
    (x,) = sanitize_operands(x, names=["x"])
    return make("ElementTimes", [x, x], None, name)


def reciprocal(x, name=""):
    return _unary("reciprocal", x, name)


def sigmoid(x, name=""):
    return _unary("sigmoid", x, name)


def tanh(x, name=""):
    return _unary("tanh", x, name)


def relu(x, name=""):
    return _unary("relu", x, name)


def floor(arg, name=""):
    return _unary("floor", arg, name)


def ceil(arg, name=""):
    return _unary("ceil", arg, name)


def round(arg, name=""):
    return _unary("round", arg, name)


def sin(x, name=""):
    return _unary("sin", x, name)


def cos(x, name=""):
    return _unary("cos", x, name)


def tan(x, name=""):
    return _unary("tan", x, name)


def asin(x, name=""):
    return _unary("asin", x, name)


def acos(x, name=""):
    return _unary("acos", x, name)


def atan(x, name=""):
    return _unary("atan", x, name)


def sinh(x, name=""):
    return _unary("sinh", x, name)


def cosh(x, name=""):
    return _unary("cosh", x, name)


def asinh(x, name=""):
    return _unary("asinh", x, name)


def atanh(x, name=""):
    return _unary("atanh", x, name)


def element_not(x, name=""):
    return _unary("element_not", x, name)


def straight_through_impl(x, name=""):
    return _unary("straight_through_impl", x, name)


def stop_gradient(input, name=""):
    return _unary("stop_gradient", input, name)


def alias(x, name=""):
    return _unary("alias", x, name)


# -- unary with attributes --------------------------------------------------------------------------

def _attr_prepare(*names):
    def prepare(node):
        return {n: node._attributes[n] for n in names}
    return prepare


register_elementwise("Softplus", _softplus, prepare=_attr_prepare("steepness"))
register_elementwise("Softsign", _softsign)
register_elementwise("ELU", _elu, prepare=_attr_prepare("alpha"))
register_elementwise("SELU", _selu, prepare=_attr_prepare("scale", "alpha"),
                     public_attributes=lambda attrs, node: {"gamma": attrs["scale"], "alpha": attrs["alpha"]})
register_elementwise("LeakyReLU", _leaky_relu, prepare=_attr_prepare("alpha"))
register_elementwise("HardSigmoid", _hard_sigmoid, prepare=_attr_prepare("alpha", "beta"))


def softplus(x, steepness=1, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("Softplus", [x], {"steepness": float(steepness)}, name)


def softsign(x, steepness=1, name=""):
    # CNTK 2.7 takes steepness and ignores it: x / (1 + |x|) whatever its value
    (x,) = sanitize_operands(x, names=["x"])
    return make("Softsign", [x], None, name)


def elu(x, alpha=1.0, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("ELU", [x], {"alpha": float(alpha)}, name)


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("SELU", [x], {"scale": float(scale), "alpha": float(alpha)}, name)


def leaky_relu(x, alpha=0.01, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("LeakyReLU", [x], {"alpha": float(alpha)}, name)


def hard_sigmoid(x, alpha, beta, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("HardSigmoid", [x], {"alpha": float(alpha), "beta": float(beta)}, name)


# -- binary and ternary ----------------------------------------------------------------------------

def _cntk_pow(base, exponent):
    """CNTK 2.7's power: 0 (either sign) to any power but 0 is +0 (not inf for a negative power), and a negative
    base to a power that is not a finite integer is NaN; elsewhere the C library's pow."""
    y = torch.pow(base, exponent)
    y = torch.where(base == 0, (exponent == 0).to(y.dtype), y)
    integral = (exponent == torch.floor(exponent)) & torch.isfinite(exponent)
    return torch.where((base < 0) & ~integral, torch.full_like(y, float("nan")), y)


class _Pow(torch.autograd.Function):
    """base ** exponent as CNTK computes it (_cntk_pow); the gradient for the base is exponent times that power
    of exponent - 1 (so 0 at a zero base for any exponent but 1), the gradient for the exponent 0 where base <= 0
    (log undefined), as in CNTK."""

    @staticmethod
    def forward(ctx, base, exponent):
        y = _cntk_pow(base, exponent)
        ctx.save_for_backward(base, exponent, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        base, exponent, y = ctx.saved_tensors
        positive = base > 0
        log_base = torch.log(torch.where(positive, base, torch.ones_like(base)))
        g_base = chain(grad, exponent * _cntk_pow(base, exponent - 1))
        g_exponent = torch.where(positive, grad * y * log_base, torch.zeros_like(y))
        return g_base.sum_to_size(base.shape), g_exponent.sum_to_size(exponent.shape)


def _pow(base, exponent):
    return _Pow.apply(base, exponent)


def _log_add_exp(a, b):
    return torch.logaddexp(a, b)


def _as_float(fn):
    def compare(a, b):
        return fn(a, b).to(a.dtype if a.is_floating_point() else b.dtype)
    compare.__name__ = fn.__name__
    return compare


class _ParamReLU(torch.autograd.Function):
    """x where x >= 0, alpha * x elsewhere; the gradient for x is 1 at 0, as in CNTK. One mask kept for backward
    (autograd through torch.where took four passes over the data there)."""

    @staticmethod
    def forward(ctx, alpha, x):
        neg = x < 0
        ctx.save_for_backward(alpha, x, neg)
        return torch.where(neg, alpha * x, x)

    @staticmethod
    def backward(ctx, grad):
        alpha, x, neg = ctx.saved_tensors
        g_x = g_alpha = None
        if ctx.needs_input_grad[1]:
            g_x = torch.where(neg, grad * alpha, grad).sum_to_size(x.shape)
        if ctx.needs_input_grad[0]:
            g_alpha = torch.where(neg, grad * x, torch.zeros((), dtype=grad.dtype, device=grad.device))
            g_alpha = g_alpha.sum_to_size(alpha.shape)
        return g_alpha, g_x


def _param_relu(alpha, x):
    return _ParamReLU.apply(alpha, x)


def _element_and(a, b):
    return ((a > 0) & (b > 0)).to(a.dtype)


def _element_or(a, b):
    return ((a > 0) | (b > 0)).to(a.dtype)


def _element_xor(a, b):
    return ((a > 0) ^ (b > 0)).to(a.dtype)


def _element_select(flag, if_true, if_false):
    return torch.where(flag != 0, if_true, if_false)


def _clip(x, lo, hi):
    # CNTK: the gradient for x is 1 wherever min <= x <= max (bounds included), 0 elsewhere
    # and with the bounds crossed, CNTK's x < min ? min : (x > max ? max : x); the bounds get no gradient
    lo, hi = lo.detach(), hi.detach()
    inside = (x >= lo) & (x <= hi)
    return torch.where(inside, x, torch.where(x < lo, lo, hi))


def _equal(a, b):
    return torch.eq(a, b)


def _not_equal(a, b):
    return torch.ne(a, b)


def _less(a, b):
    return torch.lt(a, b)


def _less_equal(a, b):
    return torch.le(a, b)


def _greater(a, b):
    return torch.gt(a, b)


def _greater_equal(a, b):
    return torch.ge(a, b)


def _element_divide(a, b):
    """CNTK's ElementDivide is ElementTimes(a, Reciprocal(b)): a * (1/b), rounded twice, so x / 255.0 differs from
    torch's correctly rounded a / b in the last bit for many x (CNTK_103's input scaling), and a / 0 is 0 with
    gradients 0, as CNTK's reciprocal of 0 is 0. Composed of torch's mul and reciprocal, its gradients are
    CNTK's bit for bit as well: g * (1/b) for a and -(g * a) * (1/b)^2 for b (checked against CNTK 2.7)."""
    return torch.mul(a, _reciprocal(b))


def _element_max(a, b):
    # CNTK 2.7: where the operands tie, the gradient goes to the right one (torch.maximum shares it)
    return torch.where(a > b, a, b)


def _element_min(a, b):
    return torch.where(a < b, a, b)


_BINARY = {
    "plus": ("Plus", torch.add, ("left", "right")),
    "minus": ("Minus", torch.sub, ("left", "right")),
    "element_times": ("ElementTimes", torch.mul, ("left", "right")),
    "element_divide": ("ElementDivide", _element_divide, ("left", "right")),
    "pow": ("Pow", _pow, ("base", "exponent")),
    "element_max": ("ElementMax", _element_max, ("left", "right")),
    "element_min": ("ElementMin", _element_min, ("left", "right")),
    "log_add_exp": ("LogPlus", _log_add_exp, ("left", "right")),
    "equal": ("Equal", _as_float(_equal), ("left", "right")),
    "not_equal": ("NotEqual", _as_float(_not_equal), ("left", "right")),
    "less": ("Less", _as_float(_less), ("left", "right")),
    "less_equal": ("LessEqual", _as_float(_less_equal), ("left", "right")),
    "greater": ("Greater", _as_float(_greater), ("left", "right")),
    "greater_equal": ("GreaterEqual", _as_float(_greater_equal), ("left", "right")),
    "param_relu": ("PReLU", _param_relu, ("alpha", "x")),
    "element_and": ("ElementAnd", _element_and, ("x", "y")),
    "element_or": ("ElementOr", _element_or, ("x", "y")),
    "element_xor": ("ElementXor", _element_xor, ("x", "y")),
}

# CNTK 2.7 builds these as blocks: the primitive inside that sees the operands together, which refuses operands
# on different dynamic axes (a block's body is typed through placeholders, so no operand is broadcast)
_BLOCK_PRIMITIVE = {"ElementDivide": "ElementTimes", "ElementMax": "Greater", "ElementMin": "Less",
                    "PReLU": "ElementTimes", "ElementAnd": "ElementTimes", "ElementOr": "Plus",
                    "ElementXor": "NotEqual"}
for _public, (_op_name, _fn, _args) in _BINARY.items():
    register_elementwise(_op_name, _fn, algebra=_ALGEBRA.get(_op_name), matching_axes_op=_BLOCK_PRIMITIVE.get(_op_name))
register_elementwise("Select", _element_select, matching_axes_op="Select")
register_elementwise("Clip", _clip, matching_axes_op="Clip")


# CNTK 2.7 converts their numpy operands one by one (float32), not by the widest type among them
_LOGICAL = ("element_and", "element_or", "element_xor")


def _binary(public, a, b, name):
    op_name, _, arg_names = _BINARY[public]
    if public not in _LOGICAL and public != "param_relu":
        refuse_integer_arrays(a, b)
    a, b = sanitize_operands(a, b, names=list(arg_names), numpy_precision=public not in _LOGICAL)
    return make(op_name, [a, b], None, name)


def associative_multi_arg(f):
    """Extends a binary associative op f(left, right, name) to two or more operands, reduced as a balanced tree;
    the name (keyword, or a trailing str argument) goes to the outermost application."""
    @functools.wraps(f)
    def multi(arg1, arg2, *more, **name_kwarg):
        name = name_kwarg.pop("name", "")
        if name_kwarg:
            raise TypeError("%s: unexpected keyword arguments %s" % (f.__name__, sorted(name_kwarg)))
        if not name and more and isinstance(more[-1], str):
            name, more = more[-1], more[:-1]

        def reduce(args, name):
            if len(args) == 1:
                return args[0]
            half = len(args) // 2
            return f(reduce(args[:half], ""), reduce(args[half:], ""), name=name)
        return reduce((arg1, arg2) + tuple(more), name)
    return multi


@associative_multi_arg
def plus(left, right, name=""):
    return _binary("plus", left, right, name)


def minus(left, right, name=""):
    return _binary("minus", left, right, name)


@associative_multi_arg
def element_times(left, right, name=""):
    return _binary("element_times", left, right, name)


def element_divide(left, right, name=""):
    return _binary("element_divide", left, right, name)


def pow(base, exponent, name=""):
    return _binary("pow", base, exponent, name)


@associative_multi_arg
def element_max(left, right, name=""):
    return _binary("element_max", left, right, name)


@associative_multi_arg
def element_min(left, right, name=""):
    return _binary("element_min", left, right, name)


@associative_multi_arg
def log_add_exp(left, right, name=""):
    return _binary("log_add_exp", left, right, name)


def equal(left, right, name=""):
    return _binary("equal", left, right, name)


def not_equal(left, right, name=""):
    return _binary("not_equal", left, right, name)


def less(left, right, name=""):
    return _binary("less", left, right, name)


def less_equal(left, right, name=""):
    return _binary("less_equal", left, right, name)


def greater(left, right, name=""):
    return _binary("greater", left, right, name)


def greater_equal(left, right, name=""):
    return _binary("greater_equal", left, right, name)


def param_relu(alpha, x, name=""):
    return _binary("param_relu", alpha, x, name)


def element_and(x, y, name=""):
    return _binary("element_and", x, y, name)


def element_or(x, y, name=""):
    return _binary("element_or", x, y, name)


def element_xor(x, y, name=""):
    return _binary("element_xor", x, y, name)


def element_select(flag, value_if_true, value_if_false, name=""):
    flag, t, f = sanitize_operands(flag, value_if_true, value_if_false,
                                   names=["flag", "value_if_true", "value_if_false"], numpy_precision=False)
    return make("Select", [flag, t, f], None, name)


def clip(x, min_value, max_value, name=""):
    x, lo, hi = sanitize_operands(x, min_value, max_value, names=["x", "min_value", "max_value"])
    return make("Clip", [x, lo, hi], None, name)


def _associative(op, operands, name, what):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    if not operands:
        raise ValueError("%s: needs at least one operand" % what)
    if len(operands) == 1:  # CNTK: the operand itself
        return alias(operands[0], name=name)
    result = operands[0]
    for k, o in enumerate(operands[1:]):
        result = op(result, o, name=name if k == len(operands) - 2 else "")
    return result


def _summands(operands):
    """The operands of sum/mean; CNTK's block adds them in primitives that refuse different dynamic axes."""
    summands = list(operands[0]) if len(operands) == 1 and isinstance(operands[0], (list, tuple)) else list(operands)
    require_matching_dynamic_axes("Plus", [as_variable(o) for o in summands if is_symbolic(o)])
    return summands


def sum(*operands, **kw_name):
    """Elementwise sum of several operands."""
    return _associative(plus, _summands(operands), kw_name.get("name", ""), "sum")


def mean(*operands, **kw_name):
    """Elementwise mean of several operands."""
    ops_list = _summands(operands)
    total = _associative(plus, ops_list, "", "mean")
    return element_times(total, 1.0 / len(ops_list), name=kw_name.get("name", ""))


def image_scaler(x, scalar, biases, name=""):
    """x * scalar + biases, with one bias per channel (axis 0 of a (C, H, W) image)."""
    (x,) = sanitize_operands(x, names=["x"])
    biases = np.asarray(biases, dtype=x._dtype or np.float32).reshape(-1)
    rank = len(x._shape) if x._shape is not None else 3
    if x._shape is not None and rank and x._shape[0] >= 0 and biases.size not in (1, x._shape[0]):
        raise RuntimeValueError("image_scaler: %d biases for an image with %d channels" % (biases.size, x._shape[0]))
    channel_bias = biases.reshape((biases.size,) + (1,) * max(rank - 1, 0))
    return plus(element_times(x, float(scalar)), channel_bias, name=name)
