"""The uniform model: what an adapter reads out of a foreign network and :mod:`.cntkinstance` turns into CNTK
functions. Plain records; every field is set by the adapter (or by hand in tests)."""
from enum import Enum


class CntkParameters(object):
    """Base record of an op's settings (ops without settings use it as is)."""

    def __init__(self):
        pass


class CntkConvolutionParameters(CntkParameters):
    """Convolution: ``output`` channels, ``kernel``/``stride``/``dilation`` as [height, width], ``auto_pad``
    (same-size padding), ``need_bias``, ``group`` (channel groups)."""

    def __init__(self):
        super(CntkConvolutionParameters, self).__init__()
        self.output = 0
        self.stride = [0, 0]
        self.kernel = [0, 0]
        self.auto_pad = False
        self.scale_setting = [1, 1]
        self.bias_setting = [1, 1]
        self.need_bias = True
        self.dilation = [1, 1]
        self.group = 1


class CntkPoolingParameters(CntkParameters):
    """Pooling: ``kernel``/``stride`` as [height, width], ``auto_pad``, ``pooling_type`` (0 max, 1 average)."""

    def __init__(self):
        super(CntkPoolingParameters, self).__init__()
        self.stride = [0, 0]
        self.kernel = [0, 0]
        self.auto_pad = False
        self.pooling_type = 0


class CntkBatchNormParameters(CntkParameters):
    """Batch normalization (spatial), with its ``epsilon``."""

    def __init__(self):
        super(CntkBatchNormParameters, self).__init__()
        self.spatial = 2
        self.norm_time_const = 0
        self.blend_time_const = 0
        self.epsilon = 0.00001
        self.scale_setting = [1, 1]
        self.bias_setting = [1, 1]


class CntkDenseParameters(CntkParameters):
    """Fully connected layer: ``num_output`` units; ``transpose`` says the stored weights are laid out
    [output, input] (Caffe's default) and must be transposed into CNTK's [input, output]."""

    def __init__(self):
        super(CntkDenseParameters, self).__init__()
        self.num_output = 0
        self.scale_setting = [1, 1]
        self.bias_setting = [1, 1]
        self.transpose = False


class CntkSpliceParameters(CntkParameters):
    """Concatenation; ``axis`` counts the foreign (batch-first) axes, so 1 is the channel axis."""

    def __init__(self):
        super(CntkSpliceParameters, self).__init__()
        self.axis = 1


class CntkLRNParameters(CntkParameters):
    """Local response normalization across channels: ``kernel_size`` is the half window plus one
    ((local_size + 1) / 2), ``alpha``, ``beta``, ``k``."""

    def __init__(self):
        super(CntkLRNParameters, self).__init__()
        self.kernel_size = 5
        self.alpha = 1
        self.beta = 5
        self.k = 1


class CntkPSROIPoolingParameters(CntkParameters):
    """Position-sensitive ROI pooling: ``group_size`` bins per side, ``out_channel`` output maps."""

    def __init__(self):
        super(CntkPSROIPoolingParameters, self).__init__()
        self.group_size = 1
        self.out_channel = 1


class CntkLayerType(Enum):
    """The ops the uniform model knows; each name is also the :class:`.cntkinstance.ApiSetup` method (and the
    adapter's setup method) that handles it."""
    relu = 1
    convolution = 2
    pooling = 3
    batch_norm = 4
    plus = 5
    dense = 6
    splice = 7
    classification_error = 10
    cross_entropy_with_softmax = 11
    dropout = 12
    lrn = 13
    psroi_pooling = 14
    softmax = 15
    unknown = 100


class CntkTensorDefinition(object):
    """A blob: ``tensor`` its shape, ``data`` its values (flat, in the source's order)."""

    def __init__(self):
        self.tensor = [0]
        self.data = []


class CntkLayersDefinition(object):
    """One node: the names of its ``inputs``/``outputs``, ``op_name``, ``op_type`` (a :class:`CntkLayerType`),
    ``parameters`` (a ``Cntk*Parameters``), ``tensor`` (its output shape without the batch axis) and
    ``parameter_tensor`` (its learned blobs, :class:`CntkTensorDefinition` each, in the source's order)."""

    def __init__(self):
        self.inputs = []
        self.outputs = []
        self.op_name = None
        self.parameters = None
        self.op_type = CntkLayerType.unknown
        self.tensor = []
        self.parameter_tensor = []


class CntkSolver(object):
    """Training settings read from a foreign solver (recorded only; the converter does not train)."""

    def __init__(self):
        self.learning_rate = None
        self.max_epoch = None
        self.adjust_interval = None
        self.decrease_factor = None
        self.upper_limit = None
        self.minibatch_size = None
        self.weight_decay = None
        self.dropout = None
        self.number_to_show_result = None
        self.grad_update_type = None
        self.momentum = None


class CntkModelDescription(object):
    """A whole network: ``data_provider`` (input definitions), ``cntk_layers`` (name -> definition),
    ``cntk_sorted_layers`` (names in an order where inputs come first), ``model_name`` and ``solver``."""

    def __init__(self):
        self.data_provider = []
        self.cntk_layers = {}
        self.cntk_sorted_layers = []
        self.model_name = 'Untitled'
        self.solver = None
