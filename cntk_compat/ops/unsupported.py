"""CNTK ops whose native kernels have no counterpart here: they raise a NotImplementedError naming the op."""


def _unsupported(op, why):
    raise NotImplementedError("%s is not supported by cntk-compat: %s" % (op, why))


def labels_to_graph(labels, name=''):
    _unsupported("labels_to_graph", "CNTK's forward-backward (CTC) criterion is not implemented; compute CTC with "
                 "torch.nn.functional.ctc_loss inside a UserFunction")


def forward_backward(graph, features, blankTokenId, delayConstraint=-1, name=''):
    _unsupported("forward_backward", "CNTK's forward-backward (CTC) criterion is not implemented; compute CTC "
                 "with torch.nn.functional.ctc_loss inside a UserFunction")


def custom_proxy_op(custom_op, output_shape, output_data_type, *operands, **kw_name):
    _unsupported("custom_proxy_op", "proxy nodes exist only for CNTK's ONNX export of custom ops")
