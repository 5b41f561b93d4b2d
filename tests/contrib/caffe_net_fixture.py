"""A small Caffe network written for the crosstalkcaffe tests: its .prototxt text and a .caffemodel serialized
with the converter's own Caffe schema, with deterministic weights (legacy RandomState, stable across numpy
versions). Shared by the tests and by the script that ran the same files through CNTK 2.7's converter."""
import json
import os

import numpy as np

PROTOTXT = """
name: "TinyCaffeNet"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
        param { lr_mult: 1 } param { lr_mult: 2 }
        convolution_param { num_output: 4 kernel_size: 3 pad: 1 stride: 1 weight_filler { type: "xavier" } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "bn1" batch_norm_param { eps: 0.001 } }
layer { name: "scale1" type: "Scale" bottom: "bn1" top: "bn1" scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "bn1" top: "bn1" }
layer { name: "conv2a" type: "Convolution" bottom: "bn1" top: "conv2a"
        convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "conv2b" type: "Convolution" bottom: "bn1" top: "conv2b"
        convolution_param { num_output: 4 kernel_size: 3 pad: 1 group: 2 } }
layer { name: "sum2" type: "Eltwise" bottom: "conv2a" bottom: "conv2b" top: "sum2" eltwise_param { operation: SUM } }
layer { name: "cat2" type: "Concat" bottom: "sum2" bottom: "bn1" top: "cat2" concat_param { axis: 1 } }
layer { name: "pool1" type: "Pooling" bottom: "cat2" top: "pool1" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "pool2" type: "Pooling" bottom: "pool1" top: "pool2"
        pooling_param { pool: AVE kernel_size: 3 stride: 1 pad: 1 } }
layer { name: "drop" type: "Dropout" bottom: "pool2" top: "pool2" dropout_param { dropout_ratio: 0.3 } }
layer { name: "fc1" type: "InnerProduct" bottom: "pool2" top: "fc1" inner_product_param { num_output: 5 } }
layer { name: "prob" type: "Softmax" bottom: "fc1" top: "prob" }
"""

# a training-only layer (CNTK 2.7's converter cannot take it; the phase rules drop it here)
TRAIN_ONLY_LAYER = """
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc1" bottom: "label" top: "loss" include { phase: TRAIN } }
"""

INPUT_SHAPE = (3, 8, 8)


def _blob_shapes():
    """Each weighted layer's blobs in Caffe's layouts (the pooled map is 8 x 4 x 4)."""
    return [
        ("conv1", "Convolution", [(4, 3, 3, 3), (4,)]),
        ("bn1", "BatchNorm", [(4,), (4,), (1,)]),
        ("scale1", "Scale", [(4,), (4,)]),
        ("conv2a", "Convolution", [(4, 4, 1, 1), (4,)]),
        ("conv2b", "Convolution", [(4, 2, 3, 3), (4,)]),
        ("fc1", "InnerProduct", [(5, 8 * 4 * 4), (5,)]),
    ]


def weights():
    """{layer: [arrays]}: random weights, BatchNorm's accumulated statistics with accumulation factor 2."""
    rng = np.random.RandomState(20171127)
    out = {}
    for name, _, shapes in _blob_shapes():
        arrays = [rng.uniform(-0.5, 0.5, size=s).astype(np.float32) for s in shapes]
        if name == "bn1":
            factor = np.float32(2.0)
            mean = rng.uniform(-0.2, 0.2, size=shapes[0]).astype(np.float32)
            var = rng.uniform(0.5, 1.5, size=shapes[1]).astype(np.float32)
            arrays = [mean * factor, var * factor, np.array([factor], np.float32)]
        out[name] = arrays
    return out


def sample():
    """One input sample (3, 8, 8)."""
    return np.random.RandomState(7).uniform(-1, 1, size=(1,) + INPUT_SHAPE).astype(np.float32)


def write_caffemodel(path):
    """Serialize the weights as a binary NetParameter (layers with name, type and shaped blobs)."""
    from cntk_compat.contrib.crosstalkcaffe.adapter.bvlccaffe import caffe_pb2
    net = caffe_pb2.NetParameter(name="TinyCaffeNet")
    values = weights()
    for name, kind, _ in _blob_shapes():
        layer = net.layer.add(name=name, type=kind)
        for array in values[name]:
            blob = layer.blobs.add()
            blob.shape.dim.extend(array.shape)
            blob.data.extend(array.reshape(-1).tolist())
    with open(path, "wb") as handle:
        handle.write(net.SerializeToString())


def write_files(folder, extra_layers=""):
    """Write net.prototxt (with ``extra_layers`` appended), net.caffemodel and conf.json (converting to
    model.cntk) into ``folder``; return the configuration's path."""
    prototxt = os.path.join(folder, "net.prototxt")
    with open(prototxt, "w") as handle:
        handle.write(PROTOTXT + extra_layers)
    caffemodel = os.path.join(folder, "net.caffemodel")
    write_caffemodel(caffemodel)
    conf = {
        "SourceSolver": {"Source": "Caffe", "ModelPath": prototxt, "WeightsPath": caffemodel, "PHASE": 1},
        "ModelSolver": {"CNTKModelPath": os.path.join(folder, "model.cntk")},
        "ValidSolver": {},
    }
    conf_path = os.path.join(folder, "conf.json")
    with open(conf_path, "w") as handle:
        json.dump(conf, handle)
    return conf_path


def _resnet_style():
    """A small ResNet-style deploy network in Caffe's usual form (in-place BatchNorm/Scale/ReLU, bottleneck blocks
    with projection shortcuts, Eltwise without settings, max pooling whose output rounds up, a global average
    pooling window, a classifier) and its weights: (prototxt text, [(layer, [arrays])])."""
    rng = np.random.RandomState(11)
    lines = ['layer { name: "data" type: "Input" top: "data" '
             'input_param { shape { dim: 1 dim: 3 dim: 64 dim: 64 } } }']
    blobs = []

    def conv(name, bottom, out, k, stride, pad, cin):
        lines.append('layer { name: "%s" type: "Convolution" bottom: "%s" top: "%s" convolution_param { '
                     'num_output: %d kernel_size: %d stride: %d pad: %d bias_term: false } }'
                     % (name, bottom, name, out, k, stride, pad))
        blobs.append((name, [rng.normal(0, np.sqrt(2. / (cin * k * k)), (out, cin, k, k))]))

    def norm(name, channels):
        lines.append('layer { name: "bn_%s" type: "BatchNorm" bottom: "%s" top: "%s" '
                     'batch_norm_param { use_global_stats: true } }' % (name, name, name))
        lines.append('layer { name: "scale_%s" type: "Scale" bottom: "%s" top: "%s" scale_param { bias_term: true } }'
                     % (name, name, name))
        factor = 999.98
        blobs.append(('bn_' + name, [rng.uniform(-.1, .1, channels) * factor,
                                     rng.uniform(.5, 1.5, channels) * factor, np.array([factor])]))
        blobs.append(('scale_' + name, [rng.uniform(.8, 1.2, channels), rng.uniform(-.1, .1, channels)]))

    def relu(name):
        lines.append('layer { name: "%s_relu" type: "ReLU" bottom: "%s" top: "%s" }' % (name, name, name))

    conv('conv1', 'data', 8, 7, 2, 3, 3)
    norm('conv1', 8)
    relu('conv1')
    lines.append('layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1" '
                 'pooling_param { kernel_size: 3 stride: 2 pool: MAX } }')
    previous, channels = 'pool1', 8
    for stage, (middle, out, stride) in enumerate([(4, 16, 1), (8, 32, 2)]):
        for block in 'ab':
            step = stride if block == 'a' else 1
            name = 'res%d%s' % (stage + 2, block)
            shortcut = previous
            if block == 'a':
                shortcut = name + '_branch1'
                conv(shortcut, previous, out, 1, step, 0, channels)
                norm(shortcut, out)
            conv(name + '_branch2a', previous, middle, 1, step, 0, channels)
            norm(name + '_branch2a', middle)
            relu(name + '_branch2a')
            conv(name + '_branch2b', name + '_branch2a', middle, 3, 1, 1, middle)
            norm(name + '_branch2b', middle)
            relu(name + '_branch2b')
            conv(name + '_branch2c', name + '_branch2b', out, 1, 1, 0, middle)
            norm(name + '_branch2c', out)
            lines.append('layer { name: "%s" type: "Eltwise" bottom: "%s" bottom: "%s" top: "%s" }'
                         % (name, shortcut, name + '_branch2c', name))
            relu(name)
            previous, channels = name, out
    lines.append('layer { name: "pool5" type: "Pooling" bottom: "%s" top: "pool5" '
                 'pooling_param { kernel_size: 8 stride: 1 pool: AVE } }' % previous)
    lines.append('layer { name: "fc10" type: "InnerProduct" bottom: "pool5" top: "fc10" '
                 'inner_product_param { num_output: 10 } }')
    blobs.append(('fc10', [rng.normal(0, .2, (10, 32)), rng.uniform(-.1, .1, 10)]))
    lines.append('layer { name: "prob" type: "Softmax" bottom: "fc10" top: "prob" }')
    return 'name: "ResNetTiny"\n' + '\n'.join(lines) + '\n', blobs


def resnet_sample():
    """One input sample (3, 64, 64) for the ResNet-style network."""
    return np.random.RandomState(1).uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)


def write_resnet_files(folder):
    """Write the ResNet-style network's prototxt, caffemodel and conf.json into ``folder``; return the
    configuration's path."""
    from cntk_compat.contrib.crosstalkcaffe.adapter.bvlccaffe import caffe_pb2
    text, blobs = _resnet_style()
    with open(os.path.join(folder, "net.prototxt"), "w") as handle:
        handle.write(text)
    net = caffe_pb2.NetParameter(name="ResNetTiny")
    for name, arrays in blobs:
        layer = net.layer.add(name=name)
        for array in arrays:
            blob = layer.blobs.add()
            blob.shape.dim.extend(np.shape(array))
            blob.data.extend(np.asarray(array, np.float32).ravel().tolist())
    with open(os.path.join(folder, "net.caffemodel"), "wb") as handle:
        handle.write(net.SerializeToString())
    conf = {"SourceSolver": {"Source": "Caffe", "ModelPath": os.path.join(folder, "net.prototxt"),
                             "WeightsPath": os.path.join(folder, "net.caffemodel"), "PHASE": 1},
            "ModelSolver": {"CNTKModelPath": os.path.join(folder, "model.cntk")}}
    conf_path = os.path.join(folder, "conf.json")
    with open(conf_path, "w") as handle:
        json.dump(conf, handle)
    return conf_path
