"""cntk.contrib.crosstalkcaffe: the Caffe-to-CNTK converter. Layer setups against hand-computed numbers (and numbers
CNTK 2.7's ApiSetup gave for the same definitions), the Caffe schema's wire format, the adapter's reading of a
network, and a whole conversion whose outputs are those of CNTK 2.7's converter run on the same files."""
import json
import os

import numpy as np
import pytest

import cntk
from cntk.contrib.crosstalkcaffe import CaffeConverter, utils
from cntk.contrib.crosstalkcaffe.adapter import ADAPTER_DICT
from cntk.contrib.crosstalkcaffe.adapter.bvlccaffe import caffe_pb2
from cntk.contrib.crosstalkcaffe.adapter.bvlccaffe.caffeadapter import CaffeAdapter
from cntk.contrib.crosstalkcaffe.unimodel import cntkmodel
from cntk.contrib.crosstalkcaffe.unimodel.cntkinstance import ApiSetup, CntkApiInstance
from cntk.contrib.crosstalkcaffe.utils import globalconf
from cntk.contrib.crosstalkcaffe.validation import validcore

from . import caffe_net_fixture as fixture


def _layer(op_type, parameters, weights, *input_shapes):
    params = getattr(cntkmodel, 'Cntk%sParameters' % op_type)() if op_type else cntkmodel.CntkParameters()
    for key, value in parameters.items():
        setattr(params, key, value)
    layer = cntkmodel.CntkLayersDefinition()
    layer.parameters = params
    layer.op_name = 'test_%s' % (op_type or 'op')
    for weight in weights or []:
        tensor = cntkmodel.CntkTensorDefinition()
        tensor.data = weight
        layer.parameter_tensor.append(tensor)
    return layer, [cntk.input(shape) for shape in input_shapes]


def _conv_reference(x, w, stride, pads, dilation=(1, 1)):
    """Cross-correlation of x (C, H, W) with w (O, C, kh, kw), zero padding pads=(top, left) on both sides."""
    (ph, pw), (sh, sw), (dh, dw) = pads, stride, dilation
    xp = np.pad(x, ((0, 0), (ph, ph), (pw, pw)))
    o, _, kh, kw = w.shape
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh, ow = (xp.shape[1] - eh) // sh + 1, (xp.shape[2] - ew) // sw + 1
    out = np.zeros((o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * sh:i * sh + eh:dh, j * sw:j * sw + ew:dw]
            out[:, i, j] = np.tensordot(w, patch, axes=([1, 2, 3], [0, 1, 2]))
    return out


# ---------------------------------------------------------------------------------------------- the Caffe schema

def test_schema_writes_caffes_field_numbers():
    layer = caffe_pb2.LayerParameter(name='a', type='B', bottom=['c'], top=['d'])
    assert layer.SerializeToString() == b'\n\x01a\x12\x01B\x1a\x01c"\x01d'
    assert caffe_pb2.BlobProto(data=[1.0]).SerializeToString() == b'*\x04\x00\x00\x80?'   # 5, packed floats
    net = caffe_pb2.NetParameter()
    net.layer.add(name='x')
    assert net.SerializeToString() == b'\xa2\x06\x03\n\x01x'                               # layer = 100
    ip = caffe_pb2.LayerParameter()
    ip.inner_product_param.num_output = 3
    assert ip.SerializeToString() == b'\xaa\x07\x02\x08\x03'                               # 117, num_output 1
    v1 = caffe_pb2.NetParameter()
    v1.layers.add(name='y', type=caffe_pb2.V1LayerParameter.CONVOLUTION)
    assert v1.SerializeToString() == b'\x12\x05"\x01y(\x04'                                # layers 2, name 4, type 5


def test_schema_defaults_are_caffes():
    layer = caffe_pb2.LayerParameter()
    assert layer.convolution_param.bias_term and layer.convolution_param.group == 1
    assert layer.pooling_param.pool == 0 and layer.pooling_param.stride == 1
    assert layer.batch_norm_param.eps == pytest.approx(1e-5)
    assert layer.eltwise_param.operation == caffe_pb2.EltwiseParameter.SUM
    assert layer.lrn_param.local_size == 5 and layer.lrn_param.beta == pytest.approx(0.75)
    assert caffe_pb2.NetState().phase == caffe_pb2.TEST


def test_text_format_parses_and_skips_settings_outside_the_subset():
    net = caffe_pb2.NetParameter()
    caffe_pb2.parse_text('''name: "n"
        layer { name: "d" type: "Data" top: "data" data_param { source: "lmdb" batch_size: 64 backend: LMDB }
                transform_param { crop_size: 227 mirror: true } include { phase: TRAIN } }
        layer { name: "c" type: "Convolution" bottom: "data" top: "c" param { lr_mult: 1 decay_mult: 1 }
                convolution_param { num_output: 8 kernel_size: 5 stride: 2
                                    weight_filler { type: "gaussian" std: 0.01 } } }
        ''', net)
    assert [l.name for l in net.layer] == ['d', 'c']
    assert net.layer[0].transform_param.crop_size == 227 and net.layer[0].include[0].phase == caffe_pb2.TRAIN
    conv = net.layer[1].convolution_param
    assert (conv.num_output, list(conv.kernel_size), list(conv.stride)) == (8, [5], [2])
    assert conv.weight_filler.std == pytest.approx(0.01)


# ---------------------------------------------------------------------------------------------- ApiSetup layers

def test_dense_as_cntk27s_test_case():
    layer, inputs = _layer('Dense', {'num_output': 2}, [[[1.], [2.]], [[1.]]], (1, 1, 1))
    out = ApiSetup.dense(layer, inputs)
    assert out.root_function.op_name == 'linear' and out.name == 'test_Dense'
    np.testing.assert_array_equal(np.squeeze(out.eval(np.ones((1, 1, 1, 1), np.float32))), [2., 3.])


def test_dense_transposes_caffes_output_by_input_weights_over_the_flattened_sample():
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10          # Caffe: [output, C*H*W]
    b = np.array([0.5, -1., 2.], np.float32)
    layer, inputs = _layer('Dense', {'num_output': 3, 'transpose': True}, [w.ravel(), b], (1, 2, 2))
    out = ApiSetup.dense(layer, inputs)
    x = np.array([1., -2., 3., 0.5], np.float32)
    np.testing.assert_allclose(out.eval(x.reshape(1, 1, 2, 2)).ravel(), w @ x + b, rtol=1e-6)
    assert sorted((p.name, p.shape) for p in out.parameters) == [('test_Dense.b', (3,)),
                                                                 ('test_Dense.sc', (1, 2, 2, 3))]


def test_dense_without_bias_term():
    w = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)             # [output, input]
    layer, inputs = _layer('Dense', {'num_output': 3, 'transpose': True}, [w.ravel()], (2,))
    np.testing.assert_allclose(ApiSetup.dense(layer, inputs).eval(np.array([[1., -1.]], np.float32)).ravel(),
                               [-1., -1., -1.])


def test_convolution_as_cntk27s_test_case():
    w = np.arange(1, 19, dtype=np.float32).reshape(2, 1, 3, 3)
    layer, inputs = _layer('Convolution', {'output': 2, 'stride': [2, 2], 'kernel': [3, 3], 'auto_pad': False,
                                           'need_bias': True, 'group': 1}, [w, [[1., 2.]]], (1, 3, 3))
    out = ApiSetup.convolution(layer, inputs)
    assert out.root_function.op_name == 'Convolution' and out.root_function.is_block
    np.testing.assert_array_equal(out.eval(np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)).ravel(),
                                  [286., 692.])
    assert sorted(p.name for p in out.parameters) == ['test_Convolution.W', 'test_Convolution.b']


def test_convolution_groups_and_same_padding_with_stride():
    rng = np.random.RandomState(3)
    w = rng.uniform(-1, 1, (4, 2, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 4).astype(np.float32)
    x = rng.uniform(-1, 1, (4, 5, 5)).astype(np.float32)
    layer, inputs = _layer('Convolution', {'output': 4, 'stride': [2, 2], 'kernel': [3, 3], 'auto_pad': True,
                                           'need_bias': True, 'group': 2}, [w, b], (4, 5, 5))
    out = ApiSetup.convolution(layer, inputs)
    expected = np.concatenate([_conv_reference(x[:2], w[:2], (2, 2), (1, 1)),
                               _conv_reference(x[2:], w[2:], (2, 2), (1, 1))]) + b[:, None, None]
    np.testing.assert_allclose(out.eval(x[None])[0], expected, rtol=1e-5, atol=1e-6)
    assert sorted((p.name, p.shape) for p in out.parameters) == [
        ('test_Convolution.0.W', (2, 2, 3, 3)), ('test_Convolution.1.W', (2, 2, 3, 3)),
        ('test_Convolution.b', (4, 1, 1))]


def test_convolution_dilation_spreads_the_taps():
    w = (np.arange(18, dtype=np.float32).reshape(2, 1, 3, 3) - 8) / 10
    x = (np.arange(36, dtype=np.float32).reshape(1, 6, 6) % 7) / 3
    layer, inputs = _layer('Convolution', {'output': 2, 'stride': [1, 1], 'kernel': [3, 3], 'auto_pad': True,
                                           'need_bias': True, 'group': 1, 'dilation': [2, 2]},
                           [w, [0.5, -0.5]], (1, 6, 6))
    got = ApiSetup.convolution(layer, inputs).eval(x[None])[0]
    np.testing.assert_allclose(got, _conv_reference(x, w, (1, 1), (2, 2), (2, 2)) + [[[0.5]], [[-0.5]]],
                               rtol=1e-5, atol=1e-6)
    # CNTK 2.7's ApiSetup gave these for the same definition
    np.testing.assert_allclose(got[0, 0], [0.133333, -0.133333, -0.5, -1., -0.433333, -0.833333], atol=1e-5)
    np.testing.assert_allclose(got[1, 2], [2.833333, 3.933333, 3.133334, 4.633334, 1.333333, 2.233333], atol=1e-5)


def test_convolution_dilation_is_height_then_width():
    # Caffe's dilation [h, w] (CNTK 2.7 spread the first value along the width)
    w = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    x = np.arange(20, dtype=np.float32).reshape(1, 4, 5)
    layer, inputs = _layer('Convolution', {'output': 1, 'stride': [1, 1], 'kernel': [2, 2], 'auto_pad': False,
                                           'need_bias': False, 'group': 1, 'dilation': [2, 1]}, [w], (1, 4, 5))
    got = ApiSetup.convolution(layer, inputs).eval(x[None])[0]
    np.testing.assert_allclose(got, _conv_reference(x, w, (1, 1), (0, 0), (2, 1)))
    assert got.shape == (1, 2, 4)


def test_batch_norm_as_cntk27s_test_case_with_scale_and_bias():
    weights = [[[1., 1.]], [[2., 2.]], [1], [[0.5, 0.5]], [[1., 1.]]]
    layer, inputs = _layer('BatchNorm', {'epsilon': 0}, weights, (2, 2, 2))
    out = ApiSetup.batch_norm(layer, inputs)
    got = out.eval(np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2))
    # (x - 1) / sqrt(2) * 0.5 + 1 (CNTK's test lists 2.76768 for 2.767767, and compares one-sidedly)
    np.testing.assert_allclose(got.ravel(), [1., 1.353553, 1.707107, 2.06066, 2.414213, 2.767767, 3.12132,
                                             3.474874], atol=1e-5)
    assert sorted(p.name for p in out.parameters) == ['test_BatchNorm.bias', 'test_BatchNorm.mean',
                                                      'test_BatchNorm.scale', 'test_BatchNorm.var']


def test_batch_norm_divides_caffes_accumulated_statistics_by_the_factor():
    mean, var, factor = np.array([0.2, -0.4], np.float32), np.array([0.5, 2.], np.float32), 4.
    layer, inputs = _layer('BatchNorm', {'epsilon': 1e-3}, [mean * factor, var * factor, [factor]], (2, 1, 3))
    x = np.array([[[1., 2., 3.]], [[-1., 0., 1.]]], np.float32)
    expected = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-3)
    np.testing.assert_allclose(ApiSetup.batch_norm(layer, inputs).eval(x[None])[0], expected, rtol=1e-5)


def test_pooling_max_and_average_round_up():
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    layer, inputs = _layer('Pooling', {'stride': [2, 2], 'kernel': [3, 3], 'auto_pad': False,
                                       'pooling_type': 0}, None, (1, 5, 5))
    np.testing.assert_array_equal(ApiSetup.pooling(layer, inputs).eval(x)[0, 0], [[12, 14], [22, 24]])
    layer, inputs = _layer('Pooling', {'stride': [2, 2], 'kernel': [3, 3], 'auto_pad': True,
                                       'pooling_type': 1}, None, (1, 5, 5))
    # windows centred on 0, 2, 4 averaging the cells inside the map (CNTK 2.7's numbers)
    np.testing.assert_allclose(ApiSetup.pooling(layer, inputs).eval(x)[0, 0],
                               [[3., 4.5, 6.], [10.5, 12., 13.5], [18., 19.5, 21.]])
    layer, inputs = _layer('Pooling', {'stride': [2, 2], 'kernel': [3, 3], 'auto_pad': True,
                                       'pooling_type': 0}, None, (1, 6, 6))
    assert ApiSetup.pooling(layer, inputs).shape == (1, 4, 4)     # Caffe's (and CNTK 2.7's) ceil count


def test_relu_plus_dropout_splice_softmax():
    layer, inputs = _layer('', {}, None, (2, 3))
    x = np.array([[[-1., 0.5, 2.], [3., -0.25, 0.]]], np.float32)
    np.testing.assert_array_equal(ApiSetup.relu(layer, inputs).eval(x), np.maximum(x, 0))
    layer.parameters.negative_slope = 0.1
    np.testing.assert_allclose(ApiSetup.relu(layer, inputs).eval(x), np.where(x > 0, x, 0.1 * x))
    np.testing.assert_array_equal(ApiSetup.dropout(layer, inputs).eval(x), x)
    whole = ApiSetup.softmax(layer, inputs).eval(x)
    np.testing.assert_allclose(whole, np.exp(x) / np.exp(x).sum(), rtol=1e-6)
    layer.parameters.axis = 1                        # Caffe's channel axis
    per_channel = ApiSetup.softmax(layer, inputs).eval(x)
    np.testing.assert_allclose(per_channel, np.exp(x) / np.exp(x).sum(axis=1, keepdims=True), rtol=1e-6)

    a, b, c = (cntk.input((2,)) for _ in range(3))
    two = ApiSetup.plus(layer, [a, b])
    assert two.name == 'test_op' and two.root_function.op_name == 'Plus'
    three = ApiSetup.plus(layer, [a, b, c])
    np.testing.assert_allclose(three.eval({a: [[1., 2.]], b: [[10., 20.]], c: [[100., 200.]]}), [[111., 222.]])

    splice_layer, _ = _layer('Splice', {}, None)
    p, q = cntk.input((1, 2)), cntk.input((2, 2))
    joined = ApiSetup.splice(splice_layer, [p, q])
    assert joined.shape == (3, 2)
    np.testing.assert_array_equal(joined.eval({p: np.ones((1, 1, 2), np.float32),
                                               q: 2 * np.ones((1, 2, 2), np.float32)})[0], [[1, 1], [2, 2], [2, 2]])


def test_lrn_as_cntk27():
    layer, inputs = _layer('LRN', {'kernel_size': 2, 'alpha': 0.5, 'beta': 0.75, 'k': 2}, None, (4, 1, 2))
    out = ApiSetup.lrn(layer, inputs)
    assert out.root_function.op_name == 'lrn'
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 4, 1, 2)
    got = out.eval(x)[0].reshape(4, 2)
    np.testing.assert_allclose(got, [[0.377395, 0.569877], [0.64071, 0.647577], [0.629928, 0.604446],
                                     [0.950249, 0.89082]], atol=2e-6)     # CNTK 2.7's numbers
    sq = np.pad(x[0, :, 0] ** 2, ((1, 1), (0, 0)))                         # window of 3 channels, alpha / 3
    expected = x[0, :, 0] / (2 + 0.5 / 3 * (sq[:-2] + sq[1:-1] + sq[2:])) ** 0.75
    np.testing.assert_allclose(got, expected, rtol=1e-5)


# ---------------------------------------------------------------------------------------------- the adapter

def _conf(folder, prototxt=None, **source):
    conf = globalconf.GlobalConf()
    conf.source_solver.source = 'Caffe'
    conf.source_solver.model_path = os.path.join(str(folder), 'net.prototxt')
    conf.source_solver.weights_path = os.path.join(str(folder), 'net.caffemodel')
    conf.source_solver.phase = 1
    for key, value in source.items():
        setattr(conf.source_solver, key, value)
    conf.model_solver.cntk_model_path = os.path.join(str(folder), 'model.cntk')
    if prototxt is not None:
        with open(conf.source_solver.model_path, 'w') as handle:
            handle.write(prototxt)
    return conf


def test_adapter_reads_shapes_folds_scale_and_drops_training_layers(tmp_path):
    fixture.write_files(str(tmp_path), extra_layers=fixture.TRAIN_ONLY_LAYER)
    model = CaffeAdapter().load_model(_conf(tmp_path))
    assert model.cntk_sorted_layers == ['conv1', 'bn1', 'relu1', 'conv2a', 'conv2b', 'sum2', 'cat2', 'pool1',
                                        'pool2', 'drop', 'fc1', 'prob']
    layers = model.cntk_layers
    assert [(p.op_name, p.tensor) for p in model.data_provider] == [('data', [3, 8, 8])]
    assert {name: layers[name].tensor for name in ('conv1', 'cat2', 'pool1', 'pool2', 'fc1', 'prob')} == {
        'conv1': [4, 8, 8], 'cat2': [8, 8, 8], 'pool1': [8, 4, 4], 'pool2': [8, 4, 4], 'fc1': [5], 'prob': [5]}
    assert layers['relu1'].inputs == ['bn1'] and layers['cat2'].inputs == ['sum2', 'relu1']
    assert len(layers['bn1'].parameter_tensor) == 5                  # mean, variance, factor + Scale's two
    assert layers['bn1'].parameters.epsilon == pytest.approx(1e-3)
    conv = layers['conv2b'].parameters
    assert (conv.group, conv.kernel, conv.stride, conv.auto_pad) == (2, [3, 3], [1, 1], True)
    assert layers['pool2'].parameters.pooling_type == 1 and layers['fc1'].parameters.transpose
    assert layers['sum2'].op_type == cntkmodel.CntkLayerType.plus


@pytest.mark.parametrize('layer_text, message', [
    ('layer { name: "sig" type: "Sigmoid" bottom: "data" top: "sig" }', "'sig' has type 'Sigmoid'"),
    ('layer { name: "mul" type: "Eltwise" bottom: "data" bottom: "data" top: "mul" '
     'eltwise_param { operation: PROD } }', "'mul' has type 'Eltwise' with operation PROD"),
    ('layer { name: "sc" type: "Scale" bottom: "data" top: "sc" }', "'sc' (Scale) follows 'data'"),
    ('layer { name: "r" type: "ReLU" bottom: "nothing" top: "r" }', "reads blob 'nothing'"),
    ('layer { name: "sp" type: "Pooling" bottom: "data" top: "sp" pooling_param { pool: STOCHASTIC kernel_size: 2 } }',
     "'sp': pooling method STOCHASTIC"),
    ('layer { name: "n" type: "LRN" bottom: "data" top: "n" lrn_param { norm_region: WITHIN_CHANNEL } }',
     "'n': LRN norm_region WITHIN_CHANNEL"),
])
def test_adapter_refuses_what_it_cannot_convert_naming_the_layer(tmp_path, layer_text, message):
    fixture.write_caffemodel(os.path.join(str(tmp_path), 'net.caffemodel'))
    prototxt = ('layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 2 dim: 3 '
                'dim: 3 } } }\n' + layer_text)
    with pytest.raises((KeyError, NotImplementedError)) as info:
        CaffeAdapter().load_model(_conf(tmp_path, prototxt))
    assert message in str(info.value)


def test_adapter_reads_v1_layers_and_net_level_inputs(tmp_path):
    prototxt = '''name: "old" input: "img" input_dim: 1 input_dim: 2 input_dim: 4 input_dim: 4
        layers { name: "c" type: CONVOLUTION bottom: "img" top: "c" convolution_param { num_output: 3 kernel_size: 3 } }
        layers { name: "r" type: RELU bottom: "c" top: "c" }
        layers { name: "f" type: INNER_PRODUCT bottom: "c" top: "f" inner_product_param { num_output: 2 } }'''
    weights = caffe_pb2.NetParameter()
    rng = np.random.RandomState(0)
    blobs = {'c': [(3, 2, 3, 3), (3,)], 'f': [(2, 12), (2,)]}
    values = {}
    for name, shapes in blobs.items():
        layer = weights.layers.add(name=name)
        values[name] = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        for array in values[name]:
            layer.blobs.add(data=array.ravel().tolist())
    with open(os.path.join(str(tmp_path), 'net.caffemodel'), 'wb') as handle:
        handle.write(weights.SerializeToString())
    conf = _conf(tmp_path, prototxt)
    model = CaffeAdapter().load_model(conf)
    assert [(p.op_name, p.tensor) for p in model.data_provider] == [('img', [2, 4, 4])]
    net = CntkApiInstance(model, conf).get_model()
    x = rng.uniform(-1, 1, (2, 4, 4)).astype(np.float32)
    hidden = np.maximum(_conv_reference(x, values['c'][0], (1, 1), (0, 0)) + values['c'][1][:, None, None], 0)
    expected = values['f'][0] @ hidden.ravel() + values['f'][1]
    np.testing.assert_allclose(net.eval(x[None]).ravel(), expected, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------- whole conversions

# CNTK 2.7's crosstalkcaffe converted the fixture's files (same prototxt, same caffemodel bytes); its saved model
# gave these for fixture.sample(): (sum, sum of absolute values) of each node's output, the logits, the output
ORACLE_NODE_SUMS = {
    'conv1': (26.231750, 170.525604), 'bn1': (88.877136, 94.542297), 'relu1': (91.709717, 91.709717),
    'conv2a': (-4.511146, 79.526703), 'conv2b': (12.561275, 128.910980), 'sum2': (8.050133, 122.890854),
    'cat2': (99.759850, 214.600571), 'pool1': (51.617306, 67.196091), 'pool2': (52.300491, 67.697533),
    'drop': (52.300491, 67.697533), 'fc1': (-4.004284, 8.527191),
}
ORACLE_LOGITS = [-1.1698432, -3.2752867, 1.970724, 0.29072905, -1.8206078]
ORACLE_PROB = [0.0344011, 0.0041898, 0.7952494, 0.1482145, 0.0179452]
ORACLE_PARAMETERS = [
    ('bn1.bias', (4,)), ('bn1.mean', (4,)), ('bn1.scale', (4,)), ('bn1.var', (4,)), ('conv1.W', (4, 3, 3, 3)),
    ('conv1.b', (4, 1, 1)), ('conv2a.W', (4, 4, 1, 1)), ('conv2a.b', (4, 1, 1)), ('conv2b.0.W', (2, 2, 3, 3)),
    ('conv2b.1.W', (2, 2, 3, 3)), ('conv2b.b', (4, 1, 1)), ('fc1.b', (5,)), ('fc1.sc', (8, 4, 4, 5))]


def test_conversion_gives_cntk27s_converted_model(tmp_path, capsys):
    conf_path = fixture.write_files(str(tmp_path))
    assert CaffeConverter.from_model(conf_path) is None
    assert 'Detect validator disable' in capsys.readouterr().out
    model = cntk.load_model(os.path.join(str(tmp_path), 'model.cntk'))
    assert [o.name for o in model.outputs] == ['prob'] and model.name == 'outputs'
    (data,) = model.arguments
    assert (data.name, data.shape) == ('data', (3, 8, 8))
    assert sorted((p.name, p.shape) for p in model.parameters) == ORACLE_PARAMETERS
    x = fixture.sample()
    np.testing.assert_allclose(model.eval({data: x}).ravel(), ORACLE_PROB, atol=2e-7)
    for name, (total, magnitude) in ORACLE_NODE_SUMS.items():
        node = model.find_by_name(name)
        values = cntk.combine([node.output]).eval({data: x})
        assert float(values.sum()) == pytest.approx(total, abs=2e-5), name
        assert float(np.abs(values).sum()) == pytest.approx(magnitude, abs=2e-5), name
    fc1 = model.find_by_name('fc1')
    np.testing.assert_allclose(cntk.combine([fc1.output]).eval({data: x}).ravel(), ORACLE_LOGITS, atol=2e-6)


def test_conversion_with_validation_writes_inputs_and_watched_outputs(tmp_path, capfd):
    conf_path = fixture.write_files(str(tmp_path))
    with open(conf_path) as handle:
        conf = json.load(handle)
    values = fixture.sample().ravel().tolist()
    conf['ValidSolver'] = {'SavePath': os.path.join(str(tmp_path), 'valid'), 'ValInputs': {'data': [values]},
                           'ValNodes': {'fc1': 'fc1_blob', 'prob': 'prob'}}
    with open(conf_path, 'w') as handle:
        json.dump(conf, handle)
    CaffeConverter.from_model(conf_path)
    out = capfd.readouterr().out          # the Caffe side writes to the process's own stdout, as CNTK's does
    assert 'Start validating model' in out and 'No caffe runtime support' in out   # no pycaffe here
    saved = sorted(os.listdir(os.path.join(str(tmp_path), 'valid')))
    assert saved == ['data.npy', 'fc1_blob.npy', 'prob.npy']
    np.testing.assert_allclose(np.load(os.path.join(str(tmp_path), 'valid', 'prob.npy')).ravel(), ORACLE_PROB,
                               atol=2e-7)


def test_configuration_keys_and_names():
    assert [utils.format.camel_to_snake(n) for n in ('BatchNorm', 'LRN', 'PSROIPooling', 'CNTKModelPath',
                                                     'PHASE', 'Conv2D')] == \
        ['batch_norm', 'lrn', 'psroi_pooling', 'cntk_model_path', 'phase', 'conv_2_d']
    assert set(ADAPTER_DICT) == {'Caffe'}


def test_load_conf_maps_camel_case_sections(tmp_path):
    path = os.path.join(str(tmp_path), 'conf.json')
    with open(path, 'w') as handle:
        json.dump({'SourceSolver': {'Source': 'Caffe', 'ModelPath': 'a.prototxt', 'WeightsPath': 'a.caffemodel',
                                    'PHASE': 1, 'Unknown': 3},
                   'ModelSolver': {'CNTKModelPath': 'a.cntk', 'CNTKTensor': {'data': [3, 4, 4]}},
                   'ValidSolver': {'SavePath': None}}, handle)
    conf = globalconf.load_conf(path)
    assert isinstance(conf.source_solver, globalconf.SourceSolverConf)
    assert (conf.source_solver.model_path, conf.source_solver.weights_path, conf.source_solver.phase) == \
        ('a.prototxt', 'a.caffemodel', 1)
    assert not hasattr(conf.source_solver, 'unknown')
    assert conf.model_solver.cntk_tensor == {'data': [3, 4, 4]} and conf.valid_solver.save_path is None
    assert validcore.Validator(conf, {}).val_network() is False


def test_cntk_tensor_setting_overrides_the_input_shape(tmp_path):
    fixture.write_files(str(tmp_path))
    conf = _conf(tmp_path)
    conf.model_solver.cntk_tensor = {'data': [3, 8, 8]}
    instance = CntkApiInstance(CaffeAdapter().load_model(conf), conf)
    assert instance.get_functions()['data'].shape == (3, 8, 8)
    np.testing.assert_allclose(instance.get_model().eval(fixture.sample()).ravel(), ORACLE_PROB, atol=2e-7)


def test_global_pooling_channel_softmax_and_concat_axis_keep_caffes_meaning(tmp_path):
    prototxt = '''layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 2 dim: 3 dim: 4 } } }
        layer { name: "sm" type: "Softmax" bottom: "data" top: "sm" }
        layer { name: "rows" type: "Concat" bottom: "sm" bottom: "data" top: "rows" concat_param { axis: 2 } }
        layer { name: "gap" type: "Pooling" bottom: "rows" top: "gap"
                pooling_param { pool: AVE global_pooling: true } }'''
    with open(os.path.join(str(tmp_path), 'net.caffemodel'), 'wb') as handle:
        handle.write(caffe_pb2.NetParameter().SerializeToString())
    conf = _conf(tmp_path, prototxt)
    model = CaffeAdapter().load_model(conf)
    assert model.cntk_layers['rows'].tensor == [2, 6, 4] and model.cntk_layers['gap'].tensor == [2, 1, 1]
    functions = CntkApiInstance(model, conf).get_functions()
    x = np.random.RandomState(5).uniform(-2, 2, (1, 2, 3, 4)).astype(np.float32)
    soft = np.exp(x[0]) / np.exp(x[0]).sum(axis=0)
    np.testing.assert_allclose(functions['sm'].eval(x)[0], soft, rtol=1e-5)
    np.testing.assert_allclose(functions['rows'].eval(x)[0], np.concatenate([soft, x[0]], axis=1), rtol=1e-5)
    np.testing.assert_allclose(functions['gap'].eval(x)[0].ravel(),
                               np.concatenate([soft, x[0]], axis=1).mean(axis=(1, 2)), rtol=1e-5)


# CNTK 2.7's converter on the same ResNet-style files (its copy of the prototxt spelled out each Eltwise's
# `operation: SUM`, which it needs; Caffe's default is SUM)
ORACLE_RESNET_LOGITS = [1.940132, 4.37286, -1.598886, 1.976347, 5.872973, 8.115302, -7.38519, 1.312651, -5.217983,
                        1.902718]
ORACLE_RESNET_PROB = [0.001829255, 0.02083506, 5.312494e-05, 0.001896715, 0.09338684, 0.8792586, 1.630566e-07,
                      0.0009767041, 1.424112e-06, 0.00176208]


def test_resnet_style_network_converts_to_cntk27s_numbers(tmp_path):
    CaffeConverter.from_model(fixture.write_resnet_files(str(tmp_path)))
    model = cntk.load_model(os.path.join(str(tmp_path), 'model.cntk'))
    assert len(model.parameters) == 77 and sum(p.value.size for p in model.parameters) == 5506
    x = fixture.resnet_sample()
    assert model.find_by_name('pool1').output.shape == (8, 16, 16)     # 32 -> 16: Caffe's rounding up
    logits = cntk.combine([model.find_by_name('fc10').output]).eval({model.arguments[0]: x}).ravel()
    np.testing.assert_allclose(logits, ORACLE_RESNET_LOGITS, atol=2e-5)
    np.testing.assert_allclose(model.eval({model.arguments[0]: x}).ravel(), ORACLE_RESNET_PROB, rtol=2e-5,
                               atol=1e-9)


def test_layers_read_but_not_built_fail_when_instanced_naming_the_layer(tmp_path):
    # PSROIPooling is read into the uniform model (as in CNTK 2.7) but there is no CNTK op to build it with
    prototxt = ('layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 8 dim: 4 '
                'dim: 4 } } }\nlayer { name: "ps" type: "PSROIPooling" bottom: "data" top: "ps" '
                'psroi_pooling_param { spatial_scale: 1 output_dim: 2 group_size: 2 } }')
    fixture.write_caffemodel(os.path.join(str(tmp_path), 'net.caffemodel'))
    conf = _conf(tmp_path, prototxt)
    model = CaffeAdapter().load_model(conf)
    assert model.cntk_layers['ps'].tensor == [2, 2, 2]
    with pytest.raises(NotImplementedError, match="layer 'ps': the CNTK op 'psroi_pooling'"):
        CntkApiInstance(model, conf)
    with pytest.raises(KeyError) as info:
        CaffeAdapter().load_model(_conf(tmp_path, prototxt.replace('PSROIPooling', 'Deconvolution')))
    assert "(supported: BatchNorm, Concat, Convolution, Dropout, Eltwise, InnerProduct, Input, LRN, Pooling, " \
        "ReLU, Scale, Softmax)" in str(info.value)
