"""ONNX export in CNTK 2.7's own layout: each CNTK function becomes ONNX nodes named after it (opset 9, what CNTK 2.7
writes and reads).

The layout is CNTK's: a tensor with dynamic axes gets them as leading ONNX axes, the sequence axis first (symbolic,
``Sequence``) and the batch axis next as a dimension of size 1; static axes follow in this package's (numpy) order.
Parameters and constants are initializers named by their CNTK names. A node keeps its CNTK function's name (else
uid); its output is ``<name>_Output[_k]``. A graph using an op without a mapping here raises NotExpressible naming
it (recurrences go through the torch.onnx exporter instead, see onnx_export.py).
"""
import numpy as np

from ..core.reinference import primitive_nodes

OPSET = 9
SEQUENCE_DIM = "Sequence"


class NotExpressible(ValueError):
    """The graph uses an op or option this ONNX writer has no mapping for."""


_ELEM = {np.dtype(np.float32): 1, np.dtype(np.float64): 11, np.dtype(np.float16): 10}


def _onnx():
    import onnx
    return onnx


class _Writer(object):
    def __init__(self):
        self.nodes, self.initializers, self.inputs = [], [], []
        self.names = {}      # id(Variable) -> ONNX value name
        self.taken = set()
        self.uid_names = {}  # CNTK uid -> ONNX name (written to the graph's doc_string, as CNTK 2.7 does)
        self.paths = {}      # id(tensor) -> its path in torch_module()'s state_dict (hidden.W)
        self.done = set()    # ids of the functions written (or being written)

    def unique(self, base):
        base = "".join(c if c.isalnum() or c in "_.-" else "_" for c in base) or "v"
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = "%s_%d" % (base, k)
        self.taken.add(name)
        return name

    # ---------------------------------------------------------------------------------------- values
    def value(self, v):
        key = id(v)
        if key in self.names:
            return self.names[key]
        if v.is_output:
            raise NotExpressible("%s is read before it is computed (a recurrent loop)" % (v.name or v.uid))
        if v.is_placeholder:
            raise NotExpressible("placeholder %s is unbound" % (v.name or v.uid))
        path = self.paths.get(id(v.tensor)) if v.is_parameter or v.is_constant else None
        name = self.unique(path or v.name or v.uid)
        self.names[key] = name
        self.uid_names[v.uid] = name
        if v.is_parameter or v.is_constant:
            arr = np.asarray(v.value)
            self.initializers.append(_onnx().numpy_helper.from_array(arr, name))
        else:
            self.inputs.append(self.value_info(name, v))
        return name

    def value_info(self, name, v):
        dims = []
        if v.has_sequence_axis():
            dims.append(SEQUENCE_DIM)
        if v.has_batch_axis():
            dims.append(1)
        for k, d in enumerate(v.shape):
            dims.append(d if d >= 0 else "%s_free%d" % (name, k))
        return _onnx().helper.make_tensor_value_info(name, _elem(v), dims)

    def constant(self, array, hint):
        name = self.unique(hint)
        self.initializers.append(_onnx().numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op_type, inputs, outputs, name, **attrs):
        self.nodes.append(_onnx().helper.make_node(op_type, inputs, outputs, name=self.unique(name), **attrs))
        return outputs

    def temp(self, base):
        return self.unique(base)

    def rename(self, old, base):
        if not any(old in n.output for n in self.nodes):
            return old
        new = self.unique(base)
        for n in self.nodes:
            for seq in (n.input, n.output):
                for k, name in enumerate(seq):
                    if name == old:
                        seq[k] = new
        for key, name in list(self.names.items()):
            if name == old:
                self.names[key] = new
        for key, name in list(self.uid_names.items()):
            if name == old:
                self.uid_names[key] = new
        return new

    def read(self, v):
        if v.is_output:
            if id(v) not in self.names and id(v.owner) not in self.done:
                self.function(v.owner)  # a loop's input the walk has not reached yet
            if id(v) not in self.names:
                raise NotExpressible("%s is read before it is computed" % (v.name or v.uid))
            return self.names[id(v)]
        return self.value(v)

    # ---------------------------------------------------------------------------------------- loops
    def find_loops(self, outputs):
        from ..core.recurrence import Loop, find_loops
        self.loop_of, self.loops_done = {}, set()
        self.readers = {o.uid: {None} for o in outputs}
        for node in primitive_nodes(outputs, into_blocks=False):
            for i in _node_inputs(node):
                self.readers.setdefault(i.uid, set()).add(id(node))
        seen = set()
        for o in outputs:
            if not o.is_output or id(o.owner) in seen:
                continue
            loops, visited = find_loops(o.owner, _node_inputs, lambda v: False)
            seen |= visited
            for nodes in loops:
                loop = Loop(nodes, _node_inputs)
                self.loop_of.update((id(n), loop) for n in nodes)

    def loop(self, loop):
        """A loop that computes CNTK's LSTM as one ONNX LSTM node (CNTK 2.7 did the same)."""
        from ..core.fused_recurrence import match_lstm
        if id(loop) in self.loops_done:
            return
        self.loops_done.add(id(loop))
        m = match_lstm(loop)
        if m is None:
            m = _match_gru(loop)
            if m is not None:
                return self.gru(loop, m)
            m = _match_rnn(loop)
            if m is None:
                raise NotExpressible("a recurrent loop other than CNTK's default LSTM or an RNNStep (%s)"
                                     % ", ".join(sorted({n.op_name for n in loop.nodes})))
            return self.rnn(loop, m)
        h_var = m.h_delay._inputs[0]
        members = {id(n) for n in loop.nodes}
        for v in loop.variables:
            if v is not h_var and self.readers.get(v.uid, set()) - members:
                raise NotExpressible("an LSTM loop whose cell state is read outside the loop")
        if _lead(m.x) != 2:
            raise NotExpressible("an LSTM over an input without batch and sequence axes")
        dim = m.dim
        dtype = np.dtype(m.h_delay._outputs[0].dtype)
        blocks = [n for n in loop.nodes if n._block_root is not None]
        base = (blocks[0].name or blocks[0].uid) if blocks else "LSTM"

        def gates(matrix):  # CNTK's gate blocks (i, g, f, o) along the last axis -> ONNX's (i, o, f, c) rows
            return np.concatenate([matrix[..., k * dim:(k + 1) * dim] for k in (0, 3, 2, 1)], axis=-1)

        W = gates(np.asarray(m.W.value, dtype)).T[None]
        R = gates(np.asarray(m.H.value, dtype)).T[None]
        bias = np.zeros((1, 8 * dim), dtype)
        if m.b is not None:
            bias[0, :4 * dim] = gates(np.asarray(m.b.value, dtype))
        inputs = [self.read(m.x), self.constant(W, m.W.name or m.W.uid), self.constant(R, m.H.name or m.H.uid),
                  self.constant(bias, (m.b.name or m.b.uid) if m.b is not None else base + "_B"), ""]
        for delay, tag in ((m.h_delay, "initial_h"), (m.c_delay, "initial_c")):
            init = delay._inputs[1]
            if not (init.is_constant or init.is_parameter) or init.shape not in ((), (1,), (dim,)):
                raise NotExpressible("an LSTM whose initial state is not a constant")
            inputs.append(self.constant(np.broadcast_to(np.asarray(init.value, dtype), (1, 1, dim)).copy(),
                                        "%s_%s" % (base, tag)))
        y = self.temp(base + "_Y")
        self.node("LSTM", inputs, [y], base, hidden_size=dim, direction="reverse" if loop.backward else "forward",
                  activations=["Sigmoid", "Tanh", "Tanh"])
        out = self.unique(base + "_Output")
        # [sequence, 1 direction, 1 batch item, dim] -> [sequence, 1, dim], as a Reshape (CNTK 2.7 reads it so)
        shape = self.constant(np.asarray([0, 1, dim], np.int64), base + "_Output_shape")
        self.node("Reshape", [y, shape], [out], base + "_reshape")
        self.names[id(h_var)] = self.uid_names[h_var.uid] = out

    def gru(self, loop, m):
        """CNTK's GRU loop as one ONNX GRU node (gates z, r, h in both)."""
        dim = m.dim
        dtype = np.dtype(m.delay._outputs[0].dtype)
        R = np.concatenate([np.asarray(m.H.value, dtype), np.asarray(m.H1.value, dtype)], axis=-1)
        bias = np.zeros((1, 6 * dim), dtype)
        if m.b is not None:
            bias[0, :3 * dim] = np.asarray(m.b.value, dtype).reshape(-1)
        self.recurrent_node("GRU", loop, m, [np.asarray(m.W.value, dtype).T[None], R.T[None], bias],
                            activations=["Sigmoid", m.activation], linear_before_reset=0)

    def recurrent_node(self, op_type, loop, m, weights, **attrs):
        h_var = m.delay._inputs[0]
        members = {id(n) for n in loop.nodes}
        for v in loop.variables:
            if v is not h_var and self.readers.get(v.uid, set()) - members:
                raise NotExpressible("a %s loop with intermediate values read outside the loop" % op_type)
        if _lead(m.x) != 2:
            raise NotExpressible("a %s over an input without batch and sequence axes" % op_type)
        dim = m.dim
        dtype = np.dtype(m.delay._outputs[0].dtype)
        blocks = [n for n in loop.nodes if n._block_root is not None]
        base = (blocks[0].name or blocks[0].uid) if blocks else op_type
        init = m.delay._inputs[1]
        if not (init.is_constant or init.is_parameter) or np.size(init.value) not in (1, dim):
            raise NotExpressible("a %s whose initial state is not a constant" % op_type)
        names = [(m.W.name or m.W.uid), (m.H.name or m.H.uid), (m.b.name or m.b.uid) if m.b is not None
                 else base + "_B"]
        inputs = [self.read(m.x)] + [self.constant(w, n) for w, n in zip(weights, names)] + [
            "", self.constant(np.broadcast_to(np.asarray(init.value, dtype).reshape(-1), (1, 1, dim)).copy(),
                              base + "_initial_h")]
        y = self.temp(base + "_Y")
        self.node(op_type, inputs, [y], base, hidden_size=dim,
                  direction="reverse" if loop.backward else "forward", **attrs)
        out = self.unique(base + "_Output")
        shape = self.constant(np.asarray([0, 1, dim], np.int64), base + "_Output_shape")
        self.node("Reshape", [y, shape], [out], base + "_reshape")
        self.names[id(h_var)] = self.uid_names[h_var.uid] = out

    def rnn(self, loop, m):
        """A loop h = act(x·W + h_prev·H [+ b]) (an RNNStep) as one ONNX RNN node."""
        dim = m.dim
        dtype = np.dtype(m.delay._outputs[0].dtype)
        bias = np.zeros((1, 2 * dim), dtype)
        if m.b is not None:
            bias[0, :dim] = np.asarray(m.b.value, dtype).reshape(dim)
        self.recurrent_node("RNN", loop, m, [np.asarray(m.W.value, dtype).T[None], np.asarray(m.H.value, dtype).T[None],
                                             bias], activations=[m.activation])

    # ---------------------------------------------------------------------------------------- functions
    def function(self, fn):
        if id(fn) in self.done:
            return
        self.done.add(id(fn))
        loop = self.loop_of.get(id(fn))
        if loop is not None:
            return self.loop(loop)
        op = fn._op.name
        if op == "Combine":
            for i, o in zip(fn._inputs, fn._outputs):
                self.names[id(o)] = self.uid_names[o.uid] = self.read(i)
            return
        if op == "Block" and fn.op_name == "LayerNormalization" and self.layer_norm(fn):
            return
        if op == "Block":
            for ph, outer in fn._block_arguments:
                self.names[id(ph)] = self.read(outer)
            root = fn._block_root
            for inner in primitive_nodes(list(root.outputs), into_blocks=False):
                self.function(inner)
            for inner_out, out in zip(root.outputs, fn._outputs):
                self.names[id(out)] = self.uid_names[out.uid] = self.names[id(inner_out)]
            self.uid_names[fn.uid] = fn.name or fn.uid
            if fn.name:  # the node computing the block's output carries the block's name (Dense, LSTM, ...)
                produced = self.names[id(root.outputs[0])]
                for n in self.nodes:
                    if produced in n.output:
                        self.taken.discard(n.name)
                        n.name = self.uid_names[fn.uid] = self.unique(fn.name)
            return
        emit = EMITTERS.get(op)
        label = fn.name or fn.uid
        if emit is None:
            raise NotExpressible("%s %s: op %s has no ONNX mapping" % (fn.op_name, label, op))
        base = fn.name or fn.uid
        outs = [self.unique(base + ("_Output" if k == 0 else "_Output_%d" % k)) for k in range(len(fn._outputs))]
        ins = [self.read(i) for i in fn._inputs]
        try:
            emit(self, fn, ins, outs, base)
        except NotExpressible as e:
            raise NotExpressible("%s %s: %s" % (fn.op_name, label, e)) from None
        for o, n in zip(fn._outputs, outs):
            self.names[id(o)] = self.uid_names[o.uid] = n
        self.uid_names[fn.uid] = self.nodes[-1].name if self.nodes else base


    def layer_norm(self, fn):
        """layers.LayerNormalization as CNTK 2.7 wrote it: MeanVarianceNormalization over all axes (the batch axis
        of size 1 included), times scale, plus bias. ONNX's MVN has no epsilon (onnxruntime adds 1e-9 to the
        variance; CNTK adds epsilon to the standard deviation), so the block's epsilon is not kept, as in CNTK."""
        m = _match_layer_norm(fn)
        if m is None:
            return False
        x, scale, bias = m
        if _lead(x) != 1 or not x.has_batch_axis():
            return False  # MVN's statistics would span the sequence axis
        base = fn.name or fn.uid
        src = self.read(x)
        normalized, scaled = self.temp(base + "_mvn_output"), self.temp(base + "_mul_output")
        self.node("MeanVarianceNormalization", [src], [normalized], base + "_MVN",
                  axes=list(range(1 + len(x.shape))))
        self.node("Mul", [normalized, self.read(scale)], [scaled], base + "_mul")
        out = self.unique(base + "_Output")
        self.node("Add", [scaled, self.read(bias)], [out], base)
        self.names[id(fn._outputs[0])] = self.uid_names[fn._outputs[0].uid] = out
        self.uid_names[fn.uid] = self.nodes[-1].name
        return True


def _owner_op(v, op):
    return v.owner if v.is_output and v.owner._op.name == op and v.owner._block_root is None else None


def _match_layer_norm(fn):
    """(x, scale, bias) if the block computes (x - mean) / (std + eps) * scale + bias over all of x's axes (what
    layers.LayerNormalization builds), else None."""
    if len(fn._outputs) != 1 or len(fn._block_arguments) != 1:
        return None
    ph, x = fn._block_arguments[0]
    plus = _owner_op(fn._block_root.outputs[0], "Plus")
    times = plus and _owner_op(plus._inputs[0], "ElementTimes")
    div = times and _owner_op(times._inputs[0], "ElementDivide")
    centered = div and _owner_op(div._inputs[0], "Minus")
    if centered is None or centered._inputs[0] is not ph:
        return None
    scale, bias = times._inputs[1], plus._inputs[1]
    if not (scale.is_parameter or scale.is_constant) or not (bias.is_parameter or bias.is_constant) or \
            len(scale.shape) > 1 or len(bias.shape) > 1:
        return None
    mean = _owner_op(centered._inputs[1], "ReduceMean")
    std_eps = _owner_op(div._inputs[1], "Plus")
    sqrt = std_eps and _owner_op(std_eps._inputs[0], "Sqrt")
    var = sqrt and _owner_op(sqrt._inputs[0], "ReduceMean")
    square = var and _owner_op(var._inputs[0], "ElementTimes")
    if mean is None or mean._inputs[0] is not ph or square is None or \
            any(i is not centered._outputs[0] for i in square._inputs):
        return None
    for r in (mean, var):
        axes = r._attributes.get("axes")
        if axes is not None and sorted(int(a) % len(ph.shape) for a in axes) != list(range(len(ph.shape))):
            return None
    return x, scale, bias


class _RNNMatch(object):
    def __init__(self, delay, x, W, H, b, dim, activation):
        self.delay, self.x, self.W, self.H, self.b, self.dim, self.activation = delay, x, W, H, b, dim, activation


_RNN_ACTIVATIONS = {"tanh": "Tanh", "relu": "Relu", "sigmoid": "Sigmoid"}


def _match_rnn(loop):
    """The loop h = act(x·W + h_prev·H [+ b]) with one delay of time_step 1 (what layers.RNNStep builds), or None."""
    from ..core.fused_recurrence import _Resolver
    if len(loop.delays) != 1 or loop.delays[0]._attributes.get("time_step") != 1:
        return None
    delay = loop.delays[0]
    h = _Resolver(loop).expr(delay._inputs[0])
    shape = delay._outputs[0]._shape
    if h.algebra not in _RNN_ACTIVATIONS or len(h.args) != 1 or h.args[0].algebra != "add" or shape is None or \
            len(shape) != 1:
        return None
    dim = shape[0]
    x = W = H = b = None
    for term in h.args[0].args:
        if term.algebra == "matmul" and term.node._attributes.get("output_rank") == 1:
            left, right = term.args
            if right.in_loop or right.var is None or right.var._n_dynamic or len(right.var._shape) != 2:
                return None
            if left.algebra is None and left.node is delay and H is None and tuple(right.var._shape) == (dim, dim):
                H = right.var
            elif not left.in_loop and left.var is not None and x is None and right.var._shape[1] == dim and \
                    left.var._shape is not None and len(left.var._shape) == 1:
                x, W = left.var, right.var
            else:
                return None
        elif not term.in_loop and term.var is not None and b is None and term.var._n_dynamic == 0 and \
                int(np.prod(term.var._shape)) == dim:
            b = term.var
        else:
            return None
    if x is None or H is None or x._sequence_axis is None:
        return None
    return _RNNMatch(delay, x, W, H, b, dim, _RNN_ACTIVATIONS[h.algebra])


class _GRUMatch(object):
    def __init__(self, delay, x, W, H, H1, b, dim, activation):
        self.delay, self.x, self.W, self.H, self.H1, self.b = delay, x, W, H, H1, b
        self.dim, self.activation = dim, activation


def _is_delay(e, delay):
    return e.algebra is None and e.node is delay


def _leaf_matrix(e):
    v = e.var
    return v if (e.algebra is None and not e.in_loop and v is not None and not v._n_dynamic and v._shape is not None
                 and len(v._shape) == 2) else None


def _block_of(e, dim):
    """(k, the stacked expression) if e is the k-th block of dim along the last axis of a rank-1 value, else None
    (core.fused_recurrence's _slice_block, which the fused kernels match gates with)."""
    from ..core.fused_recurrence import _slice_block
    k = _slice_block(e, e.args[0], dim) if e.algebra == "slice" else None
    return None if k is None else (k, e.args[0])


def _identity(e):
    return e.node if e.node is not None else e.var


def _match_gru(loop):
    """h = (1 - z) * act(x·Wc + bc + (r * h_prev)·H1) + z * h_prev with z, r = sigmoid of the first two blocks
    of (b + x·W) + h_prev·H (what layers.GRU builds: ONNX's GRU with linear_before_reset=0), or None."""
    from ..core.fused_recurrence import _Resolver
    if len(loop.delays) != 1 or loop.delays[0]._attributes.get("time_step") != 1:
        return None
    delay = loop.delays[0]
    shape = delay._outputs[0]._shape
    h = _Resolver(loop).expr(delay._inputs[0])
    if shape is None or len(shape) != 1 or h.algebra != "add" or len(h.args) != 2:
        return None
    dim = shape[0]
    z = candidate = None
    for term in h.args:
        if term.algebra != "mul" or len(term.args) != 2:
            return None
        a, b = term.args
        if _is_delay(b, delay) or _is_delay(a, delay):
            z = a if _is_delay(b, delay) else b
        else:
            one_minus = a if a.algebra == "sub" else b
            candidate = b if one_minus is a else a
            if one_minus.algebra != "sub" or len(one_minus.args) != 2:
                return None
            one = one_minus.args[0].var
            if one is None or not (one.is_constant or one.is_parameter) or np.any(np.asarray(one.value) != 1):
                return None
            z_again = one_minus.args[1]
    if z is None or candidate is None or z.algebra != "sigmoid" or z_again.node is not z.node:
        return None
    if candidate.algebra not in _RNN_ACTIVATIONS or len(candidate.args) != 1:
        return None
    parts = {}

    def gate_sum(e, k):
        """e = block k of from_x + block k of from_h (sigmoid's argument)."""
        if e.algebra != "add" or len(e.args) != 2:
            return False
        for t in e.args:
            found = _block_of(t, dim)
            if found is None or found[0] != k:
                return False
            side = "h" if found[1].in_loop else "x"
            if _identity(parts.setdefault(side, found[1])) is not _identity(found[1]):
                return False
        return True

    if not gate_sum(z.args[0], 0):
        return None
    c_in = candidate.args[0]
    if c_in.algebra != "add" or len(c_in.args) != 2:
        return None
    r = H1 = None
    for t in c_in.args:
        found = _block_of(t, dim)
        if found is not None and found[0] == 2 and _identity(found[1]) is _identity(parts["x"]):
            continue
        if t.algebra == "matmul" and t.node._attributes.get("output_rank") == 1:
            left, H1 = t.args[0], _leaf_matrix(t.args[1])
            if left.algebra != "mul" or len(left.args) != 2:
                return None
            r = left.args[0] if _is_delay(left.args[1], delay) else left.args[1] if _is_delay(left.args[0], delay) \
                else None
        else:
            return None
    if r is None or H1 is None or r.algebra != "sigmoid" or not gate_sum(r.args[0], 1):
        return None
    from_x, from_h = parts["x"], parts["h"]
    if from_h.algebra != "matmul" or not _is_delay(from_h.args[0], delay):
        return None
    H = _leaf_matrix(from_h.args[1])
    x = W = bias = None
    if from_x.algebra == "add":
        terms = [(t.algebra, t.var, t.args) for t in from_x.args]
    elif from_x.algebra is None and from_x.var is not None and from_x.var.is_output and \
            from_x.var.owner._op.algebra == "add":  # b + x·W computed outside the loop
        terms = []
        for v in from_x.var.owner._inputs:
            if v.is_output and v.owner._op.algebra == "matmul" and \
                    v.owner._attributes.get("output_rank") == 1:
                terms.append(("matmul", v, list(v.owner._inputs)))
            else:
                terms.append((None, v, ()))
    else:
        return None
    for algebra, var, args in terms:
        if algebra == "matmul" and x is None:
            x, W = (args[0].var, args[1].var) if hasattr(args[0], "var") else (args[0], args[1])
            if W is None or W._n_dynamic or W._shape is None or len(W._shape) != 2:
                return None
        elif algebra is None and var is not None and not var._n_dynamic and bias is None:
            bias = var
        else:
            return None
    if x is None or W is None or H is None or x._sequence_axis is None or x._shape is None or len(x._shape) != 1:
        return None
    if tuple(W._shape) != (x._shape[0], 3 * dim) or tuple(H._shape) != (dim, 2 * dim) or \
            tuple(H1._shape) != (dim, dim) or (bias is not None and int(np.prod(bias._shape)) != 3 * dim):
        return None
    return _GRUMatch(delay, x, W, H, H1, bias, dim, _RNN_ACTIVATIONS[candidate.algebra])


def _node_inputs(node):
    if node._block_root is not None:
        return [outer for _, outer in node._block_arguments]
    return node._inputs


def _lead(v):
    """How many leading ONNX axes the dynamic axes take."""
    return int(v.has_sequence_axis()) + int(v.has_batch_axis())


def _elem(v):
    return _ELEM[np.dtype(v.dtype)]


def _static_axis(axis, v):
    rank = len(v.shape)
    k = int(axis)
    if k < 0:
        k += rank
    if not 0 <= k < rank:
        raise NotExpressible("axis %s outside a rank-%d operand" % (axis, rank))
    return k + _lead(v)


# -------------------------------------------------------------------------------------------- emitters
# emit(writer, function, input names, output names, base name)

def _simple(op_type, **fixed):
    def emit(w, fn, ins, outs, base):
        w.node(op_type, ins, outs, base, **fixed)
    return emit


def _with_attrs(op_type, mapping):
    def emit(w, fn, ins, outs, base):
        a = fn._attributes
        w.node(op_type, ins, outs, base, **{k: float(a[src]) for k, src in mapping.items()})
    return emit


def _steepness_one(op_type):
    def emit(w, fn, ins, outs, base):
        if float(fn._attributes.get("steepness", 1.0)) != 1.0:
            raise NotExpressible("steepness %s (ONNX %s has none)" % (fn._attributes["steepness"], op_type))
        w.node(op_type, ins, outs, base)
    return emit


def _to_float(w, fn, src, out, base):
    w.node("Cast", [src], [out], base + "_cast", to=_elem(fn._outputs[0]))


def _compare(op_type, negate=False):
    def emit(w, fn, ins, outs, base):
        t = w.temp(base + "_bool")
        if op_type == "Equal":  # opset 9's Equal takes integers: compare a - b with 0 through Not(a < b or a > b)
            lt, gt, ne = w.temp(base + "_lt"), w.temp(base + "_gt"), w.temp(base + "_ne")
            w.node("Less", ins, [lt], base)
            w.node("Greater", ins, [gt], base + "_gt")
            w.node("Or", [lt, gt], [ne], base + "_or")
            if negate:
                t = ne
            else:
                w.node("Not", [ne], [t], base + "_not")
        elif negate:
            u = w.temp(base + "_strict")
            w.node(op_type, ins, [u], base)
            w.node("Not", [u], [t], base + "_not")
        else:
            w.node(op_type, ins, [t], base)
        _to_float(w, fn, t, outs[0], base)
    return emit


def _logical(op_type):
    def emit(w, fn, ins, outs, base):
        bools = []
        for k, i in enumerate(ins):
            b = w.temp("%s_in%d_bool" % (base, k))
            w.node("Cast", [i], [b], "%s_in%d" % (base, k), to=9)
            bools.append(b)
        t = w.temp(base + "_bool")
        w.node(op_type, bools, [t], base)
        _to_float(w, fn, t, outs[0], base)
    return emit


def _arg(op_type):
    def emit(w, fn, ins, outs, base):
        x = fn._inputs[0]
        axis = fn._attributes.get("axis")
        if axis is None:
            raise NotExpressible("%s over all axes" % op_type)
        t = w.temp(base + "_index")
        w.node(op_type, ins, [t], base, axis=_static_axis(axis, x), keepdims=1)
        _to_float(w, fn, t, outs[0], base)
    return emit


def _clip(w, fn, ins, outs, base):
    lo, hi = fn._inputs[1], fn._inputs[2]
    if not all(v.is_constant or v.is_parameter for v in (lo, hi)) or np.size(lo.value) != 1 or np.size(hi.value) != 1:
        raise NotExpressible("Clip bounds must be scalar constants in opset 9")
    w.node("Clip", [ins[0]], outs, base, min=float(np.asarray(lo.value).reshape(())),
           max=float(np.asarray(hi.value).reshape(())))


def _splice(w, fn, ins, outs, base):
    out = fn._outputs[0]
    rank = len(out.shape)
    from ..ops.shaping import splice_axis
    axis = _static_axis(splice_axis(fn._attributes, fn._inputs), out) - _lead(out)
    names = []
    for v, name in zip(fn._inputs, ins):
        padded = (1,) * (rank - len(v.shape)) + tuple(v.shape)
        if len(v.shape) != rank:  # the operand's missing leading static axes, of size 1
            t = w.temp(base + "_rank")
            w.node("Unsqueeze", [name], [t], base + "_rank", axes=list(range(_lead(v), _lead(v) + rank - len(v.shape))))
            name = t
        wanted = tuple(padded[k] if k == axis else d for k, d in enumerate(out.shape))
        if padded != wanted:  # a broadcasting splice: CNTK 2.7 adds zeros of the wanted shape first
            if any(d < 0 for d in wanted):
                raise NotExpressible("a broadcasting splice over free dimensions")
            zeros = w.constant(np.zeros((1,) * _lead(v) + wanted, v.dtype), base + "_broadcast")
            t = w.temp(base + "_broadcasted")
            w.node("Add", [name, zeros], [t], base + "_broadcast")
            name = t
        if _lead(v) != _lead(out):
            if out.has_sequence_axis() or _lead(v):
                raise NotExpressible("splice of a sequence with a tensor without the sequence axis")
            t = w.temp(base + "_batched")  # the batch axis of the layout has size 1
            w.node("Unsqueeze", [name], [t], base + "_batched", axes=[0])
            name = t
        names.append(name)
    w.node("Concat", names, outs, base, axis=_lead(out) + axis)


def _reshape_to(w, src, v, out, base):
    dims = [0] * _lead(v) + [d if d >= 0 else -1 for d in v.shape]
    if dims.count(-1) > 1:
        raise NotExpressible("reshape to a shape with more than one free dimension")
    shape = w.constant(np.asarray(dims, np.int64), base + "_shape")
    w.node("Reshape", [src, shape], [out], base)


def _reshape(w, fn, ins, outs, base):
    x, out = fn._inputs[0], fn._outputs[0]
    a = fn._attributes
    rank = len(x.shape)
    b = a.get("begin_axis")
    e = a.get("end_axis")
    b = 0 if b is None else (b + rank if b < 0 else b)
    e = rank if e is None else (e + rank if e < 0 else e)
    middle = list(out.shape[b:len(out.shape) - (rank - e)])
    suffix = list(x.shape[e:])
    lead = _lead(x)
    if b == e and all(d == 1 for d in middle):  # inserting axes of size 1
        w.node("Unsqueeze", ins, outs, base, axes=list(range(lead + b, lead + b + len(middle))))
        return
    if not middle and all(d == 1 for d in x.shape[b:e]):  # dropping axes of size 1
        w.node("Squeeze", ins, outs, base, axes=list(range(lead + b, lead + e)))
        return
    # axes outside the reshaped range are copied (0) where they keep their index, free dimensions included
    dims = [0] * (_lead(x) + b) + [d if d >= 0 else -1 for d in middle]
    dims += [0] * len(suffix) if b + len(middle) == e else suffix
    if dims.count(-1) > 1 or any(d < -1 for d in dims) or (b + len(middle) != e and any(d < 0 for d in suffix)):
        raise NotExpressible("reshape to a shape with more than one free dimension")
    shape = w.constant(np.asarray(dims, np.int64), base + "_shape")
    w.node("Reshape", [ins[0], shape], outs, base)


def _transpose(w, fn, ins, outs, base):
    from ..ops.shaping import transpose_perm
    lead = _lead(fn._inputs[0])
    perm = list(range(lead)) + [int(p) + lead for p in transpose_perm(fn._attributes, len(fn._inputs[0].shape))]
    w.node("Transpose", ins, outs, base, perm=perm)


def _slice(w, fn, ins, outs, base):
    a = fn._attributes
    x = fn._inputs[0]
    if any(int(s) != 1 for s in a["strides"]):
        raise NotExpressible("slice with strides (opset 9's Slice has none)")
    axes = []
    for ax in a["axes"]:
        if not isinstance(ax, (int, np.integer)) and getattr(ax, "_index", None) is None:
            raise NotExpressible("slice along a dynamic axis")
        axes.append(_static_axis(ax if isinstance(ax, (int, np.integer)) else ax._index, x))
    big = np.iinfo(np.int64).max
    ends = [int(e) if int(e) != 0 else big for e in a["ends"]]
    w.node("Slice", ins, outs, base, axes=axes, starts=[int(b) for b in a["begins"]], ends=ends)


def _squeeze(w, fn, ins, outs, base):
    x = fn._inputs[0]
    axes = fn._attributes.get("axes")
    if axes is None:
        axes = [k for k, d in enumerate(x.shape) if d == 1]
    w.node("Squeeze", ins, outs, base, axes=[_static_axis(k, x) for k in axes])


def _softmax_like(op_type):
    def emit(w, fn, ins, outs, base):
        x = fn._inputs[0]
        axis = fn._attributes.get("axis")
        rank = len(x.shape)
        if axis is not None:
            k = int(axis) + (rank if int(axis) < 0 else 0)
            if k != rank - 1:
                raise NotExpressible("%s over axis %s of a rank-%d operand (opset 9 normalizes trailing axes)"
                                     % (op_type, axis, rank))
            w.node(op_type, ins, outs, base, axis=_lead(x) + k)
        else:
            w.node(op_type, ins, outs, base, axis=_lead(x))
    return emit


_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin", "prod": "ReduceProd",
           "log_sum_exp": "ReduceLogSumExp", "l1": "ReduceL1", "l2": "ReduceL2", "sum_square": "ReduceSumSquare"}


def _reduce(w, fn, ins, outs, base):
    a = fn._attributes
    x = fn._inputs[0]
    op_type = _REDUCE[a["kind"]]
    src = ins[0]
    if a.get("all_dynamic"):  # every axis, the batch axis included: one scalar without dynamic axes
        if x.has_sequence_axis() or a["axes"] is not None:
            raise NotExpressible("a reduction over all axes of a sequence or with selected static axes")
        w.node(op_type, [src], outs, base, axes=list(range(_lead(x) + len(x.shape))), keepdims=0)
        return
    # over all static axes the result is a scalar per sample, whatever keepdims says (CNTK 2.7)
    keepdims = 1 if a.get("keepdims", True) and a["axes"] is not None else 0
    if a["axes"] is None:
        static = list(range(_lead(x), _lead(x) + len(x.shape)))
    else:
        static = [_static_axis(k, x) for k in a["axes"]]
    if a.get("batch"):
        if x.has_sequence_axis():
            raise NotExpressible("a reduction over the batch axis of a sequence")
        if static:
            t = w.temp(base + "_static")
            w.node(op_type, [src], [t], base + "_static", axes=static, keepdims=keepdims)
            src = t
        w.node(op_type, [src], outs, base, axes=[0], keepdims=0)
        return
    w.node(op_type, [src], outs, base, axes=static, keepdims=keepdims)


def _times(w, fn, ins, outs, base, transpose_right=False):
    x, W = fn._inputs[0], fn._inputs[1]
    out = fn._outputs[0]
    right = ins[1]
    w_shape = list(W.shape)
    if transpose_right and len(w_shape) == 1:  # x times the vector W: a matrix-vector product
        column, t = w.temp(base + "_column"), w.temp(base + "_product")
        w.node("Unsqueeze", [right], [column], base + "_column", axes=[_lead(W) + 1])
        w.node("MatMul", [ins[0], column], [t], base)
        _reshape_to(w, t, out, outs[0], base + "_reshape")
        return
    if transpose_right:
        if len(w_shape) != 2:
            raise NotExpressible("times_transpose of a rank-%d right operand" % len(w_shape))
        t = w.temp(base + "_right_T")
        w.node("Transpose", [right], [t], base + "_transpose", perm=list(range(_lead(W))) +
               [_lead(W) + 1, _lead(W)])
        right, w_shape = t, [w_shape[1], w_shape[0]]
        output_rank = 1
    else:
        output_rank = int(fn._attributes.get("output_rank", 1))
    if _lead(W) and (_lead(W) != 1 or W.has_sequence_axis()):
        raise NotExpressible("times with a sequence as the right operand")
    contracted = len(w_shape) - output_rank
    if any(d < 0 for d in w_shape) or contracted < 1:
        raise NotExpressible("times with an operand of unknown shape")
    k = int(np.prod(w_shape[:contracted]))
    n = int(np.prod(w_shape[contracted:]))
    kept = list(x.shape[:len(x.shape) - contracted])
    left = ins[0]
    if contracted != 1 or len(kept) != len(x.shape) - 1:
        left = w.temp(base + "_left")
        shape = w.constant(np.asarray([0] * _lead(x) + [d if d >= 0 else -1 for d in kept] + [k], np.int64),
                           base + "_left_shape")
        w.node("Reshape", [ins[0], shape], [left], base + "_left")
    if len(w_shape) != 2:
        r = w.temp(base + "_right")
        shape = w.constant(np.asarray([0] * _lead(W) + [k, n], np.int64), base + "_right_shape")
        w.node("Reshape", [right, shape], [r], base + "_right")
        right = r
    if list(out.shape) == kept + [n]:
        w.node("MatMul", [left, right], outs, base)
        return
    t = w.temp(base + "_product")
    w.node("MatMul", [left, right], [t], base)
    _reshape_to(w, t, out, outs[0], base + "_reshape")


def _transpose_times(w, fn, ins, outs, base):
    _times(w, fn, ins, outs, base, transpose_right=True)


def _select(w, fn, ins, outs, base):
    b = w.temp(base + "_flag")
    w.node("Cast", [ins[0]], [b], base + "_flag", to=9)
    w.node("Where", [b, ins[1], ins[2]], outs, base)


def _dropout(w, fn, ins, outs, base):
    w.node("Dropout", ins, outs, base, ratio=float(fn._attributes.get("dropoutRate", 0.0)))


def _pad(w, fn, ins, outs, base):
    a = fn._attributes
    x = fn._inputs[0]
    mode = {"constant": "constant", "reflect": "reflect"}.get(a["mode"])
    if mode is None:
        raise NotExpressible("pad mode %s (ONNX has constant, reflect, edge)" % a["mode"])
    pattern = list(a["pattern"])
    pattern = [(0, 0)] * (len(x.shape) - len(pattern)) + pattern
    lead = _lead(x)
    pads = [0] * lead + [int(p[0]) for p in pattern] + [0] * lead + [int(p[1]) for p in pattern]
    w.node("Pad", ins, outs, base, mode=mode, pads=pads, value=float(a.get("constant_value", 0.0)))


def _geometry(fn, x_spatial, kernel, strides, auto, ceil_out=False, dilation=None):
    from ..ops._geometry import axis_geometry, per_axis
    a = fn._attributes
    if a.get("lower_pad") is not None or a.get("upper_pad") is not None:
        lows = per_axis(a.get("lower_pad") or (0,), len(kernel), "lower_pad", "onnx")
        highs = per_axis(a.get("upper_pad") or (0,), len(kernel), "upper_pad", "onnx")
    else:
        lows = highs = (0,) * len(kernel)
    dilation = dilation or (1,) * len(kernel)
    begins, ends = [], []
    for n, k, s, d, ap, lo, hi in zip(x_spatial, kernel, strides, dilation, auto, lows, highs):
        out, lo, hi = axis_geometry(n, k, s, d, ap, lo, hi, ceil_out)
        if n < 0:
            raise NotExpressible("a free spatial dimension")
        ke = (k - 1) * d + 1
        if hi < 0 and (n + lo - ke) // s + 1 == out:
            hi = 0
        if lo < 0 or hi < 0:
            raise NotExpressible("a window geometry that crops the input")
        begins.append(lo)
        ends.append(hi)
    return begins + ends


def _batch_op_input(fn, x):
    if _lead(x) != 1 or not x.has_batch_axis():
        raise NotExpressible("%s needs an operand with a batch axis and no sequence axis (ONNX's N axis)"
                             % fn._op.name)


def _pooling(w, fn, ins, outs, base):
    from ..ops._geometry import per_axis
    a = fn._attributes
    x = fn._inputs[0]
    _batch_op_input(fn, x)
    if a["window"] is None:  # global pooling
        w.node("GlobalMaxPool" if a["pooling_type"] == 0 else "GlobalAveragePool", ins, outs, base)
        return
    window = tuple(int(k) for k in a["window"])
    rank = len(x.shape)
    if len(window) == rank:
        if window[0] != 1:
            raise NotExpressible("pooling across the channel axis")
        window = window[1:]
    if len(window) != rank - 1:
        raise NotExpressible("a %d-d pooling window over a rank-%d operand" % (len(window), rank))
    strides = per_axis(a["strides"], rank, "strides", "pooling")[1:]
    auto = per_axis(a["auto_padding"], rank, "auto_padding", "pooling")[1:]
    pads = _geometry(fn, x.shape[1:], window, strides, auto, a.get("ceil_out_dim", False))
    if a["pooling_type"] == 0:
        w.node("MaxPool", ins, outs, base, kernel_shape=list(window), strides=list(strides), pads=pads)
    else:
        w.node("AveragePool", ins, outs, base, kernel_shape=list(window), strides=list(strides), pads=pads,
               count_include_pad=1 if a.get("include_pad") else 0)


def _convolution(w, fn, ins, outs, base):
    from ..ops._geometry import per_axis
    a = fn._attributes
    W, x = fn._inputs
    _batch_op_input(fn, x)
    if int(a.get("reduction_rank", 1)) != 1:
        raise NotExpressible("convolution with reduction_rank %s" % a.get("reduction_rank"))
    rank = len(x.shape)
    kernel_name = ins[0]
    if len(W.shape) == rank and (W.is_constant or W.is_parameter):  # CNTK's kernel without the output axis
        kernel_name = w.constant(np.asarray(W.value)[None], base + "_W")
        w_shape = (1,) + tuple(W.shape)
    elif len(W.shape) == rank + 1:
        w_shape = tuple(W.shape)
    else:
        raise NotExpressible("a kernel of shape %s over an operand of shape %s" % (W.shape, x.shape))
    if fn._outputs[0].shape[0] != w_shape[0]:  # auto padding over the channel axis moves the kernel along it
        raise NotExpressible("a convolution along the channel axis (auto_padding covering it)")
    kernel = tuple(w_shape[2:])
    strides = per_axis(a["strides"], rank, "strides", "convolution")[1:]
    dilation = per_axis(a.get("dilation", (1,)), rank, "dilation", "convolution")[1:]
    auto = per_axis(a["auto_padding"], rank, "auto_padding", "convolution")[1:]
    pads = _geometry(fn, x.shape[1:], kernel, strides, auto, dilation=dilation)
    attrs = dict(kernel_shape=list(kernel), strides=list(strides), dilations=list(dilation), pads=pads,
                 group=int(a.get("groups", 1)))
    if len(w_shape) == len(W.shape):
        w.node("Conv", [ins[1], kernel_name], outs, base, **attrs)
        return
    t = w.temp(base + "_conv")
    w.node("Conv", [ins[1], kernel_name], [t], base, **attrs)
    _reshape_to(w, t, fn._outputs[0], outs[0], base + "_reshape")


def _square(w, fn, ins, outs, base):
    w.node("Mul", [ins[0], ins[0]], outs, base)


def _expand_dims(w, fn, ins, outs, base):
    from ..ops.shaping import expand_dims_position
    out = fn._outputs[0]
    position = expand_dims_position(fn._attributes["axis"], len(fn._inputs[0].shape))
    w.node("Unsqueeze", ins, outs, base, axes=[_static_axis(position, out)])


def _convolution_transpose(w, fn, ins, outs, base):
    """ONNX's ConvTranspose with explicit pads (as CNTK 2.7 wrote it): the full transposed convolution cropped by
    the lower pad to the output size; an output longer than the full one is padded by output_padding."""
    from ..ops.convolution import _transpose_prepare
    W, x = fn._inputs
    _batch_op_input(fn, x)
    if int(fn._attributes.get("reduction_rank", 1)) != 1 or len(W.shape) != len(x.shape) + 1:
        raise NotExpressible("a kernel of shape %s over an operand of shape %s" % (W.shape, x.shape))
    if any(d < 0 for d in x.shape):
        raise NotExpressible("a free spatial dimension")
    p = _transpose_prepare(fn)
    kernel = tuple(W.shape[2:])
    lows, highs, extra = [], [], []
    for n, k, s, d, lo, m in zip(x.shape[1:], kernel, p["strides"], p["dilation"], p["los"], p["out_spatial"]):
        hi = (n - 1) * s + (k - 1) * d + 1 - lo - m
        if lo < 0:
            raise NotExpressible("a transposed convolution whose output starts before the full one")
        lows.append(int(lo))
        highs.append(int(max(hi, 0)))
        extra.append(int(max(-hi, 0)))
    attrs = dict(kernel_shape=list(kernel), strides=[int(s) for s in p["strides"]],
                 dilations=[int(d) for d in p["dilation"]], pads=lows + highs, group=1)
    if not any(extra):
        w.node("ConvTranspose", [ins[1], ins[0]], outs, base, **attrs)
    elif all(e < max(s, d) for e, s, d in zip(extra, attrs["strides"], attrs["dilations"])):
        w.node("ConvTranspose", [ins[1], ins[0]], outs, base, output_padding=extra, **attrs)
    else:  # onnxruntime takes output_padding below the stride only: zeros after the full output instead
        t = w.temp(base + "_full")
        w.node("ConvTranspose", [ins[1], ins[0]], [t], base + "_full", **attrs)
        w.node("Pad", [t], outs, base, pads=[0] * (2 + len(extra)) + [0, 0] + extra)


def _crop(w, fn, ins, outs, base):
    """crop_manual as CNTK 2.7 wrote it: ONNX's (experimental, opset 1) Crop with border [left, top, right,
    bottom] over an NCHW tensor; onnxruntime runs it, current onnx.checker no longer knows it."""
    from ..ops.crop import _crop_prepare
    x = fn._inputs[0]
    _batch_op_input(fn, x)
    if len(x.shape) != 3 or any(d < 0 for d in x.shape):
        raise NotExpressible("crop of an operand of shape %s (ONNX's Crop takes channels x height x width)"
                             % (x.shape,))
    p = _crop_prepare(fn)
    height, width = x.shape[1:]
    w.node("Crop", [ins[0]], outs, base, border=[p["left"], p["top"], width - p["left"] - p["width"],
                                                 height - p["top"] - p["height"]])


def _batch_normalization(w, fn, ins, outs, base):
    a = fn._attributes
    x, scale, bias, mean, var = fn._inputs[:5]
    _batch_op_input(fn, x)
    names = list(ins[1:5])
    if not a.get("spatial"):
        # per-element statistics: ONNX's are per channel, so flatten the sample into the channel axis
        flat = w.temp(base + "_flat")
        shape = w.constant(np.asarray([0, -1], np.int64), base + "_flat_shape")
        w.node("Reshape", [ins[0], shape], [flat], base + "_flat")
        names = [w.constant(np.asarray(v.value).reshape(-1), "%s_%s" % (base, tag))
                 for v, tag in zip((scale, bias, mean, var), ("scale", "bias", "mean", "var"))]
        t = w.temp(base + "_normalized")
        w.node("BatchNormalization", [flat] + names, [t], base, epsilon=float(a.get("epsilon", 1e-5)))
        _reshape_to(w, t, fn._outputs[0], outs[0], base + "_unflat")
        return
    names = [w.constant(np.asarray(v.value).reshape(-1), "%s_%s" % (base, tag))
             for v, tag in zip((scale, bias, mean, var), ("scale", "bias", "mean", "var"))]
    w.node("BatchNormalization", [ins[0]] + names, outs, base, epsilon=float(a.get("epsilon", 1e-5)))


def _lrn(w, fn, ins, outs, base):
    a = fn._attributes
    _batch_op_input(fn, fn._inputs[0])
    size = 2 * int(a["depth_radius"]) + 1
    w.node("LRN", ins, outs, base, size=size, alpha=float(a["alpha"]), beta=float(a["beta"]),
           bias=float(a["bias"]))


def _depth_space(op_type):
    def emit(w, fn, ins, outs, base):
        _batch_op_input(fn, fn._inputs[0])
        w.node(op_type, ins, outs, base, blocksize=int(fn._attributes["block_size"]))
    return emit


def _cast(w, fn, ins, outs, base):
    w.node("Cast", ins, outs, base, to=_elem(fn._outputs[0]))


def _constant_like(w, fn, ins, outs, base):
    zero = w.temp(base + "_zero")
    w.node("Mul", [ins[0], w.constant(np.zeros((), fn._outputs[0].dtype), base + "_0")], [zero], base + "_zero")
    w.node("Add", [zero, w.constant(np.full((), fn._attributes["value"], fn._outputs[0].dtype), base + "_value")],
           outs, base)


def _log_plus(w, fn, ins, outs, base):
    # log(exp(a) + exp(b)) = max + log(1 + exp(-|a - b|)), stable for large operands
    m, d, ad, n, e, one, l = (w.temp(base + s) for s in ("_max", "_diff", "_absdiff", "_neg", "_exp", "_1p", "_log"))
    w.node("Max", ins, [m], base + "_max")
    w.node("Sub", ins, [d], base + "_diff")
    w.node("Abs", [d], [ad], base + "_abs")
    w.node("Neg", [ad], [n], base + "_neg")
    w.node("Exp", [n], [e], base + "_exp")
    w.node("Add", [e, w.constant(np.ones((), fn._outputs[0].dtype), base + "_one")], [one], base + "_1p")
    w.node("Log", [one], [l], base + "_log")
    w.node("Add", [m, l], outs, base)


def _prelu(w, fn, ins, outs, base):
    w.node("PRelu", [ins[1], ins[0]], outs, base)


def _gather(w, fn, ins, outs, base):
    """CNTK 2.7's layout: the reference's axis swapped to the front (Transpose), Gather along axis 0, and the
    result's first axis swapped back (Transpose), as CNTK's GatherOp block computes it."""
    from ..ops.misc import gather_axes
    data, indices = fn._inputs
    axis = fn._attributes.get("axis")
    if _lead(data):
        raise NotExpressible("gather from an operand with dynamic axes")
    a, b = (0, 0) if axis is None else gather_axes(len(data.shape), len(indices.shape), axis,
                                                   fn._attributes.get("from_end", False))
    src = ins[0]
    if a:
        src = w.temp(base + "_swapped")
        w.node("Transpose", [ins[0]], [src], base + "_swap", perm=_swap(len(data.shape), 0, a))
    idx = w.temp(base + "_indices")
    w.node("Cast", [ins[1]], [idx], base + "_indices", to=7)
    if not b:
        w.node("Gather", [src, idx], outs, base, axis=0)
        return
    lead = _lead(indices)
    t = w.temp(base + "_gathered")
    w.node("Gather", [src, idx], [t], base + "_gather", axis=0)
    w.node("Transpose", [t], outs, base, perm=_swap(lead + len(fn._outputs[0].shape), lead, lead + b))


def _swap(rank, i, j):
    perm = list(range(rank))
    perm[i], perm[j] = perm[j], perm[i]
    return perm


def _top_k(w, fn, ins, outs, base):
    a = fn._attributes
    x = fn._inputs[0]
    axis = int(a.get("axis", -1))
    indices = w.temp(base + "_indices")
    w.node("TopK", ins, [outs[0], indices], base, k=int(a["k"]), axis=_static_axis(axis, x))
    w.node("Cast", [indices], [outs[1]], base + "_cast", to=_elem(fn._outputs[1]))


def _eye_like(w, fn, ins, outs, base):
    if fn._attributes.get("sparse_output"):
        raise NotExpressible("eye_like with sparse output")
    w.node("EyeLike", ins, outs, base)


def _one_hot(w, fn, ins, outs, base):
    a = fn._attributes
    x, out = fn._inputs[0], fn._outputs[0]
    if a.get("sparse_output"):
        raise NotExpressible("one_hot with sparse output")
    axis = int(a.get("axis", -1))
    axis = -1 if axis in (-1, len(x.shape)) else _static_axis(axis, out) if axis >= 0 else axis
    depth = w.constant(np.asarray([int(a["num_classes"])], np.int64), base + "_depth")
    values = w.constant(np.asarray([0, 1], out.dtype), base + "_values")
    idx = w.temp(base + "_indices")
    w.node("Cast", [ins[0]], [idx], base + "_indices", to=7)
    w.node("OneHot", [idx, depth, values], outs, base, axis=axis)


def _mean_variance_normalization(w, fn, ins, outs, base):
    a = fn._attributes
    x = fn._inputs[0]
    _batch_op_input(fn, x)
    if not a.get("do_variance_scaling", True):
        raise NotExpressible("mean_variance_normalization without variance scaling (ONNX's always scales)")
    axes = [0] + list(range(1 if a.get("use_stats_across_channels") else 2, 1 + len(x.shape)))
    w.node("MeanVarianceNormalization", ins, outs, base, axes=axes)


def _sequence_input(fn):
    x = fn._inputs[0]
    if _lead(x) != 2:
        raise NotExpressible("%s of a tensor without batch and sequence axes" % fn._op.name)
    return x


def _sequence_first(w, fn, ins, outs, base):
    _sequence_input(fn)
    w.node("Gather", [ins[0], w.constant(np.asarray(0, np.int64), base + "_index")], outs, base, axis=0)


def _sequence_last(w, fn, ins, outs, base):
    _sequence_input(fn)
    t = w.temp(base + "_last")
    w.node("Slice", ins, [t], base, axes=[0], starts=[-1], ends=[np.iinfo(np.int64).max])
    w.node("Squeeze", [t], outs, base + "_squeeze", axes=[0])


def _sequence_reduce(op_type):
    def emit(w, fn, ins, outs, base):
        _sequence_input(fn)
        w.node(op_type, ins, outs, base, axes=[0], keepdims=0)
    return emit


def _sequence_slice(w, fn, ins, outs, base):
    _sequence_input(fn)
    a = fn._attributes
    begin, end = int(a["begin_index"]), int(a["end_index"])
    w.node("Slice", ins, outs, base, axes=[0], starts=[begin], ends=[end if end != 0 else np.iinfo(np.int64).max])


def _sequence_softmax(w, fn, ins, outs, base):
    _sequence_input(fn)
    m, d, e, total = (w.temp(base + t) for t in ("_max", "_shifted", "_exp", "_sum"))
    w.node("ReduceMax", ins, [m], base + "_max", axes=[0], keepdims=1)
    w.node("Sub", [ins[0], m], [d], base + "_shift")
    w.node("Exp", [d], [e], base + "_exp")
    w.node("ReduceSum", [e], [total], base + "_sum", axes=[0], keepdims=1)
    w.node("Div", [e, total], outs, base)


def _sequence_marker(first):
    """is_first / is_last: [Sequence, batch] zeros with a one at the first (last) step."""
    def emit(w, fn, ins, outs, base):
        x = _sequence_input(fn)
        big = np.iinfo(np.int64).max
        zero, zeros, edge, ones, rest = (w.temp(base + t) for t in ("_zero", "_zeros", "_edge", "_one", "_rest"))
        w.node("Mul", [ins[0], w.constant(np.zeros((), x.dtype), base + "_0")], [zero], base + "_times0")
        w.node("ReduceSum", [zero], [zeros], base + "_zeros", axes=list(range(2, 2 + len(x.shape))), keepdims=0) \
            if x.shape else w.node("Identity", [zero], [zeros], base + "_zeros")
        w.node("Slice", [zeros], [edge], base + "_edge", axes=[0], starts=[0 if first else -1],
               ends=[1 if first else big])
        w.node("Add", [edge, w.constant(np.ones((), x.dtype), base + "_1")], [ones], base + "_ones")
        w.node("Slice", [zeros], [rest], base + "_rest", axes=[0], starts=[1 if first else 0],
               ends=[big if first else -1])
        w.node("Concat", [ones, rest] if first else [rest, ones], outs, base, axis=0)
    return emit


def _batch_layout(lead_in, lead_out):
    """to_batch / unpack_batch: the layout keeps the batch axis as the leading ONNX axis, so the tensor is the same."""
    def emit(w, fn, ins, outs, base):
        x = fn._inputs[0]
        if x.has_sequence_axis() or _lead(x) != lead_in or _lead(fn._outputs[0]) != lead_out:
            raise NotExpressible("%s of a tensor with a sequence axis" % fn._op.name)
        w.node("Identity", ins, outs, base)
    return emit


def _swap_sequence_and_batch(lead_in):
    """to_sequence [batch, steps, ...] -> [Sequence, batch, ...] and sequence.unpack back (full sequences)."""
    def emit(w, fn, ins, outs, base):
        x = fn._inputs[0]
        if len(fn._inputs) > 1:
            raise NotExpressible("to_sequence with sequence lengths")
        if len(fn._outputs) > 1:
            raise NotExpressible("sequence.unpack with its mask output")
        if _lead(x) != lead_in or not x.has_batch_axis():
            raise NotExpressible("%s without a batch axis" % fn._op.name)
        rank = 2 + len(fn._outputs[0].shape) - (1 if lead_in == 2 else 0)
        w.node("Transpose", ins, outs, base, perm=[1, 0] + list(range(2, rank)))
    return emit


EMITTERS = {
    "SequenceFirst": _sequence_first, "SequenceSlice": _sequence_slice, "SequenceLast": _sequence_last,
    "SequenceReduceSum": _sequence_reduce("ReduceSum"), "SequenceReduceMax": _sequence_reduce("ReduceMax"),
    "SequenceSoftmax": _sequence_softmax, "SequenceIsFirst": _sequence_marker(True),
    "SequenceIsLast": _sequence_marker(False),
    "ToBatch": _batch_layout(0, 1), "UnpackBatch": _batch_layout(1, 0),
    "ToSequenceOp": _swap_sequence_and_batch(1), "UnpackSequence": _swap_sequence_and_batch(2),
    "Abs": _simple("Abs"), "Negate": _simple("Neg"), "Exp": _simple("Exp"), "Log": _simple("Log"),
    "Sqrt": _simple("Sqrt"), "Reciprocal": _simple("Reciprocal"), "Floor": _simple("Floor"), "Ceil": _simple("Ceil"),
    "Sigmoid": _simple("Sigmoid"), "Tanh": _simple("Tanh"), "ReLU": _simple("Relu"), "Sin": _simple("Sin"),
    "Cos": _simple("Cos"), "Tan": _simple("Tan"), "Asin": _simple("Asin"), "Acos": _simple("Acos"),
    "Atan": _simple("Atan"), "Sinh": _simple("Sinh"), "Cosh": _simple("Cosh"), "Asinh": _simple("Asinh"),
    "Atanh": _simple("Atanh"), "Alias": _simple("Identity"), "StopGradient": _simple("Identity"),
    "Softsign": _steepness_one("Softsign"), "Softplus": _steepness_one("Softplus"),
    "ELU": _with_attrs("Elu", {"alpha": "alpha"}), "SELU": _with_attrs("Selu", {"alpha": "alpha", "gamma": "scale"}),
    "LeakyReLU": _with_attrs("LeakyRelu", {"alpha": "alpha"}),
    "HardSigmoid": _with_attrs("HardSigmoid", {"alpha": "alpha", "beta": "beta"}),
    "Plus": _simple("Add"), "Minus": _simple("Sub"), "ElementTimes": _simple("Mul"), "ElementDivide": _simple("Div"),
    "Pow": _simple("Pow"), "ElementMax": _simple("Max"), "ElementMin": _simple("Min"),
    "Equal": _compare("Equal"), "NotEqual": _compare("Equal", negate=True), "Less": _compare("Less"),
    "Greater": _compare("Greater"), "GreaterEqual": _compare("Less", negate=True),
    "LessEqual": _compare("Greater", negate=True),
    "ElementAnd": _logical("And"), "ElementOr": _logical("Or"), "ElementXor": _logical("Xor"),
    "ElementNot": _logical("Not"), "Argmax": _arg("ArgMax"), "Argmin": _arg("ArgMin"), "Clip": _clip,
    "Splice": _splice, "Reshape": _reshape, "Transpose": _transpose, "Slice": _slice, "Squeeze": _squeeze,
    "Softmax": _softmax_like("Softmax"), "LogSoftmax": _softmax_like("LogSoftmax"),
    "Hardmax": _softmax_like("Hardmax"), "Times": _times, "TransposeTimes": _transpose_times, "Select": _select,
    "Dropout": _dropout, "Pad": _pad, "Pooling": _pooling, "Convolution": _convolution,
    "ConvolutionTranspose": _convolution_transpose, "Crop": _crop, "Square": _square, "ExpandDims": _expand_dims,
    "BatchNormalization": _batch_normalization, "LocalResponseNormalization": _lrn,
    "DepthToSpace": _depth_space("DepthToSpace"), "SpaceToDepth": _depth_space("SpaceToDepth"), "Cast": _cast,
    "ConstantLike": _constant_like, "LogPlus": _log_plus, "PReLU": _prelu, "Gather": _gather,
    "MeanVarianceNormalization": _mean_variance_normalization, "OneHot": _one_hot, "TopK": _top_k, "EyeLikeOp": _eye_like,
}
for _kind, _op in (("sum", "ReduceSum"), ("mean", "ReduceMean"), ("max", "ReduceMax"), ("min", "ReduceMin"),
                   ("prod", "ReduceProd"), ("log_sum_exp", "ReduceLogSum"), ("l1", "ReduceL1"), ("l2", "ReduceL2"),
                   ("sum_square", "ReduceSumSquare")):
    EMITTERS[_op] = _reduce


def model_proto(function):
    """The ONNX ModelProto of ``function`` (NotExpressible names what has no mapping)."""
    onnx = _onnx()
    w = _Writer()
    outputs = list(function.outputs)
    module = function.torch_module(list(function.arguments))
    w.paths = {id(t): name for name, t in list(module.named_parameters()) + list(module.named_buffers())}
    for arg in function.arguments:
        w.value(arg)
    w.find_loops(outputs)
    for fn in primitive_nodes(outputs, into_blocks=False):
        w.function(fn)
    graph_outputs = []
    for o in outputs:
        name = w.names[id(o)] if o.is_output else w.value(o)
        if o.is_output and o.owner.name and not name.startswith(o.owner.name):
            name = w.rename(name, o.owner.name + "_Output")  # a block's output carries the block's name
        if name in {i.name for i in w.inputs} or name in {i.name for i in w.initializers} or \
                name in {g.name for g in graph_outputs}:
            alias = w.unique(name + "_output")
            w.node("Identity", [name], [alias], alias)
            name = alias
            w.uid_names[o.uid] = alias
        graph_outputs.append(w.value_info(name, o))
    needed = {o.name for o in graph_outputs}  # drop what no output reads (e.g. x·W an LSTM node took over)
    kept = []
    for n in reversed(w.nodes):
        if any(o in needed for o in n.output):
            kept.append(n)
            needed.update(n.input)
    w.nodes = kept[::-1]
    used = {i for n in w.nodes for i in n.input} | {o.name for o in graph_outputs}
    initializers = [i for i in w.initializers if i.name in used]  # e.g. BatchNormalization's running count
    doc = "<<<Uid, ONNXNodeName>>> pair: " + " ".join("<<<%s, %s>>>" % kv for kv in w.uid_names.items())
    graph = onnx.helper.make_graph(w.nodes, function.name or "CNTKGraph", w.inputs, graph_outputs,
                                   initializer=initializers, doc_string=doc)
    model = onnx.helper.make_model(graph, producer_name="cntk-compat", opset_imports=[
        onnx.helper.make_opsetid("", OPSET)])
    model.ir_version = 4 if OPSET <= 9 else model.ir_version
    return model
