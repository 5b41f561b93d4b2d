"""Function: a node or a whole graph of CNTK computation.

A primitive Function applies one registered op (or, for a block, a whole inner composite) to its
input Variables. A composite Function is the graph below some output Variables; every public op
constructor returns a composite whose root_function is the primitive it made. Functions are immutable
apart from their Parameters' values; clone() rebuilds a graph with substitutions, re-running the shape
rules so that inferred dimensions resolve.
"""
import enum
import inspect
import warnings
import weakref

import numpy as np

from ..default_options import default_options, get_global_option
from . import graph_version
from .axis import Axis, dynamic_axes_checks_deferred
from .dtypes import check_operand_dtypes, promote
from .graph import _as_found, find_all_with_name as _find_all, find_by_name as _find_one, node_inputs_native_order, walk
from .handles import GraphHandle
from .hooks import hook
from .lowering import lower
from .native_dictionary import native_order
from .native_errors import announced
from .operators import TensorOpsMixin
from .registry import OpDef, get_op, register_op, register_udf_loader
from .block_arguments import block_argument_of, note_block_arguments
from .reinference import infer_in_place, substitute_in_place
from .uid import new_uid
from .variable_type import VariableType, input_from_type, sanitize_type, variable_from_annotation
from .variables import (Constant, Parameter, Variable, make_output, new_placeholder, typed_placeholder)


class CloneMethod(enum.Enum):
    clone = "clone"
    share = "share"
    freeze = "freeze"


_RENAMING = [False]  # cntk_py.allow_renaming_functions() sets it
# Function -> (graph version, its outputs, {what: value}): what its graph gives (leaves, arguments), asked for on
# every call
_DERIVED = weakref.WeakKeyDictionary()


def _walk_leaves(f):
    return walk(f._outputs).leaves


def _argument_leaves(f):
    return tuple(v for v in f._leaves() if v.is_input or v.is_placeholder)


def _native_leaves(f):
    return walk(f._outputs, node_inputs_native_order).leaves


def allow_renaming_functions():
    _RENAMING[0] = True


def output_variables(outputs, argument="outputs"):
    """The Variables named by an ``outputs=`` argument: a Function (all its outputs), a Variable, or a list of
    Variables and single-output Functions."""
    if isinstance(outputs, Function):
        return list(outputs.outputs)
    if isinstance(outputs, Variable):
        return [outputs]
    if not isinstance(outputs, (list, tuple, set, frozenset)):
        raise TypeError("%s: expected a Variable, a Function or a list of them, got %s"
                        % (argument, type(outputs).__name__))
    for o in outputs:
        if not isinstance(o, (Variable, Function)):
            raise TypeError("%s: each entry must be a Variable or a Function, got %s" % (argument, type(o).__name__))
    return [as_variable(o, argument) for o in outputs]


def keyed_as_requested(outputs, values):
    """The values of an ``outputs=`` request (``values``: {output Variable: value}, in output_variables' order)
    keyed as CNTK 2.7 keys them: by the objects requested, so that a single-output Function given is its value's
    key (``d[ce]`` finds it, ``d[ce.output]`` does not, as in CNTK); a Function given alone with several
    outputs is keyed by its output Variables."""
    if isinstance(outputs, Function):
        keys = outputs.outputs if len(outputs.outputs) > 1 else [outputs]
    elif isinstance(outputs, Variable):
        keys = [outputs]
    else:
        keys = list(outputs)
    return {k: values[v] for k, v in zip(keys, output_variables(outputs))}


def as_variable(x, argument="operand"):
    if isinstance(x, Variable):
        return x
    if isinstance(x, Function):
        outs = x.outputs
        if len(outs) != 1:
            raise ValueError("%s: a Function with %d outputs cannot be used as a single Variable; pick one of "
                             ".outputs" % (argument, len(outs)))
        return outs[0]
    raise TypeError("%s: expected a Variable or Function, got %s" % (argument, type(x).__name__))


_TEMPORARIES = weakref.WeakKeyDictionary()  # Function -> weak references to the Values its last call returned


def _temporaries(function, result, as_numpy):
    """As in CNTK: the Values (as_numpy=False) that eval, forward or grad of a Function return stay valid until
    its next such call, which erases them (reading one then raises RuntimeError; Value.is_valid turns False)."""
    if as_numpy and function not in _TEMPORARIES:  # numpy results, and no earlier Values to erase: the common call
        return result
    from .value import Value
    found = []

    def collect(r, depth=0):
        if isinstance(r, Value):
            found.append(r)
        elif depth < 2 and isinstance(r, dict):
            for v in r.values():
                collect(v, depth + 1)
        elif depth < 2 and isinstance(r, (tuple, list)):
            for v in r:
                collect(v, depth + 1)
    collect(result)
    for ref in _TEMPORARIES.pop(function, ()):
        old = ref()
        if old is not None and all(old is not v for v in found):
            old._expired = True
    if found:
        _TEMPORARIES[function] = [weakref.ref(v) for v in found]
    return result


def _public_axes(value):
    """An attribute value as CNTK's Function.attributes reports it: an axis as the tuple (ordering, kind, index or
    name), e.g. ('ordered', 'static', 1) or ('unordered', 'dynamic', 'defaultBatchAxis'); a list of axes as a list
    of such tuples."""
    if isinstance(value, Axis):
        if value._index is not None:
            return ('ordered', 'static', value._index)
        return ('ordered' if value.is_ordered else 'unordered', 'dynamic', value.name)
    if isinstance(value, list) and value and all(isinstance(v, Axis) for v in value):
        return [_public_axes(v) for v in value]
    return value


def _infer_unknown_holder_dtypes(inputs, specs):
    """As CNTK: a Parameter or Constant made with DataType_Unknown takes the element type of the first op that
    uses it (its output's)."""
    dtype = next((s.dtype for s in specs if s.dtype is not None), None)
    if dtype is None:
        return
    for v in inputs:
        if v._dtype is None and (v.is_parameter or v.is_constant) and getattr(v, "_tensor", None) is None:
            v._dtype = np.dtype(dtype)


class Function(TensorOpsMixin, GraphHandle):
    """A CNTK Function (see module docstring). ``Function(python_callable)`` and ``@Function`` turn a Python
    function of Variables into a Function whose arguments carry the Python parameter names."""

    # Every field a Function has (a subclass, such as a UserFunction, may add its own). Each node sets them all
    # when it is made (_set_primitive, _composite); other core modules only fill the ones declared for them.
    __slots__ = (
        "_is_composite", "_uid", "_outputs",
        "_root",                # a composite's root primitive; a primitive's is itself
        "_arg_order",           # a composite's argument order (Python parameter order), or None
        "_op", "_op_name", "_inputs", "_attributes", "_name",     # a primitive: its OpDef and how it is applied
        "_block_root", "_block_arguments",                         # a block: its inner composite and bindings
        "_custom_attributes",   # Function.custom_attributes (None until set)
        "_carried_state",       # core.carried_state: a delay's truncated-BPTT state (None until needed)
        "_random_stream",       # core.random_stream: a random node's stream (None until needed)
        "__weakref__",
        "__dict__",             # only for user code: CNTK's Functions take any attribute (a test stubs f.eval)
    )

    _placeholders_under_construction = set()

    def __new__(cls, *args, **kwargs):
        if args and callable(args[0]) and not isinstance(args[0], (Function, Variable)):
            return Function._from_python(*args, **kwargs)
        return super(Function, cls).__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _primitive(op, inputs, attributes=None, name="", display_name=None):
        """A primitive node applying ``op`` (an OpDef, or the name of a registered op) to ``inputs``."""
        op = op if isinstance(op, OpDef) else get_op(op)
        inputs = [as_variable(i, "input %d of %s" % (k, op.name)) for k, i in enumerate(inputs)]
        attributes = dict(attributes or {})
        node = Function.__new__(Function)
        node._set_primitive(op, display_name or op.public_name, inputs, attributes, name, op.uid_prefix)
        if op.outputs_are_inputs:
            node._outputs = list(inputs)
        else:
            check_operand_dtypes(node._op_name, node_inputs_native_order(node), op.mixed_dtypes)
            specs = op.infer(inputs, attributes)
            _infer_unknown_holder_dtypes(inputs, specs)
            grad = any(i._needs_gradient or i.is_output or i.is_placeholder for i in inputs)
            node._outputs = [make_output(s.shape, s.dtype, s.is_sparse, s.dynamic_axes, name and name + s.name_suffix,
                                         node, k,
                                         needs_gradient=grad and s.needs_gradient) for k, s in enumerate(specs)]
            if any(i._guessed_type for i in inputs):   # computed from a guessed type (core/reinference.py)
                for o in node._outputs:
                    o._guessed_type = o._shape is not None
        return node

    def _clone_primitive(self, new_inputs):
        """This primitive applied to new inputs (user-defined functions rebuild themselves)."""
        return Function._primitive(self._op, new_inputs, self._attributes, self._name, self._op_name)

    def _set_primitive(self, op, op_name, inputs, attributes, name, uid_kind=None):
        self._is_composite = False
        self._op = op
        self._op_name = op_name
        self._inputs = inputs
        self._attributes = attributes
        self._name = name
        self._uid = new_uid(uid_kind or op_name)
        self._block_root = None
        self._block_arguments = None
        self._root = self
        self._outputs = []
        self._arg_order = None
        self._custom_attributes = None
        self._carried_state = None
        self._random_stream = None

    @staticmethod
    def _composite(outputs, arg_order=None, name=None, same_as=None, combine_root=False):
        """A composite Function over the given output Variables (``same_as``: a composite whose root, uid and name
        the new one takes, with its own argument order; ``combine_root``: its root a new Combine node even where
        the outputs are all those of one node). ``name`` names the composite (and a new Combine root); without one
        the composite is named as its root is now. As in CNTK, the two names are separate from then on."""
        outputs = [as_variable(o) for o in outputs]
        owners = {id(o.owner) for o in outputs if o.is_output}
        root = None if same_as is None else same_as._root
        if root is None and len(owners) == 1 and all(o.is_output for o in outputs) and not combine_root:
            owner = outputs[0].owner
            if list(owner._outputs) == outputs:
                root = owner
        if root is None:
            root = Function._primitive(_COMBINE_OP, outputs, name=name or "")
        f = Function.__new__(Function)
        f._is_composite = True
        f._root = root
        f._outputs = list(root._outputs)
        f._uid = same_as._uid if same_as is not None else new_uid("CompositeFunction")
        f._arg_order = list(arg_order) if arg_order else None
        f._op = f._op_name = f._inputs = f._attributes = None
        f._name = name if name is not None else same_as._name if same_as is not None else root._name
        f._block_root = f._block_arguments = f._custom_attributes = None
        f._carried_state = f._random_stream = None
        return f

    @staticmethod
    def _combine_vars(variables, name=""):
        """combine(): one Function over the variables, whose root is a Combine node (as in CNTK, also of a single
        Function's outputs)."""
        return Function._composite(variables, name=name, combine_root=True)

    @staticmethod
    def _from_python(f, make_block=False, op_name=None, name=None):
        """@Function: call the Python function on placeholders (or typed inputs, from annotations)."""
        params = inspect.signature(f).parameters
        # arguments with defaults keep them (so that e.g. plus(left, right, name='') is a binary Function)
        arg_names = [p for p, v in params.items()
                     if v.kind in (v.POSITIONAL_ONLY, v.POSITIONAL_OR_KEYWORD) and v.default is v.empty]
        args = [variable_from_annotation(n, params[n].annotation) for n in arg_names]

        def invoke(operands):
            Function._placeholders_under_construction.update(args)
            try:
                # as in CNTK, a Function's Python body may not create Parameters (layers create them up front)
                with default_options(pure=not make_block):
                    out = f(*operands)
            finally:
                Function._placeholders_under_construction.difference_update(args)
            if out is None:
                raise TypeError("CNTK Function '%s' must return a value" % getattr(f, "__name__", f))
            if isinstance(out, (tuple, list)):
                outs = list(out)
            else:  # a Function with several outputs returns all of them
                outs = out.outputs if isinstance(out, Function) else [out]
            out_vars = []
            for o in outs:
                v = as_variable(o, "return value of '%s'" % getattr(f, "__name__", f))
                if v in out_vars:
                    v = hook("alias")(v).output
                out_vars.append(v)
            # as CNTK's @Function, a body that returns one composite Function (without repeated outputs) gives that
            # Function itself: no further Combine, and no more uids (CNTK's printed uids count every object made)
            same = out if isinstance(out, Function) and out._is_composite and out_vars == list(out.outputs) else None
            return Function._composite(out_vars, arg_order=args, same_as=same)

        result = invoke(args)
        if not make_block:
            # as CNTK: where the graph's arguments come out in another order than the Python parameters, the body is
            # called again on the outputs of a 'Tuple' block binding the parameters in their order, so that every
            # Function later built on the result (its outputs alone, too) lists them in that order
            building = Function._placeholders_under_construction
            found = [a for a in result._argument_leaves() if a not in building]
            if set(found) == set(args) and found != args:
                inner = [new_placeholder(name=a.name) for a in args]
                result = invoke(as_block(Function._combine_vars(inner), list(zip(inner, args)), "Tuple").outputs)
        if make_block:
            return as_block(result, [(a, new_placeholder(name=a.name)) for a in args], op_name or f.__name__,
                            name or "")
        used = set(result._leaf_list())
        unused = [a.name for a in args if a not in used]
        if unused:
            raise TypeError("CNTK Function '%s' has %d unused arguments (%s), which is currently not supported"
                            % (getattr(f, "__name__", f), len(unused), ", ".join(unused)))
        return result

    # ------------------------------------------------------------------ structure
    @property
    def name(self):
        """A primitive's name, or a composite's own: an op constructor names both alike, but renaming one of them
        later leaves the other as it is (as in CNTK, where graph searches see only the primitives' names)."""
        return self._name

    @name.setter
    def name(self, value):
        if not isinstance(value, str):
            raise TypeError("name: expected a str, got %r" % (value,))
        if self._name and not _RENAMING[0]:  # CNTK's native refusal (cntk_py.allow_renaming_functions() lifts it)
            raise announced(ValueError, "Illegal to set name of a Function '%r' with an existing name '%s'"
                            % (self, self._name))
        self._name = value

    @property
    def uid(self):
        return self._uid

    @property
    def op_name(self):
        return "CompositeFunctionOpName" if self._is_composite else self._op_name

    @property
    def is_composite(self):
        return self._is_composite

    @property
    def is_primitive(self):
        return not self._is_composite

    @property
    def is_block(self):
        return (not self._is_composite) and self._block_root is not None

    @property
    def block_root(self):
        """As CNTK's: the root Function of the block's body (its last primitive, or a Combine of several)."""
        if not self.is_block:
            raise ValueError("Function::BlockRoot() called for a Function '%r' which is not a block." % self)
        return self._block_root._root

    @property
    def block_arguments_mapping(self):
        if not self.is_block:
            raise ValueError("Function::BlockArgumentsMapping() called for a Function '%r' which is not a block."
                             % self)
        return list(self._block_arguments)

    @property
    def root_function(self):
        """The primitive the Function's outputs come from; a user function as CNTK hands it out (a Function whose
        op_name is 'UserFunction', not the Python object, see ops/_user_function._FoundUserFunction)."""
        return _as_found(self._root)

    def __eq__(self, other):
        """As in CNTK 2.7: a Function with one output equals that output Variable (either way round: Python asks
        the Function when a Variable is compared with it, so ``f.output in [f]`` holds); any other pair is equal
        only when it is the same object. The hash stays the object's: a dict keyed by the Variable does not find
        the Function, nor in CNTK."""
        if isinstance(other, Variable) and len(self._outputs) == 1:
            return self._outputs[0] is other
        return NotImplemented

    __hash__ = object.__hash__

    @property
    def outputs(self):
        return tuple(self._outputs)

    @property
    def output(self):
        if len(self._outputs) != 1:
            # CNTK 2.7's native library refuses (and announces) it
            raise announced(RuntimeError, "A Function instance '%r' with more than one output cannot be implicitly "
                            "converted to a Variable." % (self,))
        return self._outputs[0]

    @property
    def attributes(self):
        """The root primitive's attributes as CNTK reports them (CNTK's names: 'newShape', 'endIndex', ...)."""
        if self._is_composite:
            return {}
        root = self._root
        op = root._op
        # listed as CNTK lists its native Dictionary, from the order in which CNTK inserts them (public_attributes')
        public = root._attributes if op.public_attributes is None else \
            op.public_attributes(dict(root._attributes), root)
        return {k: _public_axes(public[k]) for k in native_order(public)}

    def set_attribute(self, name, value):
        """Changes 'dropoutRate' (of a dropout) or 'rngSeed' (of a random op) of the root primitive; the next
        evaluation uses the new value (a new seed restarts the stream: its rngOffset goes back to 0)."""
        attrs = self._root._attributes
        if name not in ("dropoutRate", "rngSeed") or name not in attrs:
            # CNTK 2.7's native refusals (announced); settable: 'dropoutRate' of dropout, 'rngSeed' of random ops
            if name == "rngSeed":
                message = "Cannot set random seed on '%s' function." % self._root._op_name
            elif name == "dropoutRate":
                message = "Cannot set dropout rate on '%s' function." % self._root._op_name
            else:
                message = "SetAttribute: '%s' is not supported (this attribute cannot be updated)." % (name,)
            raise announced(RuntimeError, message)
        if name == "dropoutRate":
            attrs[name] = float(value)
        else:
            attrs[name] = int(value)
            attrs["rngOffset"] = 0

    def _leaf_list(self):
        """All leaf Variables below the outputs, depth first and left to right (blocks are not entered; a block
        lists its captured parameters before its arguments), which is CNTK's order."""
        return list(self._leaves())

    def _derived(self, compute):
        """``compute(self)``, kept for this Function until the graph or its outputs change."""
        version = graph_version.current()
        cached = _DERIVED.get(self)
        if cached is None or cached[0] != version or cached[1] != self._outputs:
            cached = _DERIVED[self] = (version, list(self._outputs), {})
        values = cached[2]
        value = values.get(compute)
        if value is None:
            value = values[compute] = compute(self)
        return value

    def _leaves(self):
        """The leaves below the outputs, depth first and left to right (see _leaf_list)."""
        return self._derived(_walk_leaves)

    def _argument_leaves(self):
        """The leaves that are arguments (inputs and placeholders), in the order of _leaves."""
        return self._derived(_argument_leaves)

    def _native_leaves(self):
        """The leaves in CNTK's C++ operand order (see graph.node_inputs_native_order): the order of CNTK's
        parameters and constants lists."""
        return self._derived(_native_leaves)

    @property
    def inputs(self):
        if not self._is_composite:
            return tuple(self._inputs)
        return tuple(self._leaves())

    @property
    def arguments(self):
        if not self._is_composite:      # a primitive or block Function (an owner): its own inputs that are not
            return tuple(v for v in self._inputs if not (v.is_parameter or v.is_constant))  # parameters/constants
        if not get_global_option("python_operand_order", True):  # CNTK's C++ operand order, as before 2.2
            return tuple(v for v in self._native_leaves() if v.is_input or v.is_placeholder)
        args = self._argument_leaves()
        order = self._arg_order
        if order:
            first = [a for a in order if a in args]
            args = first + [a for a in args if a not in first]
        return tuple(args)

    @property
    def type(self):
        """CNTK 2.7's: its output's ``type`` (which a Variable does not have: an AttributeError), so a Function
        with several outputs raises the RuntimeError of ``output``."""
        return self.output.type

    @property
    def signature(self):
        building = Function._placeholders_under_construction
        return tuple(a for a in self.arguments if a not in building) if building else tuple(self.arguments)

    @property
    def parameters(self):
        return tuple(v for v in self._own_or_native_leaves() if v.is_parameter)

    @property
    def constants(self):
        return tuple(v for v in self._own_or_native_leaves() if v.is_constant)

    def _own_or_native_leaves(self):
        """What parameters and constants are taken from: a composite's leaves; for a primitive or block Function
        (an output's owner, a root_function), as in CNTK 2.7, only its own inputs (a Dense block's W and b, not
        the parameters of the layers below it)."""
        if self._is_composite:
            return self._native_leaves()
        return node_inputs_native_order(self)

    @property
    def placeholders(self):
        """A composite's placeholder leaves; a primitive or block Function's own placeholder inputs (CNTK 2.7)."""
        leaves = self._leaves() if self._is_composite else node_inputs_native_order(self)
        return tuple(v for v in leaves if v.is_placeholder)

    def find_all_with_name(self, name, depth=0):
        return _find_all(self, name, depth)

    def find_by_name(self, name, depth=0):
        return _find_one(self, name, depth)

    def __getattr__(self, name):
        if name.startswith("_") or name in ("outputs", "output", "this"):
            raise AttributeError("neither Function nor its output variable has '%s'" % name)   # CNTK's words
        if not hasattr(Variable, name):
            root = self.block_root if self.is_block else self
            hit = _find_one(root, name, depth=1)
            if hit is not None:
                return hit
        # then the output's attribute, with CNTK 2.7's errors (a single output's is what its SWIG Variable says)
        outputs = self._outputs
        if len(outputs) != 1:
            raise AttributeError("Function does not have '%s' and it cannot be looked up in its outputs because "
                                 "it does not have exactly one" % name)
        if hasattr(outputs[0], name):
            return getattr(outputs[0], name)
        raise AttributeError("'Variable' object has no attribute '%s'" % name)

    def __str__(self):
        op_name = self.op_name
        if self._is_composite:
            # CNTK 2.7 names a composite after its root when their inputs agree pairwise (a combine too); where
            # @Function had to put the arguments in the Python order, CNTK's root reads them through a block
            root = self.root_function
            if not self._reordered_arguments() and all(a.uid == b.uid for a, b in zip(self.inputs, root.inputs)):
                op_name = root.op_name
            else:
                op_name = "Composite"

        def spec(v, is_output=False):
            prefix = v.name + ": " if (not is_output and v.name) else ""
            return prefix + str(v._type)

        outs = self.outputs
        out_sig = ("Tuple[" + ", ".join(spec(o, True) for o in outs) + "]") if len(outs) > 1 else spec(outs[0], True)
        f_name = (self.name + ": ") if self.name else ""
        # a composite shows its arguments; a primitive or block (as graph searches find them) its own operands
        # other than parameters and constants, as CNTK's do
        args = self.signature if self._is_composite else [block_argument_of(v) for v in self._operands()]
        return f_name + op_name + "(" + ", ".join(spec(a) for a in args) + ") -> " + out_sig

    def _reordered_arguments(self):
        """Whether the argument order (@Function's Python order) differs from the order of the graph's leaves."""
        if not self._arg_order:
            return False
        leaves = self._argument_leaves()
        return [a for a in self._arg_order if a in leaves] != [a for a in leaves if a in self._arg_order]

    def _operands(self):
        """The inputs of a primitive or block that are neither parameters nor constants, each once."""
        args, seen = [], set()
        for v in self.inputs:
            if v.is_parameter or v.is_constant or v.uid in seen:
                continue
            seen.add(v.uid)
            args.append(v)
        return args

    def __repr__(self):
        """CNTK's ``Function::AsString``: ``Composite(<root op>): <arguments> -> <outputs>`` for a composite,
        ``<op>: <inputs that are not parameters or constants> -> <outputs>`` for a primitive or block; the
        variables as they print (``Input('x', [#], [3])``). ``str()`` gives the signature form instead."""
        if self._is_composite:
            head, args = "Composite(%s): " % self.root_function.op_name, self.arguments
        else:
            head, args = "%s: " % self.op_name, self._operands()
        return head + ", ".join(repr(a) for a in args) + " -> " + ", ".join(repr(o) for o in self.outputs)

    # ------------------------------------------------------------------ composing
    def argument_map(self, *args, **kwargs):
        params = self.signature
        if len(args) + len(kwargs) != len(params):
            raise TypeError("CNTK Function expected %d arguments, got %d" % (len(params), len(args) + len(kwargs)))
        mapping = dict(zip(params, args))
        by_name = {p.name: p for p in params} if kwargs else None
        for k, v in kwargs.items():
            if k not in by_name:
                raise TypeError("Function has no argument named %r (arguments: %s)"
                                % (k, ", ".join(p.name for p in params)))
            if by_name[k] in mapping:
                raise TypeError("argument %r given twice" % k)
            mapping[by_name[k]] = v
        return mapping

    def __call__(self, *args, **kwargs):
        arg_map = self.argument_map(*args, **kwargs)
        if any(isinstance(a, (Function, Variable)) for a in arg_map.values()):
            for a in self.arguments:
                arg_map.setdefault(a, a)
            _check_argument_types(arg_map)
            return self.clone(CloneMethod.share, arg_map)
        outputs = self.outputs
        result = self.eval(arg_map)
        if len(outputs) > 1:
            return tuple(result[o] for o in outputs)
        return result

    def __rshift__(self, other):
        """f >> g is g applied to f's outputs, as CNTK composes: f's free arguments stay the result's (so f may
        have several, or placeholders). A tuple g applies its items to f's outputs (item by item when f has
        several, else each to the one); a single g gets all of f's outputs as its arguments."""
        outputs = self.outputs
        if isinstance(other, tuple):
            results = [g(outputs[i if len(outputs) > 1 else 0]) for i, g in enumerate(other)]
            return Function._combine_vars([out for r in results for out in _outputs_of(r)])
        if len(outputs) > 1:
            return other(*outputs)
        return other(self)

    def __lshift__(self, other):
        return self(other)

    def clone(self, method, substitutions=None):
        try:
            method = CloneMethod(method.value if isinstance(method, CloneMethod) else method)
        except ValueError:
            raise ValueError("clone: method must be a CloneMethod or one of 'clone', 'share', 'freeze', got %r"
                             % (method,)) from None
        if substitutions is not None and not isinstance(substitutions, dict):
            raise TypeError("clone: substitutions must be a dict, got %s" % type(substitutions).__name__)
        subs = {}
        for k, v in (substitutions or {}).items():
            if k is None or v is None:
                raise AttributeError("clone: cannot replace node %s with node %s; neither may be None" % (k, v))
            subs[as_variable(k, "substitution key")] = as_variable(v, "substitution value")
        memo = _CloneMemo()
        new_outputs = _clone_outputs(self._outputs, method, subs, memo)
        new_outputs = _clone_substitutes(new_outputs, subs, memo)
        # a Python parameter order (@Function) carries over to the arguments replacing its own; without one, the
        # clone's arguments are those of its graph in CNTK's order (an argument replaced by a Function's output
        # gives its place to that Function's arguments)
        new_order = []
        for a in self._arg_order or ():
            n = memo.get(a.uid, subs.get(a, a))
            taking_its_place = [n] if n.is_input or n.is_placeholder else \
                [v for v in walk([n]).leaves if v.is_input or v.is_placeholder]
            new_order.extend(v for v in taking_its_place if v not in new_order)
        if not self._is_composite:  # as in CNTK, a primitive's clone is an unnamed Combine of its outputs' copies
            return Function._composite(new_outputs, arg_order=new_order, name="", combine_root=True)
        # a Combine root stays one (CNTK clones that node too), also over the outputs of a single node
        keeps_combine = self._root._op is not None and self._root._op.outputs_are_inputs
        clone = Function._composite(new_outputs, arg_order=new_order, combine_root=keeps_combine,
                                    name=self._root._name if keeps_combine else None)
        clone._name = self._name
        return clone

    def replace_placeholders(self, substitutions):
        """In place, as CNTK does: every use of each placeholder below this Function now reads its substitute.

        The substitute may itself depend on the placeholder (through past_value/future_value), which closes a
        recurrent loop. Shapes are inferred again over the whole graph. Returns self."""
        if not isinstance(substitutions, dict):
            raise TypeError("Variable substitution map must be a dictionary")   # CNTK 2.7's words
        subs = {}
        for k, v in substitutions.items():
            k = as_variable(k, "replace_placeholders key")
            if not k.is_placeholder:
                raise TypeError("replace_placeholders: %r is not a placeholder" % (k,))
            subs[k] = as_variable(v, "substitute for placeholder '%s'" % (k.name or k.uid))
        if subs:
            present = {v.uid for v in self._leaves() if v.is_placeholder}
            for k in subs:
                if k.uid not in present:
                    raise ValueError("Placeholder '%r' specified for replacement not found in the Function '%r'"
                                     % (k, self))
        substitute_in_place(self._outputs, subs)
        self._outputs = [subs.get(o, o) for o in self._outputs]
        if self._root is not self:
            self._root._outputs = [subs.get(o, o) for o in self._root._outputs]
        order = self._arg_order
        if order:
            self._arg_order = [subs.get(a, a) for a in order if subs.get(a, a).is_input or
                               subs.get(a, a).is_placeholder]
        infer_in_place(self._outputs)
        return self

    def replace_placeholder(self, substitution):
        phs = self.placeholders
        if len(phs) != 1:
            raise ValueError("replace_placeholder: the Function has %d placeholders, expected exactly one"
                             % len(phs))
        return self.replace_placeholders({phs[0]: substitution})

    def update_signature(self, *arg_types, **kwarg_types):
        """Types the Function's arguments in place (an int or tuple of ints: a shape; a type such as
        Tensor[3]; None: leave that argument as it is). Returns None, as CNTK's."""
        subs = {}
        for param, t in self.argument_map(*arg_types, **kwarg_types).items():
            if t is None:
                continue
            if not isinstance(sanitize_type(t), VariableType):
                raise TypeError("update_signature() expects arguments of type int, tuple of int, or Type.Variable")
            subs[param] = input_from_type(t, param.name)
        _check_argument_types(subs)
        self.replace_placeholders(subs)

    def declare_args(self, *arg_types):
        """The beta-era form of update_signature: one shape or Variable per placeholder."""
        warnings.warn("This will be removed in future versions. Please use update_signature(...) instead",
                      DeprecationWarning)
        placeholders = self.placeholders
        if len(arg_types) != len(placeholders):
            raise TypeError("CNTK Function.declare_args() expected %d arguments, got %d"
                            % (len(placeholders), len(arg_types)))
        subs = {p: t if isinstance(t, Variable) else input_from_type(t) for p, t in zip(placeholders, arg_types)}
        _check_argument_types(subs)
        self.replace_placeholders(subs)

    # ------------------------------------------------------------------ computing
    def eval(self, arguments=None, outputs=None, device=None, as_numpy=True):
        outs = self.outputs if outputs is None else output_variables(outputs)
        result = _temporaries(self, hook("evaluate")(self, arguments, outs, device=device, as_numpy=as_numpy),
                              as_numpy)
        if len(outs) == 1:
            return result[outs[0]]
        keyed = result if outputs is None else keyed_as_requested(outputs, result)
        if len(keyed) == 1:   # one Variable listed twice: CNTK 2.7 hands a one-entry map out as its value
            return next(iter(keyed.values()))
        return keyed

    def forward(self, arguments, outputs=None, keep_for_backward=None, device=None, as_numpy=True):
        return _temporaries(self, hook("forward")(self, arguments, outputs, keep_for_backward, device, as_numpy),
                            as_numpy)

    def backward(self, state, root_gradients, variables, as_numpy=True):
        return hook("backward")(state, root_gradients, variables, as_numpy)

    def grad(self, at, wrt=None, outputs=None, device=None, as_numpy=True, grad_root=None):
        return _temporaries(self, hook("grad")(self, at, wrt, outputs, device, as_numpy, grad_root), as_numpy)

    def train(self, minibatch_source, minibatch_size=32, streams=None, model_inputs_to_streams=None,
              parameter_learners=[], callbacks=[], progress_frequency=None, max_epochs=None, epoch_size=None,
              max_samples=None):
        """Trains this criterion Function (loss, or (loss, metric)) on a reader or a tuple of numpy/scipy arrays
        (in argument order); returns a record with ``epoch_summaries`` and ``updates`` (each .loss, .metric,
        .samples) and, with a TestConfig callback, ``test_summary``. See cntk_compat.train.function_training."""
        return hook("train")(self, minibatch_source, minibatch_size, streams, model_inputs_to_streams,
                             parameter_learners, callbacks, progress_frequency, max_epochs, epoch_size, max_samples)

    def test(self, minibatch_source, minibatch_size=32, streams=None, model_inputs_to_streams=None, callbacks=None):
        """Averages this criterion's metric (its loss if it has one output) over a reader or a tuple of
        numpy/scipy arrays; returns a record with ``.metric`` and ``.samples``."""
        return hook("test")(self, minibatch_source, minibatch_size, streams, model_inputs_to_streams, callbacks)

    # ------------------------------------------------------------------ saving, loading, extras
    @property
    def custom_attributes(self):
        """A dict of user attributes kept on the root primitive (and saved with the model)."""
        root = self._root
        if root._custom_attributes is None:
            root._custom_attributes = {}
        return root._custom_attributes

    @custom_attributes.setter
    def custom_attributes(self, values):
        if values is not None and not isinstance(values, dict):
            raise TypeError("custom_attributes: expected a dict, got %s" % type(values).__name__)
        # a cntk_py.DictionaryValue (cntk._to_cntk_dict_value) is kept as its Python value, as CNTK reads it back
        self._root._custom_attributes = {k: v._python_value() if hasattr(v, "_python_value") else v
                                         for k, v in (values or {}).items()}

    def print_node_timing(self):
        """Writes to stderr each node's average forward/backward time and counts, gathered while
        ``cntk.debugging.set_node_timing(True)`` was on (see core.node_timing); nothing before the Function's
        first evaluation (CNTK prints only a compiled network's nodes)."""
        from . import node_timing
        if hook("has_run")(self.outputs):
            node_timing.print_table([self])

    def current_version(self):
        """The version of the Function record CNTK 2.7 writes in a model file (3), as its ``current_version``."""
        return 3

    def save(self, filename, format=None, use_external_files_to_store_parameters=False):
        """Saves the graph and its Parameter/Constant values to ``filename`` (see core.serialization). With
        ``format=ModelFormat.ONNX`` and ``use_external_files_to_store_parameters=True`` each tensor goes to its
        own file beside the model (``<filename>.tensor<k>``, ONNX external data); the CNTK format keeps them in
        the model file and warns, as CNTK 2.7 does."""
        hook("save")(self, filename, format, use_external_files_to_store_parameters)

    def restore(self, filename):
        """Loads the Parameter and Constant values saved in ``filename`` into this Function, in place."""
        hook("restore")(self, filename)

    @staticmethod
    def load(model, device=None, format=None):
        """The Function saved by save(): ``model`` is a file name or a bytes buffer."""
        return hook("load")(model, device, format)

    @staticmethod
    def register_udf_deserialize_callback(op_name, callback):
        """When loading, user functions with this op_name are built by callback(inputs, name, state)."""
        register_udf_loader(op_name, callback)

    @staticmethod
    def with_signature(*args, **kwargs):
        """Decorator: @Function with the argument types given (as @Signature(...) would)."""
        def decorator(f):
            return Function(hook("signature")(*args, **kwargs)(f))
        return decorator

    def torch_module(self, arguments=None, training=False):
        """The cached torch.nn.Module this Function lowers to (for plain-PyTorch users)."""
        return lower(self.outputs, list(arguments) if arguments is not None else list(self.arguments),
                     training)


class _CloneMemo(dict):
    """uid -> cloned Variable, plus the stand-in placeholders handed out for the outputs that a loop reads
    before their node is cloned (uid -> placeholder), which closing the loops replaces."""

    def __init__(self):
        super(_CloneMemo, self).__init__()
        self.stand_ins = {}
        self.substituted = set()      # uids of the substituted variables the clone met


def _clone_dependencies(node):
    """What cloning a node needs cloned first: its inputs (a block: its arguments; its body is cloned with it)."""
    if node._block_root is not None:
        return [outer for _, outer in node._block_arguments]
    return node._inputs


def _clone_outputs(outputs, method, subs, memo):
    """Clone the graph below outputs, nodes after their inputs (core.graph.walk: no recursion on deep graphs);
    a loop's back reference is read through a stand-in placeholder, and the loops are then closed in place."""
    memo = memo if isinstance(memo, _CloneMemo) else _CloneMemo()
    graph = walk(outputs, _clone_dependencies, stop=lambda v: v in subs or v.uid in memo)
    for leaf in graph.leaves:
        memo[leaf.uid] = _clone_leaf(leaf, method)
    # the loops' stand-ins keep their originals' dynamic axes until the loops are closed and inferred again below
    with dynamic_axes_checks_deferred(bool(graph.loop_references)):
        for node in graph.nodes:
            new_node = _clone_node(node, method, subs, memo)
            for old, new in zip(node._outputs, new_node._outputs):
                memo[old.uid] = new
    new_outputs = [_cloned(o, subs, memo) for o in outputs]
    if memo.stand_ins:
        closing = {ph: memo[uid] for uid, ph in memo.stand_ins.items()}
        memo.stand_ins = {}
        substitute_in_place(new_outputs, closing)
        new_outputs = [closing.get(o, o) for o in new_outputs]
        # the copied loops were typed through stand-ins of the original's types: they take their types afresh
        # from their new inputs (a sequence on another axis), as the loops were typed when first closed
        infer_in_place(new_outputs, retyped_loops={id(v.owner) for v in memo.values() if v.is_output})
    return new_outputs


def _clone_substitutes(new_outputs, subs, memo):
    """As in CNTK, a substitute computed from nodes that the clone copied reads the copies: its own graph is
    cloned with them (a substitute over a loop's delayed value, which depends on the loop it sits in, closes that
    loop in the clone instead of reading the original's). Inside a substitute a substituted variable is not
    replaced again, and a substitute that depends on no copied node is used as it is."""
    # (arguments replaced by their values, a call's clone, keep their values as they are: the layers compose
    # their loops by calls whose values may read the graph being called)
    used = [(k, v) for k, v in subs.items() if v.uid not in memo and v.is_output and
            not (k.is_input or k.is_placeholder) and k.uid in memo.substituted]
    if not used:
        return new_outputs
    closing = {}
    for _, v in used:
        new_v = _clone_outputs([v], CloneMethod.share, {}, memo)[0]
        if new_v is not v:
            closing[v] = new_v
    if closing:
        substitute_in_place(new_outputs, closing)
        new_outputs = [closing.get(o, o) for o in new_outputs]
        infer_in_place(new_outputs)
    return new_outputs


def _cloned(v, subs, memo):
    """The clone of v: its substitute, its clone, or (a loop's back reference, read before its node is cloned)
    a stand-in placeholder."""
    if v in subs:
        memo.substituted.add(v.uid)
        return subs[v]
    hit = memo.get(v.uid)
    if hit is not None:
        return hit
    if v.uid not in memo.stand_ins:
        memo.stand_ins[v.uid] = typed_placeholder(v._shape, v._dtype, v._is_sparse, v._dynamic_axes, v.name)
    return memo.stand_ins[v.uid]


def _clone_leaf(v, method):
    if (v.is_input or v.is_placeholder) and method != CloneMethod.share:
        # as in CNTK, cloning or freezing also gives the graph its own inputs and placeholders
        new = Variable.__new__(Variable)
        new._init_variable(v._kind, v._shape, v._dtype, v._is_sparse, v._dynamic_axes, v._name, v._needs_gradient)
        return new
    if v.is_parameter and method == CloneMethod.clone and v._tensor is None and hasattr(v._init, "generate"):
        # not drawn yet (its shape may still be inferred): both copies draw the same values once they need them
        return Parameter(v._shape, init=v._shared_initializer(), dtype=v.dtype, name=v.name)
    if v.is_parameter and method != CloneMethod.share:
        return Constant(v.value, dtype=v.dtype, name=v.name) if method == CloneMethod.freeze else \
            Parameter(v.shape, init=v.value, dtype=v.dtype, name=v.name)
    if v.is_constant and method != CloneMethod.share:  # as in CNTK, freeze copies constants too
        return Constant(v.value, dtype=v.dtype, name=v.name)
    return v


def _clone_node(node, method, subs, memo):
    if node._block_root is not None:
        new_args = [_cloned(outer, subs, memo) for _, outer in node._block_arguments]
        # the substitutions reach the leaves the body captures (its parameters, as in CNTK); as_block gives the
        # clone its own placeholders
        inner_subs = dict(subs)
        inner_subs.update((ph, ph) for ph, _ in node._block_arguments)
        # a captured leaf (a parameter the body holds) replaced by anything but another parameter or constant
        # reaches the copy as one of its inputs, as in CNTK, whose blocks list their parameters among their
        # inputs: the substitute (a debug node over the parameter, an input, ...) stays visible in the outer
        # graph instead of being folded into the body
        promoted = []
        for leaf in node._inputs[:len(node._inputs) - len(node._block_arguments)]:
            sub = subs.get(leaf)
            if sub is not None and not (sub.is_parameter or sub.is_constant):
                ph = typed_placeholder(leaf._shape, leaf._dtype, leaf._is_sparse, leaf._dynamic_axes, leaf.name)
                inner_subs[leaf] = ph
                promoted.append((ph, sub))
        # a loop inside the block is closed before as_block wraps the copy (it must not capture the stand-ins)
        outer_stand_ins, memo.stand_ins = memo.stand_ins, {}
        inner_outputs = _clone_outputs(node._block_root._outputs, method, inner_subs, memo)
        memo.stand_ins = outer_stand_ins
        unchanged = not promoted and all(a is b for a, (_, b) in zip(new_args, node._block_arguments)) and \
            all(a is b for a, b in zip(inner_outputs, node._block_root._outputs))
        if unchanged:
            return node
        inner = Function._composite(inner_outputs, arg_order=[ph for ph, _ in promoted] +
                                    [ph for ph, _ in node._block_arguments])
        return as_block(inner, promoted + [(ph, a) for (ph, _), a in zip(node._block_arguments, new_args)],
                         node._op_name, node._name)._root
    new_inputs = [_cloned(i, subs, memo) for i in node._inputs]
    if all(a is b for a, b in zip(new_inputs, node._inputs)):
        return node
    return node._clone_primitive(new_inputs)


def as_block(composite, block_arguments_map, block_op_name, block_instance_name=""):
    """A block function: ``composite`` (over placeholders) packaged as one primitive named block_op_name,
    applied to the outer Variables of block_arguments_map [(placeholder, outer)]."""
    if not isinstance(composite, Function):
        raise TypeError("as_block: composite must be a Function, got %s" % type(composite).__name__)
    if isinstance(block_arguments_map, dict):
        block_arguments_map = list(block_arguments_map.items())
    pairs = [(as_variable(ph, "block placeholder"), as_variable(outer, "block argument"))
             for ph, outer in block_arguments_map]
    for ph, _ in pairs:
        if not ph.is_placeholder:
            raise TypeError("as_block: block_arguments_map keys must be placeholders of the composite, got %r" % ph)
    # as in CNTK, the block's placeholders take the names of the arguments bound to them (unnamed ones too)
    typed = {ph: typed_placeholder(outer._shape, outer._dtype, outer._is_sparse, outer._dynamic_axes, outer.name)
             for ph, outer in pairs}
    inner = composite.clone(CloneMethod.share, typed)
    mapping = [(typed[ph], outer) for ph, outer in pairs]
    mapped = {t for t, _ in mapping}
    captured = [leaf for leaf in inner._native_leaves() if leaf not in mapped]
    node = Function.__new__(Function)
    op = _BLOCK_OP
    # as in CNTK, a block lists the leaves its body captures (its parameters) before its arguments
    node._set_primitive(op, block_op_name, captured + [o for _, o in mapping], {}, block_instance_name, "Block")
    node._block_root = inner
    node._block_arguments = mapping
    note_block_arguments(mapping)
    grad = any(v._needs_gradient or v.is_output or v.is_placeholder for v in node._inputs)
    node._outputs = [make_output(o._shape, o._dtype, o._is_sparse, o._dynamic_axes, block_instance_name, node, k,
                                 needs_gradient=grad) for k, o in enumerate(inner._outputs)]
    guessed = any(outer._guessed_type for _, outer in mapping)   # (core/reinference.py)
    for o, inner_o in zip(node._outputs, inner._outputs):
        o._guessed_type = o._shape is not None and (guessed or inner_o._guessed_type)
    # its arguments: those of the operands, operand by operand, each once (an operand computed from arguments stands
    # for them)
    order = [a for a in walk([o for _, o in mapping]).leaves if a.is_input or a.is_placeholder]
    return Function._composite(node._outputs, arg_order=order)


def result_dtype(inputs):
    return promote(*[i._dtype for i in inputs])


def _not_lowered(*args, **kwargs):
    raise RuntimeError("Combine and Block nodes are inlined by the lowering and never computed directly")


_COMBINE_OP = register_op("Combine", infer=None, compute=_not_lowered, outputs_are_inputs=True)
_BLOCK_OP = register_op("Block", infer=None, compute=_not_lowered)


def _check_argument_types(arg_map):
    """CNTK 2.7's check of what a call (or update_signature) passes for a Function's arguments: an argument whose
    shape is known (an Input, not a Placeholder) takes only a Variable of its type, whose shape may have extra
    leading axes and which may lack dynamic axes."""
    for i, (param, arg) in enumerate(arg_map.items()):
        described = "argument %s" % param.name if param.name else "positional argument %d" % i
        if isinstance(arg, Function):
            arg = arg.output
        elif not isinstance(arg, Variable):
            raise TypeError(described + " was passed an object that is not a Variable or Function")
        if param._shape is None or param.is_placeholder:
            continue
        if arg._shape is None:
            raise TypeError(described + " has a known shape, and cannot be passed a Variable of unknown shape")
        expected, got = tuple(param._shape), tuple(arg._shape)
        if len(got) < len(expected) or got[-len(expected):] != expected or \
                (arg._dynamic_axes and tuple(arg.dynamic_axes) != tuple(param.dynamic_axes)) or \
                arg._dtype != param._dtype or arg._is_sparse != param._is_sparse:
            raise TypeError("%s's type %s is incompatible with the type %s of the passed Variable"
                            % (described, param._type, arg._type))


def _outputs_of(result):
    """The output variables of a Function, or the Variable itself."""
    return result.outputs if isinstance(result, Function) else [result]
