"""Turning the uniform model into CNTK functions.

:class:`ApiSetup` has one static method per :class:`~.cntkmodel.CntkLayerType` name, each taking the layer's
definition and its input functions and returning the CNTK function; :class:`BlockApiSetup` builds the ops that
become block functions (convolution, linear, LRN). :class:`CntkApiInstance` walks a whole model.

Layouts: activations are CNTK's channel-first sample shapes (C, H, W); convolution kernels come as Caffe stores them,
[output, input / group, kernel height, kernel width]; a fully connected layer's weights as [output, flattened input]
unless the layer says otherwise.
"""
from functools import reduce
from operator import mul

import numpy as np

import cntk
from cntk import internal, ops
from cntk.layers.blocks import BlockFunction


def _as_float32(blob):
    return np.asarray(getattr(blob, 'data', blob), dtype=np.float32)


def _spread_kernel(kernel_values, dilation):
    """A dilated filter written as an ordinary one: the taps of ``kernel_values`` (..., kh, kw) spaced
    ``dilation`` apart with zeros between them."""
    if all(d == 1 for d in dilation):
        return kernel_values
    taps = kernel_values.shape[-len(dilation):]
    spread = [(k - 1) * d + 1 for k, d in zip(taps, dilation)]
    out = np.zeros(kernel_values.shape[:-len(dilation)] + tuple(spread), dtype=kernel_values.dtype)
    out[(Ellipsis,) + tuple(slice(None, None, d) for d in dilation)] = kernel_values
    return out


class BlockApiSetup(object):
    """The composite ops, each returned as a block-function factory (call it on the input)."""

    @staticmethod
    def convolution(output, kernel, stride, pad, kernel_init, bias_init, group, dilation, name):
        """Convolution block ``'Convolution'`` named ``name``: ``output`` maps, ``kernel``/``stride``/``dilation``
        as [height, width], ``pad`` for same-size padding of the spatial axes, ``kernel_init`` the filter values
        [output, input / group, kh, kw] (dilation is realized by spreading the taps with zeros), ``bias_init``
        the bias (or None for no bias), ``group`` channel groups (each group's filters see their own slice of the
        input channels; the groups' outputs are spliced). Parameters: ``<name>.W`` (``<name>.<g>.W`` per group)
        and ``<name>.b``."""
        kernel = list(kernel)
        dilation = list(dilation)
        if kernel_init is None:
            raise ValueError("convolution %r: no filter values were given" % name)
        filters = _spread_kernel(np.asarray(kernel_init, dtype=np.float32), dilation)
        spatial_strides = tuple(internal.sanitize_shape(stride))
        conv_strides = (cntk.InferredDimension,) + spatial_strides
        padding = [False, bool(pad), bool(pad)]

        if group == 1:
            weights = [ops.parameter(shape=filters.shape, init=filters, name='%s.W' % name)]
        else:
            per_group = np.split(filters, group)
            weights = [ops.parameter(shape=g.shape, init=g, name='%s.%d.W' % (name, i))
                       for i, g in enumerate(per_group)]
        group_inputs = weights[0].shape[1]
        bias = None
        if bias_init is not None:
            bias_values = np.asarray(bias_init, dtype=np.float32)
            bias = ops.parameter(shape=bias_values.shape, init=bias_values, name='%s.b' % name)

        @BlockFunction('Convolution', name)
        def _convolution(x):
            if group == 1:
                y = ops.convolution(weights[0], x, strides=conv_strides, auto_padding=padding)
            else:
                parts = []
                for i, w in enumerate(weights):
                    channels = ops.slice(x, axis=0, begin_index=i * group_inputs, end_index=(i + 1) * group_inputs)
                    parts.append(ops.convolution(w, channels, strides=conv_strides, auto_padding=padding))
                y = ops.splice(*parts, axis=0)
            if bias is not None:
                y = y + bias
            return y
        return _convolution

    @staticmethod
    def linear(output_shape, input_shape, scale_init, bias_init, name):
        """Fully connected block ``'linear'`` named ``name``: ``x @ <name>.sc + <name>.b``, where the weights
        ``scale_init`` have the input's sample shape followed by ``output_shape`` (so the whole input is reduced)
        and ``bias_init`` has ``output_shape`` or a shape broadcasting to it. (As with CNTK's parameters, the
        values' own shapes decide; ``input_shape`` is what the caller computed for the weights.)"""
        scale_values = np.asarray(scale_init, dtype=np.float32)
        bias_values = np.asarray(bias_init, dtype=np.float32)
        weights = ops.parameter(shape=scale_values.shape, init=scale_values, name='%s.sc' % name)
        bias = ops.parameter(shape=bias_values.shape, init=bias_values, name='%s.b' % name)

        @BlockFunction('linear', name)
        def _linear(x):
            return ops.times(x, weights) + bias
        return _linear

    @staticmethod
    def lrn(k, n, alpha, beta, name):
        """Local response normalization block ``'lrn'`` named ``name`` across channels; ``n`` is the half window
        plus one, so the window covers ``2 n - 1`` channels (CNTK's depth radius ``n - 1``)."""
        @BlockFunction('lrn', name)
        def _lrn(x):
            return cntk.local_response_normalization(x, int(n - 1), k, alpha, beta)
        return _lrn


class ApiSetup(object):
    """One method per uniform layer type: ``(cntk_layer, inputs) -> Function``; ``inputs`` are the functions or
    input variables feeding the layer, in the layer's input order."""

    @staticmethod
    def convolution(cntk_layer, inputs):
        """Caffe-style convolution: weights from ``parameter_tensor[0]`` (filters) and ``[1]`` (bias, when
        ``need_bias``)."""
        x = internal.sanitize_input(inputs[0])
        params = cntk_layer.parameters
        out_maps = params.output
        filter_shape = (out_maps, int(x.shape[0] / params.group)) + tuple(params.kernel)
        filters = None
        bias = None
        if cntk_layer.parameter_tensor:
            filters = _as_float32(cntk_layer.parameter_tensor[0]).reshape(filter_shape)
            if params.need_bias:
                bias = _as_float32(cntk_layer.parameter_tensor[1]).reshape((out_maps, 1, 1))
        return BlockApiSetup.convolution(out_maps, params.kernel, stride=params.stride, pad=params.auto_pad,
                                         kernel_init=filters, bias_init=bias, group=params.group,
                                         dilation=params.dilation, name=cntk_layer.op_name)(x)

    @staticmethod
    def batch_norm(cntk_layer, inputs):
        """Spatial batch normalization in inference form. Tensors, as Caffe stores them: accumulated mean,
        accumulated variance, the accumulation factor (both are divided by it; 0 gives zeros), then optionally
        the following Scale layer's scale and bias. Without tensors: scale 1, bias 0, mean 1, variance 0.
        Parameters ``<op>.scale``, ``<op>.bias``, ``<op>.mean``, ``<op>.var``."""
        x = internal.sanitize_input(inputs[0])
        channels = (x.shape[0],)
        scale, bias, mean, variance = 1, 0, 1, 0
        blobs = cntk_layer.parameter_tensor
        if blobs:
            if len(blobs) < 3:
                raise AssertionError('At least three tensors (saved_mean, saved_variance and scale) are needed')
            factor = _as_float32(blobs[2]).reshape(-1)[0]
            inverse = 1 / factor if factor != 0 else 0
            mean = _as_float32(blobs[0]) * inverse
            variance = _as_float32(blobs[1]) * inverse
            if len(blobs) == 5:
                scale = _as_float32(blobs[3])
                bias = _as_float32(blobs[4])

        def _param(value, suffix):
            if isinstance(value, np.ndarray):
                value = value.reshape(channels)
            return ops.parameter(channels, init=value, name='%s.%s' % (cntk_layer.op_name, suffix))

        return ops.batch_normalization(x, _param(scale, 'scale'), _param(bias, 'bias'), _param(mean, 'mean'),
                                       _param(variance, 'var'), True, use_cudnn_engine=False,
                                       epsilon=cntk_layer.parameters.epsilon, running_count=ops.constant(0),
                                       name=cntk_layer.op_name)

    @staticmethod
    def pooling(cntk_layer, inputs):
        """Max (``pooling_type`` 0) or average (1) pooling, output sizes rounded up as Caffe does."""
        x = internal.sanitize_input(inputs[0])
        params = cntk_layer.parameters
        kind = ops.PoolingType_Average if params.pooling_type else ops.PoolingType_Max
        return ops.pooling(x, kind, tuple(params.kernel), strides=tuple(params.stride),
                           auto_padding=[params.auto_pad], ceil_out_dim=True, name=cntk_layer.op_name)

    @staticmethod
    def relu(cntk_layer, inputs):
        """Rectified linear unit; leaky when the parameters carry a non-zero ``negative_slope``."""
        x = internal.sanitize_input(inputs[0])
        slope = getattr(cntk_layer.parameters, 'negative_slope', 0)
        if slope:
            return ops.leaky_relu(x, alpha=slope, name=cntk_layer.op_name)
        return ops.relu(x, name=cntk_layer.op_name)

    @staticmethod
    def dense(cntk_layer, inputs):
        """Fully connected layer over the whole sample: weights from ``parameter_tensor[0]`` ([output, input] when
        ``transpose``, else [input..., output]) and bias from ``[1]`` (zeros when there is no second tensor)."""
        x = internal.sanitize_input(inputs[0])
        in_shape = tuple(x.shape)
        units = cntk_layer.parameters.num_output
        weight_shape = in_shape + (units,)
        if len(cntk_layer.parameter_tensor) not in (1, 2):
            raise AssertionError('dense layer %r receives weights and an optional bias, got %d tensors'
                                 % (cntk_layer.op_name, len(cntk_layer.parameter_tensor)))
        weights = _as_float32(cntk_layer.parameter_tensor[0])
        if cntk_layer.parameters.transpose:
            flat = reduce(mul, in_shape, 1)
            weights = np.ascontiguousarray(weights.reshape(units, flat).T)
        weights = weights.reshape(weight_shape)
        if len(cntk_layer.parameter_tensor) == 2:
            bias = _as_float32(cntk_layer.parameter_tensor[1])
        else:   # an InnerProduct without bias term
            bias = np.zeros((units,), np.float32)
        return BlockApiSetup.linear((units,), weight_shape, weights, bias, cntk_layer.op_name)(x)

    @staticmethod
    def plus(cntk_layer, inputs):
        """Element-wise sum of the inputs (two: CNTK's ``plus``; more: the first ones summed, then ``plus``)."""
        operands = [internal.sanitize_input(x) for x in inputs]
        left = operands[0]
        for right in operands[1:-1]:
            left = ops.plus(left, right)
        return ops.plus(left, operands[-1], name=cntk_layer.op_name)

    @staticmethod
    def dropout(cntk_layer, inputs):
        """Dropout as CNTK's op with its default rate (an identity when evaluating)."""
        return ops.dropout(internal.sanitize_input(inputs[0]), name=cntk_layer.op_name)

    @staticmethod
    def lrn(cntk_layer, inputs):
        """Local response normalization across channels."""
        params = cntk_layer.parameters
        return BlockApiSetup.lrn(params.k, params.kernel_size, params.alpha, params.beta,
                                 cntk_layer.op_name)(internal.sanitize_input(inputs[0]))

    @staticmethod
    def splice(cntk_layer, inputs):
        """Concatenation along the parameters' ``axis`` counted with the batch axis (1, the default: channels)."""
        axis = getattr(cntk_layer.parameters, 'axis', 1) - 1
        return ops.splice(*inputs, axis=axis, name=cntk_layer.op_name)

    @staticmethod
    def softmax(cntk_layer, inputs):
        """Softmax over the whole sample (CNTK's ``softmax`` without an axis), or along the parameters' ``axis``
        (counted with the batch axis, as Caffe's) when they carry one."""
        axis = getattr(cntk_layer.parameters, 'axis', None)
        x = internal.sanitize_input(inputs[0])
        if axis is None:
            return ops.softmax(x, name=cntk_layer.op_name)
        return ops.softmax(x, axis=axis - 1, name=cntk_layer.op_name)


class CntkApiInstance(object):
    """Builds the CNTK network of a :class:`~.cntkmodel.CntkModelDescription` at construction; the functions by
    name are :meth:`get_functions`, the network (every function no other function consumes, combined as
    ``'outputs'``) :meth:`get_model`, and :meth:`export_model` saves it to the configured path."""

    def __init__(self, cntk_uni_model, global_conf):
        self._functions = {}
        self._output = None
        self._model_solver = global_conf.model_solver
        self._source_solver = global_conf.source_solver
        self._instance(cntk_uni_model)

    def _instance(self, cntk_uni_model):
        self.instance_input(cntk_uni_model.data_provider)
        self.instance_functions(cntk_uni_model.cntk_sorted_layers, cntk_uni_model.cntk_layers)

    def instance_input(self, data_providers):
        """Create the input variables: from the configuration's ``CNTKTensor`` {name: shape} when given,
        otherwise one per data provider (its name and sample shape)."""
        if self._model_solver.cntk_tensor is not None:
            shapes = self._model_solver.cntk_tensor.items()
        else:
            shapes = [(p.op_name, p.tensor) for p in data_providers]
        for name, shape in shapes:
            self._functions[name] = cntk.input(tuple(int(d) for d in shape), name=name)

    def instance_functions(self, cntk_sorted_layers, cntk_layers):
        """Create every layer's function in ``cntk_sorted_layers`` order and combine the unconsumed ones."""
        leaves = {}
        for layer_name in cntk_sorted_layers:
            layer = cntk_layers[layer_name]
            feeding = []
            for input_name in layer.inputs:
                if input_name not in self._functions:
                    raise KeyError('layer %r reads %r, which is neither an input nor an earlier layer'
                                   % (layer.op_name, input_name))
                source = self._functions[input_name]
                feeding.append(source)
                leaves.pop(id(source), None)
            setup = getattr(ApiSetup, layer.op_type.name, None)
            if setup is None:
                raise NotImplementedError('layer %r: the CNTK op %r has no CNTK setup in this converter'
                                          % (layer.op_name, layer.op_type.name))
            made = setup(layer, feeding)
            self._functions[layer.op_name] = made
            leaves[id(made)] = made
        self._output = ops.combine(list(leaves.values()), name='outputs')

    def export_model(self):
        """Save the network to the configuration's ``CNTKModelPath``."""
        self._output.save(self._model_solver.cntk_model_path)

    def get_model(self):
        """The combined network."""
        return self._output

    def get_functions(self):
        """{name: function or input variable} of the whole network."""
        return self._functions
