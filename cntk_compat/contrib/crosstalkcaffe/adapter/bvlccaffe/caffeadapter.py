"""Reading a Caffe network (``.prototxt``) and its weights (``.caffemodel``) into the uniform model.

The definition is parsed as text format, the weights as binary, both with :class:`.caffeimpl.CaffeResolver`'s
message classes; pycaffe is not needed. Each kept layer (by the configured phase and the layer's include/exclude
rules) becomes a :class:`~...unimodel.cntkmodel.CntkLayersDefinition` whose settings
:class:`SetupCaffeParameters` reads from the layer's ``<type>_param`` message, and whose output shape (channels,
height, width without the batch axis) is worked out as Caffe does, so the next layers can be set up. A ``Scale``
layer directly after a ``BatchNorm`` is folded into it (its scale and bias become the normalization's), ``Dropout``
layers become CNTK's dropout (an identity when evaluating). Any other layer type is refused with an error naming
the layer and its type.
"""
import math
import os
import sys
import time

import numpy as np
from google.protobuf import text_format

from ...unimodel import cntkmodel
from .. import baseadapter
from . import caffeimpl


def _format_to_list(target, rank, default_pad=0):
    """``target`` (a number or Caffe's repeated field) as a list of ``rank`` numbers: a number or a single entry
    is repeated, an empty field gives ``default_pad``."""
    if isinstance(target, int):
        return [target] * rank
    values = list(target)
    if len(values) == rank:
        return values
    return [values[0] if values else default_pad] * rank


def _enum_name(message, field):
    """The name of an enumeration field's value (``pool`` 2 -> 'STOCHASTIC')."""
    values = message.DESCRIPTOR.fields_by_name[field].enum_type.values_by_number
    number = getattr(message, field)
    return values[number].name if number in values else str(number)


def _setup_convolution_parameters(parameters, input_tensor, is_ceil_pad=False):
    """Kernel, strides, output size, whether padded, and dilation of a convolution or pooling window, each as
    [height, width], from Caffe's settings (``*_h``/``*_w`` override the shared values) and the input's
    [channels, height, width]. The output size rounds down (convolution) or up (pooling, ``is_ceil_pad``)."""
    kernel = _format_to_list(parameters.kernel_size, 2)
    kernel = [parameters.kernel_h or kernel[0], parameters.kernel_w or kernel[1]]
    strides = _format_to_list(parameters.stride, 2, 1)
    strides = [parameters.stride_h or strides[0], parameters.stride_w or strides[1]]
    pads = _format_to_list(parameters.pad, 2, 0)
    pads = [parameters.pad_h or pads[0], parameters.pad_w or pads[1]]
    dilation = [1, 1]
    given = list(getattr(parameters, 'dilation', []))
    if given:
        dilation = [given[0], given[1] if len(given) > 1 else given[0]]
    rounding = math.ceil if is_ceil_pad else math.floor
    output_size = []
    for axis in range(2):
        reach = (kernel[axis] - 1) * dilation[axis] + 1
        exact = float(input_tensor[1 + axis] + 2 * pads[axis] - reach) / strides[axis] + 1
        output_size.append(int(rounding(exact)))
    return kernel, strides, output_size, bool(pads[0] or pads[1]), dilation


class SetupCaffeParameters(object):
    """One method per uniform op: ``(caffe_parameters, inputs_info, cntk_layer_def)`` fills the definition's
    ``parameters`` and output ``tensor`` from the layer's Caffe settings message and its inputs' definitions."""

    @staticmethod
    def default(caffe_parameters, inputs_info, cntk_layer_def, tensor_check=True):
        """Shape-preserving ops: every input must have the same shape, which is the output's."""
        if not tensor_check:
            cntk_layer_def.parameters = cntkmodel.CntkParameters()
            return
        shape = list(inputs_info[0].tensor)
        for other in inputs_info[1:]:
            if list(other.tensor) != shape:
                raise AttributeError('Non-align input tensor %s: %s vs %s'
                                     % (cntk_layer_def.op_name, shape, list(other.tensor)))
        cntk_layer_def.tensor = shape
        if not cntk_layer_def.parameters:
            cntk_layer_def.parameters = cntkmodel.CntkParameters()

    @staticmethod
    def convolution(caffe_parameters, inputs_info, cntk_layer_def):
        """Convolution: output maps, bias, groups, kernel/stride/dilation; output rounds down."""
        params = cntkmodel.CntkConvolutionParameters()
        kernel, strides, output_size, padded, dilation = \
            _setup_convolution_parameters(caffe_parameters, inputs_info[0].tensor)
        params.output = caffe_parameters.num_output
        params.need_bias = caffe_parameters.bias_term
        params.group = caffe_parameters.group
        params.kernel = kernel
        params.stride = strides
        params.auto_pad = padded
        params.dilation = dilation
        cntk_layer_def.parameters = params
        cntk_layer_def.tensor = [caffe_parameters.num_output] + output_size

    @staticmethod
    def pooling(caffe_parameters, inputs_info, cntk_layer_def):
        """Pooling: max or average, window and stride; global pooling covers the whole map; output rounds up."""
        params = cntkmodel.CntkPoolingParameters()
        channels, height, width = list(inputs_info[0].tensor)[:3]
        if caffe_parameters.global_pooling:
            kernel, strides, output_size, padded = (height, width), (1, 1), (1, 1), False
        else:
            kernel, strides, output_size, padded, _ = _setup_convolution_parameters(
                caffe_parameters, inputs_info[0].tensor, is_ceil_pad=True)
        if caffe_parameters.pool not in (0, 1):
            raise NotImplementedError("Caffe layer %r: pooling method %s is not supported (only MAX and AVE)"
                                      % (cntk_layer_def.op_name, _enum_name(caffe_parameters, 'pool')))
        params.kernel = kernel
        params.stride = strides
        params.auto_pad = padded
        params.pooling_type = caffe_parameters.pool
        cntk_layer_def.parameters = params
        cntk_layer_def.tensor = [channels, output_size[0], output_size[1]]

    @staticmethod
    def batch_norm(caffe_parameters, inputs_info, cntk_layer_def):
        """Batch normalization: its epsilon; shape preserved."""
        cntk_layer_def.parameters = cntkmodel.CntkBatchNormParameters()
        cntk_layer_def.parameters.epsilon = caffe_parameters.eps
        SetupCaffeParameters.default(caffe_parameters, inputs_info, cntk_layer_def)

    @staticmethod
    def dense(caffe_parameters, inputs_info, cntk_layer_def):
        """Inner product: its outputs; Caffe's weights are [output, input] unless its ``transpose`` is set."""
        params = cntkmodel.CntkDenseParameters()
        params.transpose = not caffe_parameters.transpose
        params.num_output = caffe_parameters.num_output
        cntk_layer_def.parameters = params
        cntk_layer_def.tensor = [caffe_parameters.num_output]

    @staticmethod
    def splice(caffe_parameters, inputs_info, cntk_layer_def):
        """Concatenation along Caffe's ``axis`` (1: channels); the other axes must agree."""
        params = cntkmodel.CntkSpliceParameters()
        params.axis = caffe_parameters.axis if caffe_parameters is not None else 1
        along = params.axis - 1
        shape = list(inputs_info[0].tensor)
        shape[along] = 0
        for source in inputs_info:
            others = list(source.tensor)
            if len(others) != len(shape) or any(a != b for i, (a, b) in enumerate(zip(shape, others))
                                                if i != along):
                raise IndexError('Non-align tensor information in %s: %s vs %s\n'
                                 % (cntk_layer_def.op_name, list(inputs_info[0].tensor), others))
            shape[along] += others[along]
        cntk_layer_def.parameters = params
        cntk_layer_def.tensor = shape

    @staticmethod
    def relu(caffe_parameters, inputs_info, cntk_layer_def):
        """ReLU (a non-zero ``negative_slope`` is kept, making it a leaky ReLU); shape preserved."""
        SetupCaffeParameters.default(caffe_parameters, inputs_info, cntk_layer_def)
        slope = getattr(caffe_parameters, 'negative_slope', 0) if caffe_parameters is not None else 0
        if slope:
            cntk_layer_def.parameters.negative_slope = slope

    @staticmethod
    def plus(caffe_parameters, inputs_info, cntk_layer_def):
        """Element-wise sum (only unit coefficients); shape preserved."""
        coefficients = list(getattr(caffe_parameters, 'coeff', []) or [])
        if any(c != 1 for c in coefficients):
            raise NotImplementedError('Eltwise layer %r: SUM with coefficients %s is not supported (only 1)'
                                      % (cntk_layer_def.op_name, coefficients))
        SetupCaffeParameters.default(caffe_parameters, inputs_info, cntk_layer_def)

    @staticmethod
    def dropout(caffe_parameters, inputs_info, cntk_layer_def):
        """Dropout; shape preserved."""
        SetupCaffeParameters.default(caffe_parameters, inputs_info, cntk_layer_def)

    @staticmethod
    def lrn(caffe_parameters, inputs_info, cntk_layer_def):
        """Local response normalization across channels: half window, alpha, beta, k."""
        if caffe_parameters.norm_region != 0:
            raise NotImplementedError("Caffe layer %r: LRN norm_region %s is not supported (only ACROSS_CHANNELS)"
                                      % (cntk_layer_def.op_name, _enum_name(caffe_parameters, 'norm_region')))
        params = cntkmodel.CntkLRNParameters()
        params.kernel_size = (caffe_parameters.local_size + 1) / 2
        params.alpha = caffe_parameters.alpha
        params.beta = caffe_parameters.beta
        params.k = caffe_parameters.k
        cntk_layer_def.parameters = params
        SetupCaffeParameters.default(caffe_parameters, inputs_info, cntk_layer_def)

    @staticmethod
    def psroi_pooling(caffe_parameters, _, cntk_layer_def):
        """Position-sensitive ROI pooling: group size and output maps."""
        params = cntkmodel.CntkPSROIPoolingParameters()
        params.group_size = caffe_parameters.group_size
        params.out_channel = caffe_parameters.output_dim
        cntk_layer_def.parameters = params
        cntk_layer_def.tensor = [caffe_parameters.output_dim, caffe_parameters.group_size,
                                 caffe_parameters.group_size]

    @staticmethod
    def softmax(caffe_parameters, inputs_info, cntk_layer_def):
        """Softmax along Caffe's ``axis`` (1: channels, so over each position's channels for a map); shape
        preserved."""
        SetupCaffeParameters.default(caffe_parameters, inputs_info, cntk_layer_def)
        if caffe_parameters is not None and len(cntk_layer_def.tensor) > 1:
            cntk_layer_def.parameters.axis = caffe_parameters.axis


# layer types that produce no CNTK op of their own: Scale folds into the BatchNorm before it
NEGLECT_LAYERS = ['Scale', 'Dropout']

# the old (V1) layer-type enumeration's names of the convertible layers, in the new string form
_V1_TYPE_NAMES = {
    'CONVOLUTION': 'Convolution', 'POOLING': 'Pooling', 'RELU': 'ReLU', 'INNER_PRODUCT': 'InnerProduct',
    'SOFTMAX': 'Softmax', 'CONCAT': 'Concat', 'ELTWISE': 'Eltwise', 'DROPOUT': 'Dropout', 'LRN': 'LRN',
    'SOFTMAX_LOSS': 'SoftmaxWithLoss', 'ACCURACY': 'Accuracy',
}


def _type_name(raw_layer):
    """A layer's type as Caffe's current string names it (V1 layers carry an enumeration value)."""
    kind = raw_layer.type
    if isinstance(kind, str):
        return kind
    enum_name = raw_layer.DESCRIPTOR.fields_by_name['type'].enum_type.values_by_number[kind].name
    return _V1_TYPE_NAMES.get(enum_name, enum_name)


def _layers_of(net):
    return list(net.layer) or list(net.layers)


class CaffeAdapter(baseadapter.Adapter):
    """Caffe network definition + weights -> uniform model."""

    def __init__(self):
        baseadapter.Adapter.__init__(self)
        self._raw_net = None
        self._raw_solver = None
        self._uni_model = None
        self._source_solver = None
        self._caffe_pb2 = None
        self._scale_owner = {}

    def load_model(self, global_conf):
        """Parse ``global_conf.source_solver``'s ``model_path`` (text) and ``weights_path`` (binary) and return
        the :class:`~...unimodel.cntkmodel.CntkModelDescription`."""
        sys.stdout.write('Start loading model:\n')
        self._source_solver = global_conf.source_solver
        model_path = self._source_solver.model_path
        if not model_path or not os.path.exists(model_path):
            raise IOError('Caffe network definition not found: %r (SourceSolver.ModelPath)' % (model_path,))
        resolver = caffeimpl.CaffeResolver()
        self._caffe_pb2 = resolver.caffepb
        self._raw_solver = resolver.solver()
        self._raw_net = resolver.net()
        self._scale_owner = {}
        with open(model_path, 'r') as handle:
            text_format.Merge(handle.read(), self._raw_net, allow_unknown_field=True)
        self._uni_model = cntkmodel.CntkModelDescription()
        self._uni_model.model_name = os.path.splitext(model_path)[0]

        self._adapt_data_provider()
        self._adapt_net()

        weights_path = self._source_solver.weights_path
        if not weights_path or not os.path.exists(weights_path):
            raise IOError('Caffe weights not found: %r (SourceSolver.WeightsPath)' % (weights_path,))
        self._adapt_parameter_data()
        sys.stdout.write('Finished model loading\n')
        return self._uni_model

    def adapt_solver(self):
        """Copy the Caffe solver's settings (learning rate, decay factor, momentum, weight decay, display
        interval; intervals in epochs when the source settings give ``iters_per_epoch``) into the model's
        :class:`~...unimodel.cntkmodel.CntkSolver`."""
        self._uni_model.solver = cntkmodel.CntkSolver()
        target = self._uni_model.solver
        source = self._raw_solver
        per_epoch = getattr(self._source_solver, 'iters_per_epoch', None)
        if per_epoch:
            target.adjust_interval = int(source.stepsize / per_epoch + 0.5)
            target.max_epoch = int(source.max_iter / per_epoch + 0.5)
        target.learning_rate = source.base_lr
        target.decrease_factor = source.gamma
        target.momentum = source.momentum
        target.weight_decay = source.weight_decay
        target.number_to_show_result = source.display

    def _adapt_data_provider(self):
        if not self._raw_net:
            raise KeyError('Invalid net structure\n')

        def _provide(name, dims):
            provider = cntkmodel.CntkLayersDefinition()
            provider.op_name = name
            provider.tensor = [int(d) for d in dims[1:]]   # without the batch axis
            self._uni_model.data_provider.append(provider)

        # inputs declared on the net itself (older deploy files): input + input_shape, or 4 input_dim each
        net = self._raw_net
        for index, name in enumerate(net.input):
            if len(net.input_shape) > index:
                _provide(name, list(net.input_shape[index].dim))
            elif len(net.input_dim) >= 4 * (index + 1):
                _provide(name, list(net.input_dim[4 * index:4 * index + 4]))
        for raw_layer in _layers_of(net):
            if _type_name(raw_layer) != 'Input' or not self._inclusive_layer(raw_layer):
                continue
            shapes = raw_layer.input_param.shape
            for index, top in enumerate(raw_layer.top):   # one shape may serve every top, as in Caffe
                _provide(top, list(shapes[min(index, len(shapes) - 1)].dim))

    def _adapt_net(self):
        uni_model = self._uni_model
        scope_inputs = dict((p.op_name, p) for p in uni_model.data_provider)

        for raw_layer in _layers_of(self._raw_net):
            kind = _type_name(raw_layer)
            if kind == 'Input' or not self._inclusive_layer(raw_layer):
                continue
            for bottom in raw_layer.bottom:
                if bottom not in scope_inputs:
                    raise KeyError('Caffe layer %r (%s) reads blob %r, which no input or earlier layer produces'
                                   % (raw_layer.name, kind, bottom))
            cntk_layer_type, _ = self._get_layer_type(raw_layer)
            if cntk_layer_type is None:   # a neglected layer: passes its input through
                source = scope_inputs[raw_layer.bottom[0]]
                if kind == 'Scale':
                    if source.op_type != cntkmodel.CntkLayerType.batch_norm:
                        raise NotImplementedError(
                            'Caffe layer %r (Scale) follows %r, not a BatchNorm layer: only Scale layers after '
                            'BatchNorm are supported' % (raw_layer.name, source.op_name))
                    self._scale_owner[raw_layer.name] = source.op_name
                scope_inputs[raw_layer.top[0]] = source
                continue

            inputs_info = [scope_inputs[bottom] for bottom in raw_layer.bottom]
            cntk_layer_def = self._setup_cntk_layer_def(cntk_layer_type, raw_layer, inputs_info)
            if len(raw_layer.top) > 1:
                sys.stderr.write('Single output layers allowed currently: %s.%s\n'
                                 % (str(cntk_layer_type), raw_layer.name))
            scope_inputs[raw_layer.top[0]] = cntk_layer_def
            uni_model.cntk_layers[raw_layer.name] = cntk_layer_def
            uni_model.cntk_sorted_layers.append(raw_layer.name)

    def _adapt_parameter_data(self):
        sys.stdout.write('start parameter loading...\n')
        started = time.time()
        weights = caffeimpl.CaffeResolver().net()
        with open(self._source_solver.weights_path, 'rb') as handle:
            weights.MergeFromString(handle.read())

        def _values(blob):   # the repeated fields hand their values to numpy in one copy
            return np.asarray(blob.data if len(blob.data) else blob.double_data, dtype=np.float32)

        caffe_blobs = [(layer.name, [_values(blob) for blob in layer.blobs])
                       for layer in _layers_of(weights) if len(layer.blobs)]
        sys.stdout.write('finished loading, total time: %d\n' % (time.time() - started))

        sys.stdout.write('start parameter matching...\n')
        layers = self._uni_model.cntk_layers
        for name, blobs in caffe_blobs:
            target = layers.get(name) or layers.get(self._scale_owner.get(name))
            if target is None:
                sys.stderr.write('ignore weights for %s, since not contained in graph\n' % name)
                continue
            for values in blobs:
                tensor = cntkmodel.CntkTensorDefinition()
                tensor.data = values
                target.parameter_tensor.append(tensor)
        sys.stdout.write('finished matching.\n')

    def _get_layer_type(self, raw_layer):
        kind = _type_name(raw_layer)
        cntk_layer_type = caffeimpl.CAFFE_LAYER_WRAPPER.get(kind) or self._try_special_case_wrapper(raw_layer)
        if cntk_layer_type is None:
            if kind in NEGLECT_LAYERS:
                return None, None
            from ...unimodel.cntkinstance import ApiSetup   # the types that convert all the way
            supported = sorted(set(k.split('_')[0] for k, op in caffeimpl.CAFFE_LAYER_WRAPPER.items()
                                   if hasattr(ApiSetup, op.name)) | {'Input', 'Scale'})
            raise KeyError("Caffe layer %r has type %r, which the converter does not support (supported: %s)"
                           % (raw_layer.name, kind, ', '.join(supported)))
        return cntk_layer_type, kind

    @staticmethod
    def _get_layer_parameters(raw_layer):
        """The layer's settings message: the field named after its type (``InnerProduct`` ->
        ``inner_product_param``), with Caffe's defaults when the file does not set it; None when there is none."""
        wanted = _type_name(raw_layer).lower() + 'param'
        for field in raw_layer.DESCRIPTOR.fields:
            if field.name.lower().replace('_', '') == wanted:
                return getattr(raw_layer, field.name)
        return None

    def _try_special_case_wrapper(self, raw_layer):
        if _type_name(raw_layer) != 'Eltwise':
            return None
        settings = self._get_layer_parameters(raw_layer)
        operation = _enum_name(settings, 'operation')
        qualified = 'Eltwise_' + operation
        if qualified not in caffeimpl.CAFFE_LAYER_WRAPPER:
            raise KeyError("Caffe layer %r has type 'Eltwise' with operation %s, which the converter does not "
                           "support (only SUM)" % (raw_layer.name, operation))
        return caffeimpl.CAFFE_LAYER_WRAPPER[qualified]

    def _setup_cntk_layer_def(self, cntk_layer_type, raw_layer, inputs_info):
        cntk_layer_def = cntkmodel.CntkLayersDefinition()
        cntk_layer_def.op_name = raw_layer.name
        cntk_layer_def.op_type = cntk_layer_type
        cntk_layer_def.inputs = [source.op_name for source in inputs_info]
        cntk_layer_def.outputs = [raw_layer.name]
        setup = getattr(SetupCaffeParameters, cntk_layer_type.name, None)
        if setup is None:
            raise NotImplementedError("Caffe layer %r (%s) converts to CNTK's %s, which this converter cannot "
                                      "set up" % (raw_layer.name, _type_name(raw_layer), cntk_layer_type.name))
        setup(self._get_layer_parameters(raw_layer), inputs_info, cntk_layer_def)
        return cntk_layer_def

    def _inclusive_layer(self, raw_layer):
        """Whether the layer belongs to the configured phase (Caffe's rules: with include rules, one must match;
        otherwise no exclude rule may match; a rule without a phase matches every phase)."""
        phase = self._source_solver.phase if self._source_solver.phase is not None else 1

        def _matches(rule):
            return not rule.HasField('phase') or rule.phase == phase
        if len(raw_layer.include):
            return any(_matches(rule) for rule in raw_layer.include)
        return not any(_matches(rule) for rule in raw_layer.exclude)
