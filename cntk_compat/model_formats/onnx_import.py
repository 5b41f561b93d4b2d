"""ONNX import: an ONNX model as a Function of this package's ops (initializers become Parameters).

Inputs are batch first; an input whose second axis is symbolic too is a sequence input. The nodes supported are
the dense, elementwise and activation ops a feed-forward network uses (the table below); any other node fails
the load naming it.
"""
import numpy as np

_FLOAT = {1: np.float32, 11: np.float64, 10: np.float16}


def _C():
    import cntk_compat
    return cntk_compat


def _attr(node, name, default=None):
    import onnx.helper
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _gemm(node, ins):
    C = _C()
    a, b = ins[0], ins[1]
    if _attr(node, "transA", 0):
        raise ValueError("Gemm with transA is not supported")
    if _attr(node, "transB", 0):
        b = _transpose_const(b)
    y = C.times(a, b)
    alpha, beta = _attr(node, "alpha", 1.0), _attr(node, "beta", 1.0)
    if alpha != 1.0:
        y = y * alpha
    if len(ins) > 2:
        c = ins[2] if beta == 1.0 else ins[2] * beta
        y = C.plus(y, c)
    return y


def _transpose_const(v):
    C = _C()
    if isinstance(v, C.Parameter) or isinstance(v, C.Constant):
        arr = np.ascontiguousarray(np.asarray(v.value).T)
        return C.Parameter(arr.shape, init=arr, name=v.name)
    return C.transpose(v, (1, 0))


def _matmul(node, ins):
    return _C().times(ins[0], ins[1])


def _softmax(node, ins):
    axis = _attr(node, "axis", -1)
    if axis != -1:
        raise ValueError("Softmax over axis %d (only the last axis) is not supported" % axis)
    return _C().softmax(ins[0], axis=-1)


def _reshape(node, ins):
    C = _C()
    x, target = ins
    if not isinstance(target, C.Constant):
        raise ValueError("Reshape to a computed shape is not supported")
    target = [int(d) for d in np.asarray(target.value).reshape(-1)]
    lead = 2 if x.dynamic_axes and any(a.is_sequence_axis for a in x.dynamic_axes) else 1
    if len(target) < lead or any(d not in (-1, 0) for d in target[:1]) or any(d < 0 for d in target[lead:]):
        raise ValueError("Reshape to %s: only reshapes that keep the batch (and sequence) axes are supported"
                         % (target,))
    return C.reshape(x, tuple(target[lead:]))


def _unary(name):
    return lambda node, ins: getattr(_C(), name)(ins[0])


def _binary(name):
    return lambda node, ins: getattr(_C(), name)(ins[0], ins[1])


OPS = {
    "Gemm": _gemm, "MatMul": _matmul, "Add": _binary("plus"), "Sub": _binary("minus"),
    "Mul": _binary("element_times"), "Div": _binary("element_divide"), "Relu": _unary("relu"),
    "Sigmoid": _unary("sigmoid"), "Tanh": _unary("tanh"), "Exp": _unary("exp"), "Log": _unary("log"),
    "Abs": _unary("abs"), "Neg": _unary("negate"), "Sqrt": _unary("sqrt"), "Softmax": _softmax,
    "Identity": _unary("alias"), "Reshape": _reshape, "Elu": _unary("elu"), "Softplus": _unary("softplus"),
}


def _shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    return [d.dim_value if d.HasField("dim_value") else None for d in dims]


def load(data, what):
    import onnx
    from onnx import numpy_helper
    C = _C()
    try:
        model = onnx.load_from_string(data)
    except Exception as e:
        raise ValueError("Function.load: %s is not a readable ONNX model (%s: %s)" % (what, type(e).__name__, e)) \
            from None
    graph = model.graph
    env = {}
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype.kind == "f":
            env[init.name] = C.Parameter(arr.shape, init=arr, dtype=arr.dtype, name=init.name)
        else:
            env[init.name] = C.Constant(arr, name=init.name)
    arguments = []
    for value in graph.input:
        if value.name in env:
            continue
        shape = _shape(value)
        dtype = _FLOAT.get(value.type.tensor_type.elem_type)
        if dtype is None or not shape or shape[0] is not None:
            raise ValueError("Function.load: %s: input %s must be a float tensor with a symbolic batch axis first"
                             % (what, value.name))
        if len(shape) > 1 and shape[1] is None:
            v = C.sequence.input_variable(tuple(shape[2:]), dtype=dtype, name=value.name)
        else:
            v = C.input_variable(tuple(shape[1:]), dtype=dtype, name=value.name)
        env[value.name] = v
        arguments.append(v)
    for node in graph.node:
        if node.op_type == "Constant":
            arr = numpy_helper.to_array(_attr(node, "value"))
            env[node.output[0]] = C.Constant(arr, name=node.output[0])
            continue
        build = OPS.get(node.op_type)
        if build is None:
            raise ValueError("Function.load: %s: ONNX node %s (%s) has no mapping to this package's ops"
                             % (what, node.name, node.op_type))
        try:
            result = build(node, [env[i] for i in node.input if i])
        except KeyError as e:
            raise ValueError("Function.load: %s: node %s reads %s, which is not defined" % (what, node.name, e)) \
                from None
        env[node.output[0]] = C.alias(result, name=node.output[0]) if node.output[0] in \
            {o.name for o in graph.output} else result
    outputs = [env[o.name] for o in graph.output]
    return C.combine(outputs) if len(outputs) > 1 else outputs[0]
