"""Which Caffe layers convert to which uniform-model ops, and access to Caffe's message classes."""
from ...unimodel.cntkmodel import CntkLayerType

# Caffe layer type (Eltwise qualified by its operation) -> uniform op
CAFFE_LAYER_WRAPPER = {
    'Convolution': CntkLayerType.convolution,
    'BatchNorm': CntkLayerType.batch_norm,
    'ReLU': CntkLayerType.relu,
    'Pooling': CntkLayerType.pooling,
    'Eltwise_SUM': CntkLayerType.plus,
    'InnerProduct': CntkLayerType.dense,
    'Softmax': CntkLayerType.softmax,
    'Concat': CntkLayerType.splice,
    'SoftmaxWithLoss': CntkLayerType.cross_entropy_with_softmax,
    'Accuracy': CntkLayerType.classification_error,
    'Dropout': CntkLayerType.dropout,
    'LRN': CntkLayerType.lrn,
    'PSROIPooling': CntkLayerType.psroi_pooling,
}


def singleton(class_):
    """Class decorator: the class's first instance is returned by every later construction."""
    made = []

    def _instance(*args, **kwargs):
        if not made:
            made.append(class_(*args, **kwargs))
        return made[0]
    _instance.__doc__ = class_.__doc__
    return _instance


@singleton
class CaffeResolver(object):
    """Caffe's message classes: those of an installed pycaffe when it imports (then ``caffe`` is that module and
    :meth:`runtime` is true, which validation needs), otherwise the converter's own description of the schema
    (:mod:`.caffe_pb2`). ``net`` and ``solver`` are the NetParameter and SolverParameter classes."""

    def __init__(self):
        self.caffe = None
        self.caffepb = None
        self.net = None
        self.solver = None
        self._runtime_support()

    def _runtime_support(self):
        try:
            import caffe  # noqa: F401  (optional)
            self.caffe = caffe
            self.caffepb = caffe.proto.caffe_pb2
        except ImportError:
            from . import caffe_pb2
            self.caffepb = caffe_pb2
        self.net = self.caffepb.NetParameter
        self.solver = self.caffepb.SolverParameter

    def runtime(self):
        """Whether a Caffe runtime (pycaffe) is importable."""
        return self.caffe is not None
