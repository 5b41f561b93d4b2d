"""The op registry: every primitive op is defined once, with its shape rule and its torch computation.

Printing, cloning, lowering (and later saving and exporting) all walk Functions whose primitive nodes
name an OpDef registered here.
"""


class OutputSpec(object):
    """What a shape rule says about one output (name_suffix: appended to the name of a named node to name this
    output, as CNTK 2.7 names top_k's indices '<name>_TopKIndexMask')."""
    __slots__ = ("shape", "dtype", "dynamic_axes", "is_sparse", "needs_gradient", "name_suffix")

    def __init__(self, shape, dtype, dynamic_axes, is_sparse=False, needs_gradient=True, name_suffix=""):
        self.shape = None if shape is None else tuple(int(d) for d in shape)
        self.dtype = dtype
        self.dynamic_axes = dynamic_axes
        self.is_sparse = is_sparse
        self.needs_gradient = needs_gradient
        self.name_suffix = name_suffix


class OpDef(object):
    """One primitive op: its shape rule, its torch computation, and what the core must know about it.

    The core reads these fields and never compares op names; an op with a new behaviour declares it here.

    infer(inputs, attributes) -> [OutputSpec]: the shape rule; it may also complete the inferred
        dimensions of Parameter inputs (CNTK's deferred shape inference). None: each node declares its own
        outputs (node._declared_outputs(), user functions).
    compute(*tensors, **kwargs) -> tensor or tuple of tensors: the torch computation on batch-first tensors.
    prepare(node) -> dict: static keyword arguments for compute, computed once when lowering.
    elementwise: the lowering aligns every input to the output's layout first (CNTK broadcasting).
    infer_partial(inputs, guess) -> [OutputSpec] or None: the shape rule when only some inputs are typed yet
        (inside a recurrent loop being typed, a delayed copy of the result has no type until the result has
        one); guess 1 or 2 says how boldly (see core.reinference).
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
    stepwise: although it sees masks, it acts on each step by itself, so it may sit inside a recurrent loop.
    delay: "past" or "future" for an op that reads its first input time_step steps earlier or later (input 1
        is the initial state): the only ops a recurrent loop may pass through.
    carries_state: compute receives carried= (its node's CarriedState) and slots= (the batch's SequenceSlots)
        when the batch has sequences continuing from the previous call (truncated BPTT).
    outputs_are_inputs: a structural node (Combine) whose outputs are its inputs; nothing is computed.
    save_state(node) -> dict / load_node(state, inputs, name) -> primitive node: for ops whose nodes carry
        more than attributes (user functions), what a saved model stores for a node and how it is rebuilt.
    public_attributes(attributes, node) -> dict: the attributes as CNTK reports them for this op
        (Function.attributes: CNTK's camelCase keys and values), in the order CNTK's constructor inserts them
        (core.native_dictionary turns it into the order CNTK lists them); None reports the stored attributes.
    algebra: the op's math in the small vocabulary the core's pattern matchers read (recurrent cells run on
        torch's fused kernels are recognized by it): "matmul" (times of a vector by a matrix when output_rank is
        1), "add", "sub" (left minus right), "mul", "sigmoid", "tanh", "relu", "slice", "identity"; None for
        every other op.
    sparse_gradient(node, k, output_gradient_is_sparse) -> bool: whether the gradient this op passes to its
        input k is sparse, as CNTK hands it out from grad/backward (a sparse Value: e.g. the rows of the right
        operand of times that a sparse left operand selects); ``output_gradient_is_sparse()`` tells whether the
        gradient arriving at the op's output is. None: dense.
    public_name: the name CNTK 2.7 gives this op (Function.op_name, and the prefix of its nodes' uids) where it
        differs from the registry name: several registry ops are one CNTK primitive (ReduceElements,
        RandomDistribution), or CNTK's name is taken by a Python function (StableSigmoid, OneHotOp). None: the
        registry name.
    uid_prefix: the prefix of its nodes' uids where it is not the public name: 'Block' for the ops CNTK 2.7 builds
        as blocks of primitives (Sequence::Slice, And ...). None: the public name.
    spatial_transform(node) -> (k, [(scale, translate), ...]): for an op that moves its trailing (spatial) axes
        (convolution, pooling, their transposes), how a position p of the output maps to a position
        scale * p + translate of its input k, per trailing axis (crop_automatic composes them). None: the op
        keeps positions where they are.
    native_operand_order: the positions of the inputs in CNTK's C++ operands where they differ from Python's
        (times(x, W) is CNTK's Times(W, x): (1, 0)); CNTK lists a Function's parameters and constants, and a
        block's captured leaves, in that order. None: Python's order.
    reconciles: a binary op that, as CNTK 2.7's binary ops, reads an operand without a sequence axis along the other's
        sequence axis when it is built (through a ReconcileDynamicAxis node, ops._common.make); bound later (a
        placeholder replaced by a sequence beside a batch-only operand), the two are refused (core.reinference).
    refuses_continued: CNTK 2.7's error (a str.format template of the node's {uid} and {op}) for the op meeting a
        sequence that continues from the previous call (truncated BPTT: its start flag False), as the ops CNTK
        computes on whole unpacked sequences or by absolute steps raise it; None: the op takes such sequences.
    compile_notice: called with the node once per network CNTK 2.7 would compile holding it (one per computation of a
        Function's outputs: a CallPlan), before its first computation; what CNTK says on stderr when it compiles one.
    mixed_dtypes: True if the op accepts operands of different precisions (CNTK refuses them for other primitives), or
        accepts(first, other) -> bool, the pairs of dtypes it accepts (first: its first typed operand's).
    """

    def __init__(self, name, infer, compute, prepare=None, elementwise=False, infer_partial=None,
                 uses_training=False, uses_mask=False, uses_masks=False, makes_mask=False, stepwise=False,
                 delay=None, carries_state=False, outputs_are_inputs=False,
                 save_state=None, load_node=None, uses_random=False, algebra=None, owned_state=None,
                 public_attributes=None, sparse_gradient=None, spatial_transform=None, public_name=None,
                 uid_prefix=None,
                 native_operand_order=None, mixed_dtypes=False, reconciles=False, refuses_continued=None,
                 compile_notice=None):
        if delay not in (None, "past", "future"):
            raise ValueError("op %s: delay must be None, 'past' or 'future', got %r" % (name, delay))
        if (save_state is None) != (load_node is None):
            raise ValueError("op %s: save_state and load_node come together" % name)
        self.name = name
        self.infer = infer
        self.compute = compute
        self.prepare = prepare
        self.elementwise = elementwise
        self.infer_partial = infer_partial
        self.uses_training = uses_training
        self.uses_mask = uses_mask
        self.uses_masks = uses_masks
        self.makes_mask = makes_mask
        self.uses_random = uses_random
        self.algebra = algebra
        self.owned_state = owned_state
        self.stepwise = stepwise
        self.delay = delay
        self.carries_state = carries_state
        self.outputs_are_inputs = outputs_are_inputs
        self.save_state = save_state
        self.load_node = load_node
        self.public_attributes = public_attributes
        self.sparse_gradient = sparse_gradient
        self.spatial_transform = spatial_transform
        self.public_name = public_name or name
        self.uid_prefix = uid_prefix
        self.native_operand_order = native_operand_order
        self.mixed_dtypes = mixed_dtypes
        self.reconciles = reconciles
        self.refuses_continued = refuses_continued
        self.compile_notice = compile_notice

    @property
    def sees_whole_sequences(self):
        """Whether compute needs whole sequences (it reads or makes masks and is not stepwise)."""
        return (self.uses_mask or self.uses_masks or self.makes_mask) and not self.stepwise

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


# op_name of a user function -> callback(inputs, name, state) rebuilding it when a model is loaded
_UDF_LOADERS = {}


def register_udf_loader(op_name, callback):
    """Function.register_udf_deserialize_callback: how to rebuild the user functions named op_name."""
    if op_name in _UDF_LOADERS:
        raise ValueError("a deserialize callback for the user function op %r is already registered" % op_name)
    _UDF_LOADERS[op_name] = callback


def udf_loader(op_name):
    """The callback registered for op_name, or None."""
    return _UDF_LOADERS.get(op_name)


def udf_loaders():
    """op_name -> callback, for every registered one."""
    return dict(_UDF_LOADERS)
