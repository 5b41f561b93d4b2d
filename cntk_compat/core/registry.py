"""The op registry: every primitive op is defined once, with its shape rule and its torch computation.

Printing, cloning, lowering (and later saving and exporting) all walk Functions whose primitive nodes
name an OpDef registered here.
"""


class OutputSpec(object):
    """What a shape rule says about one output."""
    __slots__ = ("shape", "dtype", "dynamic_axes", "is_sparse", "needs_gradient")

    def __init__(self, shape, dtype, dynamic_axes, is_sparse=False, needs_gradient=True):
        self.shape = None if shape is None else tuple(int(d) for d in shape)
        self.dtype = dtype
        self.dynamic_axes = dynamic_axes
        self.is_sparse = is_sparse
        self.needs_gradient = needs_gradient


class OpDef(object):
    """One primitive op.

    infer(inputs, attributes) -> [OutputSpec]: the shape rule; it may also complete the inferred
        dimensions of Parameter inputs (CNTK's deferred shape inference).
    compute(*tensors, **kwargs) -> tensor or tuple of tensors: the torch computation on batch-first tensors.
    prepare(node) -> dict: static keyword arguments for compute, computed once when lowering.
    elementwise: the lowering aligns every input to the output's layout first (CNTK broadcasting).
    uses_training: compute receives training=True/False.
    uses_mask: compute receives mask= (B, T) bool for the sequence axis of its first sequence input.
    uses_masks: compute receives masks= a tuple with, per input, its (B, T) bool mask or None.
    uses_random: a random node (CNTK's RngUser): compute receives random= the node's RandomStream
        (core.random_stream), which owns its seed and offset. Each evaluation is a new draw, so inside a
        recurrent loop it runs once per step (it is not hoisted out of the step loop).
    owned_state(node) -> torch.nn.Module: state the node's computation needs beyond tensors (a user function's
        Python object); the lowered module owns it as a submodule and compute receives it as state=, so the
        module needs no process-global registry and survives its Function, deepcopy and pickling.
    makes_mask: compute returns (value, mask): the output lies on a sequence axis made by this op, whose
        (B, T') bool mask the lowering carries from here on (keyed by the axis name).
    algebra: the op's math in the small vocabulary the core's pattern matchers read (recurrent cells run on
        torch's fused kernels are recognized by it): "matmul" (times of a vector by a matrix when output_rank is
        1), "add", "mul", "sigmoid", "tanh", "relu", "slice", "identity"; None for every other op.
    """

    def __init__(self, name, infer, compute, prepare=None, elementwise=False, uses_training=False,
                 uses_mask=False, uses_masks=False, makes_mask=False, uses_random=False,
                 algebra=None, owned_state=None):
        self.name = name
        self.infer = infer
        self.compute = compute
        self.prepare = prepare
        self.elementwise = elementwise
        self.uses_training = uses_training
        self.uses_mask = uses_mask
        self.uses_masks = uses_masks
        self.makes_mask = makes_mask
        self.uses_random = uses_random
        self.algebra = algebra
        self.owned_state = owned_state

    def __repr__(self):
        return "OpDef(%s)" % self.name


_OPS = {}


def register_op(name, infer, compute, **options):
    if name in _OPS:
        raise ValueError("op %r is already registered" % name)
    op = OpDef(name, infer, compute, **options)
    _OPS[name] = op
    return op


def get_op(name):
    try:
        return _OPS[name]
    except KeyError:
        raise KeyError("no op named %r is registered" % name) from None


def registered_ops():
    return dict(_OPS)
