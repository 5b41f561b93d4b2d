"""Lowering a CNTK graph to a torch.nn.Module, once per (outputs, arguments, training) signature.

The module is a torch.fx.GraphModule: generated Python code calling each op's torch computation, with
the graph's Parameters registered as module parameters and Constants as buffers. Autograd, DDP,
torch.compile and ONNX export all take it as it is.

Parameters and Constants are named from their CNTK names inside the blocks (layers) that hold them:
``hidden.W`` for the W of a layer named 'hidden', ``dense.b`` for an unnamed Dense (its op name in lower case),
``W`` outside any block; a name already taken in its scope gets ``_1``, ``_2``... in the order of the lowering
walk. So state_dict() keys are the same in every session and after save/load of the same model.
"""
import keyword
import re
import sys
import weakref

import numpy as np
import torch
import torch.fx

from . import affine_fusion, criterion_fusion, member_access
from .carried_state import carried_state_of
from .dtypes import narrowed_constant_error, operands_dtype, to_torch_dtype
from .graph import node_inputs_native_order
from .native_errors import announced
from .random_stream import random_stream_of
from .fused_recurrence import fused_kernels_enabled, stack_layers, use_final_states
from .loop_hoisting import mark_step_node
from .recurrence import Loop, find_loops, lower_loop
from .reinference import primitive_nodes, refresh_block
from .variables import FreeDimension, InferredDimension

_CACHE = weakref.WeakKeyDictionary()
_CHECKED = {"on": False}   # CNTK's checked mode: networks compiled while it is on check their nodes for NaN


def _to_dtype(tensor, dtype):
    return tensor.to(dtype)


def _duplicate_uid(v):
    """Two different variables with one uid in one computation: what two loads of one model file (uids are kept
    from the file) give when combined. CNTK 2.7 refuses it ("AddNodeToNet: Duplicated name"); computed here it
    would read one variable for both."""
    raise ValueError("the computation holds two different variables with uid %r (%s): uids of loaded models are "
                     "the file's, so two loads of one model cannot be combined; clone one of them "
                     "(f.clone(CloneMethod.clone)) to give it new uids, as with CNTK 2.7, which refuses this too "
                     "(\"Duplicated name\")" % (v.uid, v.name or "unnamed"))


def _nan_check(value, uid, op_name, shape):
    """CNTK's checked mode: a node whose output holds a NaN stops the computation, with CNTK 2.7's lines."""
    for t in value if isinstance(value, (tuple, list)) else (value,):
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            continue
        flat = t.detach().reshape(-1)
        nan = torch.isnan(flat)
        if not bool(nan.any()):
            continue
        # CNTK's matrix: one column per sample, the sample's elements as rows (column-major)
        rows = 1
        for d in shape or ():
            rows *= max(int(d), 1)
        rows = rows if flat.numel() % rows == 0 else flat.numel()
        first = int(nan.nonzero()[0, 0])
        sys.stderr.write("HasNan: NaN detected at EndForwardProp (%d,%d) in (%d,%d) matrix\n"
                         % (first % rows, first // rows, rows, flat.numel() // rows))
        sys.stderr.flush()
        message = "%s %s operation unexpectedly produced NaN values." % (uid, op_name)
        from .native_errors import announced
        raise announced(RuntimeError, message)  # CNTK's native library says it on stderr, caught or not
    return value


def _insert_nan_checks(graph):
    """Checked mode inside the lowered graph: each CNTK node's result passes through _nan_check, so the
    network runs once (a tracer re-running it would apply assign, batch statistics and user functions twice)."""
    for n in list(graph.nodes):
        uid = n.meta.get("cntk_uid")
        if uid is None or n.op not in ("call_function", "call_module"):
            continue
        with graph.inserting_after(n):
            check = graph.call_function(_nan_check, (n, uid, n.meta.get("cntk_op", str(n.target)),
                                                     n.meta.get("cntk_shape")))
        n.replace_all_uses_with(check, delete_user_cb=lambda user, check=check: user is not check)


def set_checked(enable):
    """Lower from now on with (or without) checked mode; already lowered functions keep theirs, as CNTK's
    compiled networks do."""
    _CHECKED["on"] = bool(enable)


def _align(t, n_dyn, new_dyn, pad_static):
    """Insert the size-1 axes that make a tensor broadcast like CNTK: dynamic axes first, static right-aligned."""
    shape = t.shape
    return t.reshape(tuple(shape[:n_dyn]) + (1,) * (new_dyn + pad_static) + tuple(shape[n_dyn:]))


def _safe(name):
    return re.sub(r"\W", "_", name) or "v"


# The computation network trace level a network is compiled with (cntk.debugging's switch): as in CNTK 2.7, a
# network keeps the level that was set when it was compiled (first evaluated), whatever is set later; the
# networks compiled with a level above 0 are remembered so that their tracing stays installed
TRACE_LEVEL = [0]
TRACED = weakref.WeakSet()


class LoweredFunction(torch.fx.GraphModule):
    """forward(*argument_tensors, *masks, *slots) -> tuple of output tensors, then the masks of the sequence
    axes named by made_mask_axes (axes that ops such as sequence.where created and that an output lies on).

    slots (optional, one per mask): the SequenceSlots of that sequence axis, for batches whose sequences
    may continue those of the previous call (truncated BPTT; see carried_state)."""

    def __init__(self, root, graph, arguments, mask_axes, outputs, made_mask_axes=()):
        super(LoweredFunction, self).__init__(root, graph, class_name="CNTKFunction")
        self.argument_uids = [a.uid for a in arguments]
        self.mask_axes = mask_axes
        self.output_uids = [o.uid for o in outputs]
        self.made_mask_axes = list(made_mask_axes)
        self.trace_level = TRACE_LEVEL[0]
        if self.trace_level > 0:
            TRACED.add(self)
        member_access.install(self)

    def _deepcopy_init(self):
        def init(module, root, graph):
            torch.fx.GraphModule.__init__(module, root, graph)
            member_access.install(module)
        return init

    def __reduce__(self):
        """Pickled as its graph and the modules and tensors it reads (torch.save(module)); fx's own reduce would
        trace the generated code again, which the ops' Python control flow does not allow."""
        root = torch.nn.Module()
        for name, value in self.__dict__["_modules"].items():
            root.add_module(name, value)
        for name, value in self.__dict__["_parameters"].items():
            root.register_parameter(name, value)
        for name, value in self.__dict__["_buffers"].items():
            root.register_buffer(name, value)
        owned = {n.target: getattr(self, n.target) for n in self.graph.nodes
                 if n.op == "get_attr" and "." not in n.target and n.target not in root._modules
                 and n.target not in root._parameters and n.target not in root._buffers}
        extra = {"argument_uids": self.argument_uids, "mask_axes": self.mask_axes, "output_uids": self.output_uids,
                 "made_mask_axes": self.made_mask_axes, "training": self.training}
        return (_rebuild_lowered, (root, owned, _graph_records(self.graph), extra))


class _NodeRef(object):
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return (_NodeRef, (self.name,))


def _graph_records(graph):
    """The fx graph as plain records (an fx.Graph itself does not pickle): op, name, target, args, kwargs with
    nodes named by _NodeRef."""
    ref = lambda n: _NodeRef(n.name)  # noqa: E731
    return [(n.op, n.name, n.target, torch.fx.node.map_arg(n.args, ref), torch.fx.node.map_arg(n.kwargs, ref),
             n.meta.get("cntk_uid")) for n in graph.nodes]


def _graph_from_records(records):
    graph = torch.fx.Graph()
    env = {}
    back = lambda a: env[a.name] if isinstance(a, _NodeRef) else a  # noqa: E731
    for op, name, target, args, kwargs, uid in records:
        node = graph.create_node(op, target, torch.fx.node.map_aggregate(args, back),
                                 torch.fx.node.map_aggregate(kwargs, back), name=name)
        if uid is not None:
            node.meta["cntk_uid"] = uid
        env[name] = node
    return graph


def _rebuild_lowered(root, owned, records, extra):
    graph = _graph_from_records(records)
    for name, value in owned.items():
        setattr(root, name, value)
    module = LoweredFunction.__new__(LoweredFunction)
    torch.fx.GraphModule.__init__(module, root, graph, class_name="CNTKFunction")
    for name, value in extra.items():
        setattr(module, name, value)
    member_access.install(module)
    return module


# names a parameter cannot take as a module attribute (a suffix "_" is added)
_RESERVED = set(dir(LoweredFunction)) | {"training", "meta", "argument_uids", "mask_axes", "output_uids",
                                         "made_mask_axes"}


def _attribute_name(name):
    name = _safe(name)
    if name[0].isdigit():
        name = "v" + name
    if keyword.iskeyword(name) or name in _RESERVED or name.startswith("_"):
        name = name + "_"
    return name


def _needs_opening(block, members, loop_axes):
    """Whether a block on a loop (members: the loop's node ids) reads, from outside the loop, a sequence on
    another axis than the loop's, or holds in its body an op that needs whole sequences."""
    for _, outer in block._block_arguments:
        if not (outer.is_output and id(outer.owner) in members) and outer._sequence_axis is not None \
                and outer._sequence_axis.name not in loop_axes:
            return True
    return any(n._op.sees_whole_sequences for n in primitive_nodes(block._block_root._outputs))


class _Builder(object):
    def __init__(self, arguments, training, loop_step=False):
        self.loop_step = loop_step
        self.graph = torch.fx.Graph()
        self.root = torch.nn.Module()
        self.training = training
        self.env = {}
        self.scope = ()       # attribute names of the blocks being lowered, outermost first
        self.taken = {}       # scope -> attribute names used in it
        self.leaf_paths = {}  # uid of a Parameter/Constant -> its attribute path
        self.leaf_tensors = {}  # uid of a Parameter/Constant -> its tensor (two leaves with one uid are refused)
        self.masks = {}
        self.slots = {}
        self.mask_axes = []
        self.loop_of = {}
        self.acyclic = set()
        # blocks on a loop that the loop must see into (block_on_loop_needs_opening): ids of the opened blocks,
        # and their bodies' placeholders -> the block's arguments (shared with the loops' step builders)
        self.opened = set()
        self.outer_of = {}
        self.outputs = ()  # what the whole computation returns (lower() sets it; a loop step has none)
        self._readers = None
        for i, a in enumerate(arguments):
            if a.uid in self.env:
                _duplicate_uid(a)
            self.env[a.uid] = self.graph.placeholder("arg%d_%s" % (i, _safe(a.name or a.uid)))
        for a in arguments:
            axis = a._sequence_axis
            if axis is not None and axis.name not in self.masks:
                self.masks[axis.name] = self.graph.placeholder("mask_%s" % _safe(axis.name))
                self.mask_axes.append(axis.name)
        for name in self.mask_axes:
            self.slots[name] = self.graph.placeholder("slots_%s" % _safe(name), default_value=None)

    def unique_name(self, name):
        """An attribute name from the CNTK ``name``, unique in the current scope."""
        name = _attribute_name(name)
        taken = self.taken.setdefault(self.scope, set())
        candidate, k = name, 0
        while candidate in taken:
            k += 1
            candidate = "%s_%d" % (name, k)
        taken.add(candidate)
        return candidate

    def mask(self, axis, node):
        if axis.name not in self.masks:
            raise ValueError("%s: no data determines the lengths along the sequence axis %r of its input"
                             % (node._op_name, axis.name))
        return self.masks[axis.name]

    def output_masks(self, outputs, arguments):
        """The masks of the sequence axes that ops made (not fed) and that some output lies on."""
        fed = {a._sequence_axis.name for a in arguments if a._sequence_axis is not None}
        names = []
        for o in outputs:
            axis = o._sequence_axis
            if axis is not None and axis.name not in fed and axis.name in self.masks and axis.name not in names:
                names.append(axis.name)
        return names

    def leaf(self, v):
        if v.is_parameter or v.is_constant:
            path = self.leaf_paths.get(v.uid)
            if path is not None and self.leaf_tensors[v.uid] is not v.tensor:
                _duplicate_uid(v)
            if path is None:
                self.leaf_tensors[v.uid] = v.tensor
                module = self.root
                for segment in self.scope:
                    if not hasattr(module, segment):
                        module.add_module(segment, torch.nn.Module())
                    module = getattr(module, segment)
                attr = self.unique_name(v.name or ("parameter" if v.is_parameter else "constant"))
                if v.is_parameter and isinstance(v.tensor, torch.nn.Parameter):
                    module.register_parameter(attr, v.tensor)  # (an int8/int16 Parameter is a plain tensor)
                else:
                    module.register_buffer(attr, v.tensor)
                path = self.leaf_paths[v.uid] = ".".join(self.scope + (attr,))
            return self.graph.get_attr(path)
        if v.is_placeholder:
            raise ValueError("the Function still has an unbound placeholder %r (%s); apply it to input variables "
                             "first (e.g. model(x))" % (v.name, v.uid))
        raise ValueError("missing argument: the computation needs input %s%s, which was not given"
                         % (("'%s' " % v.name) if v.name else "", v.uid))

    def value(self, v):
        """The fx node computing Variable v (lowering what it depends on, without recursion)."""
        if v.uid in self.env:
            return self.env[v.uid]
        stack = [v]
        while stack:
            cur = stack[-1]
            if cur.uid in self.env:
                stack.pop()
                continue
            if not cur.is_output:
                self.env[cur.uid] = self.leaf(cur)
                stack.pop()
                continue
            node = cur.owner
            loop = self._loop(node)
            if loop is not None:
                deps = [i for i in loop.external_inputs if i.uid not in self.env]
                if deps:
                    stack.extend(deps)
                    continue
                lower_loop(self, loop, self._step_builder)
                stack.pop()
                continue
            deps = [i for i in self._node_inputs(node) if i.uid not in self.env]
            if deps:
                stack.extend(deps)
                continue
            self.emit(node)
            stack.pop()
        return self.env[v.uid]

    def _loop(self, node):
        """The recurrent Loop node belongs to, or None (found once per region of the graph)."""
        if id(node) in self.acyclic:
            return None
        if id(node) not in self.loop_of:
            loops, visited = find_loops(node, self._node_inputs, lambda var: var.uid in self.env)
            while self._open_blocks(loops):     # the loops changed: find them again
                loops, visited = find_loops(node, self._node_inputs, lambda var: var.uid in self.env)
            for nodes in loops:
                loop = Loop(nodes, self._node_inputs)
                self.loop_of.update((id(n), loop) for n in nodes)
            self.acyclic.update(i for i in visited if i not in self.loop_of)
        return self.loop_of.get(id(node))

    def read_outside(self, v, members):
        """Whether anything but the nodes whose ids are ``members`` reads Variable v (an output of the whole
        computation counts as a reader; inside a loop step, everything is assumed to be read)."""
        if not self.outputs:
            return True
        if self._readers is None:
            readers = {o.uid: {None} for o in self.outputs}
            for node in primitive_nodes(self.outputs):
                read = list(node._inputs)
                if node._block_root is not None:
                    read += [outer for _, outer in node._block_arguments] + list(node._block_root._outputs)
                for i in read:
                    readers.setdefault(i.uid, set()).add(id(node))
            self._readers = readers
        return any(r not in members for r in self._readers.get(v.uid, ()))

    def carried_state(self, node):
        """An fx node fetching the CarriedState owned by the past_value ``node``."""
        attr = "carried_%s" % node.uid
        setattr(self.root, attr, carried_state_of(node))
        return self.graph.get_attr(attr)

    def random_stream(self, node):
        """An fx node fetching the RandomStream owned by the random ``node``."""
        attr = "random_%s" % node.uid
        setattr(self.root, attr, random_stream_of(node))
        return self.graph.get_attr(attr)

    def _step_builder(self):
        step = _Builder([], self.training, loop_step=True)
        step.opened, step.outer_of = self.opened, self.outer_of
        return step

    def _open_blocks(self, loops):
        """Opens the blocks on these loops whose body cannot run step by step inside the loop (CNTK runs the
        primitives of a block, not the block): each then reads its body's outputs, and the body's nodes read the
        block's arguments, so that what needs no loop state (a whole-sequence op on another sequence, a dropout
        of a parameter) is computed before the loop. Whether any was opened."""
        opened = False
        for nodes in loops:
            members = {id(n) for n in nodes}
            axes = {d._outputs[0]._sequence_axis.name for d in nodes
                    if d._op.delay is not None and d._outputs[0]._sequence_axis is not None}
            for n in nodes:
                if n._block_root is None or id(n) in self.opened or not _needs_opening(n, members, axes):
                    continue
                refresh_block(n)
                self.opened.add(id(n))
                self.outer_of.update((inner.uid, outer) for inner, outer in n._block_arguments)
                opened = True
        return opened

    def _resolved(self, v):
        """v, or the argument it stands for when it is a placeholder of an opened block's body."""
        while v.uid in self.outer_of:
            v = self.outer_of[v.uid]
        return v

    def _node_inputs(self, node):
        if node._block_root is not None:
            if id(node) in self.opened:
                return list(node._block_root._outputs)
            return [self._resolved(outer) for _, outer in node._block_arguments]
        if self.outer_of:
            return [self._resolved(i) for i in node._inputs]
        return node._inputs

    def _in_operands_precision(self, node, args):
        """As CNTK 2.7 compiles a graph: an op computes in its operands' precision (core.dtypes.operands_dtype); a
        Constant of a narrower one is converted to it, one of a wider one refused (Constant::Clone), and Constants
        alone of different precisions are refused too."""
        typed = [i for i in node._inputs if i._dtype is not None]
        if len({np.dtype(i._dtype) for i in typed}) < 2:
            return args
        if all(i.is_constant for i in typed):
            raise announced(ValueError, "an ComputationNodeBasePtr of mismatching precision was passed\n\n"
                            "(cntk-compat: %s '%s' reads Constants of different precisions: %s)"
                            % (node._op_name, node._name or node.uid, ", ".join(repr(i) for i in typed)))
        dtype = operands_dtype(node_inputs_native_order(node))
        converted = []
        for a, i in zip(args, node._inputs):
            if i.is_constant and i._dtype is not None and np.dtype(i._dtype) != dtype:
                if np.dtype(i._dtype).itemsize > dtype.itemsize:
                    raise narrowed_constant_error(i, dtype)
                a = self.graph.call_function(_to_dtype, (a, to_torch_dtype(dtype)))
            converted.append(a)
        return converted

    def emit(self, node):
        op = node._op
        if op.outputs_are_inputs:
            return
        if id(node) in self.opened:
            for inner_out, out in zip(node._block_root._outputs, node._outputs):
                self.env[out.uid] = self.env[inner_out.uid]
            return
        reads = [outer for _, outer in node._block_arguments] if node._block_root is not None else node._inputs
        for i in reads:     # a placeholder of an opened block's body is the block's argument
            if i.uid not in self.env and i.uid in self.outer_of:
                self.env[i.uid] = self.env[self._resolved(i).uid]
        if node._block_root is not None:
            refresh_block(node)
            for inner_ph, outer in node._block_arguments:
                self.env[inner_ph.uid] = self.env[outer.uid]
            outer_scope = self.scope
            self.scope = outer_scope + (self.unique_name(node._name or node._op_name.lower()),)
            try:
                for inner_out, out in zip(node._block_root._outputs, node._outputs):
                    self.env[out.uid] = self.value(inner_out)
            finally:
                self.scope = outer_scope
            return
        for o in node._outputs:
            # -1 (inferred) left in a shape comes from inputs declared with it: sized by the data, like -3
            if o._shape is None or any(d < 0 and d not in (FreeDimension, InferredDimension) for d in o._shape):
                raise ValueError("%s%s: output shape %s could not be inferred from its inputs %s"
                                 % (node._op_name, " '%s'" % node._name if node._name else "", o.shape,
                                    [i.shape for i in node._inputs]))
        if self.loop_step and op.sees_whole_sequences:
            raise ValueError("%s cannot be used inside a recurrent loop (it works on whole sequences)"
                             % node._op_name)
        args = [self.env[i.uid] for i in node._inputs]
        if not op.mixed_dtypes:
            args = self._in_operands_precision(node, args)
        if op.elementwise:
            out = node._outputs[0]
            n_out, rank = out._n_dynamic, len(out._shape)
            aligned = []
            for a, i in zip(args, node._inputs):
                n_in = i._n_dynamic
                new_dyn = (n_out - n_in) if n_in else 0
                pad = (rank - len(i._shape)) if n_in else 0
                if new_dyn or pad:
                    a = self.graph.call_function(_align, (a, n_in, new_dyn, pad))
                aligned.append(a)
            args = aligned
        kwargs = op.prepare(node) if op.prepare else {}
        if op.uses_training:
            kwargs["training"] = self.training
        if op.uses_random:
            kwargs["random"] = self.random_stream(node)
        if op.owned_state is not None:
            attr = "state_%d_%s" % (len(self.env), "".join(c if c.isalnum() else "_" for c in node.uid))
            setattr(self.root, attr, op.owned_state(node))
            kwargs["state"] = self.graph.get_attr(attr)
        if op.uses_mask:
            axes = [i._sequence_axis for i in node._inputs if i._sequence_axis is not None]
            if not axes:
                raise ValueError("%s needs a sequence input" % node._op_name)
            kwargs["mask"] = self.mask(axes[0], node)
        if op.uses_masks:
            kwargs["masks"] = tuple(None if i._sequence_axis is None else self.mask(i._sequence_axis, node)
                                    for i in node._inputs)
        carried_axis = node._inputs[0]._sequence_axis if op.carries_state else None
        if carried_axis is not None and carried_axis.name in self.slots:
            kwargs["carried"] = self.carried_state(node)
            kwargs["slots"] = self.slots[carried_axis.name]
        result = self.graph.call_function(op.compute, tuple(args), kwargs)
        result.meta["cntk_uid"] = node.uid  # for per-node reports (debugging tracer, node timing)
        result.meta["cntk_op"] = node._op_name  # for checked mode's message
        result.meta["cntk_shape"] = node._outputs[0]._shape if node._outputs else None
        if self.loop_step:
            mark_step_node(result, op, node)
        else:
            affine_fusion.mark(result, node, self.env)
        if op.makes_mask:
            axis = node._outputs[0]._sequence_axis
            self.masks.setdefault(axis.name, self.graph.call_function(_getitem, (result, 1)))
            result = self.graph.call_function(_getitem, (result, 0))
        if len(node._outputs) == 1:
            self.env[node._outputs[0].uid] = result
        else:
            for k, o in enumerate(node._outputs):
                self.env[o.uid] = self.graph.call_function(_getitem, (result, k))


def _getitem(seq, k):
    return seq[k]


def lower(outputs, arguments, training=False):
    """The cached LoweredFunction computing ``outputs`` from ``arguments`` (Variables)."""
    key = (tuple(o.uid for o in outputs), tuple(a.uid for a in arguments), bool(training), fused_kernels_enabled())
    per_output = _CACHE.setdefault(outputs[0], {})
    module = per_output.get(key)
    if module is None:
        b = _Builder(arguments, training)
        b.outputs = list(outputs)
        results = [b.value(o) for o in outputs]
        made = b.output_masks(outputs, arguments)
        b.graph.output(tuple(results + [b.masks[n] for n in made]))
        affine_fusion.fuse(b.graph)
        if not _CHECKED["on"]:  # checked mode reports NaN per node of the composed criterion
            criterion_fusion.fuse(b.graph, b.root)
        use_final_states(b.graph, b.root)
        if not _CHECKED["on"]:  # checked mode reports each loop's values
            stack_layers(b.graph, b.root)
        if _CHECKED["on"]:
            _insert_nan_checks(b.graph)
        module = LoweredFunction(b.root, b.graph, arguments, b.mask_axes, outputs, made)
        module.train(training)
        per_output[key] = module
    return module
