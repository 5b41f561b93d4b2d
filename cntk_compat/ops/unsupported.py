"""CNTK ops whose native kernels have no counterpart here: they raise a NotImplementedError naming the op."""


def _unsupported(op, why):
    raise NotImplementedError("%s is not supported by cntk-compat: %s" % (op, why))


def custom_proxy_op(custom_op, output_shape, output_data_type, *operands, **kw_name):
    _unsupported("custom_proxy_op", "proxy nodes exist only for CNTK's ONNX export of custom ops")
