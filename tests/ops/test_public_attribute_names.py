"""Function.attributes of ops whose CNTK names differ from the stored ones (expected dicts, in CNTK's key order,
from running CNTK 2.7)."""
import numpy as np

import cntk as C


def attrs(f):
    return f.root_function.attributes


def test_axes_as_cntk_keeps_them():
    x = C.input_variable((3, 8, 8))
    assert attrs(C.softmax(x, axis=1)) == {'axis': ('ordered', 'static', -2)}
    assert attrs(C.log_softmax(x, axis=0)) == {'axis': ('ordered', 'static', -1)}
    assert attrs(C.softmax(x)) == {}
    assert attrs(C.log_softmax(x)) == {'axis': ('ordered', 'static', 0)}
    assert attrs(C.softmax(x, axis=-2)) == {'axis': ('ordered', 'static', 1)}
    ref = C.constant(np.arange(12., dtype=np.float32).reshape(3, 4))
    assert attrs(C.gather(ref, C.input_variable(1), axis=1)) == {'axis': ('ordered', 'static', -2)}
    assert C.gather(ref, C.input_variable(1), axis=1).root_function.op_name == 'GatherOp'
    assert C.gather(ref, C.input_variable(1)).root_function.op_name == 'Gather'
    assert attrs(C.swapaxes(x, 0, 2)) == {'axis2': ('ordered', 'static', 0), 'axis1': ('ordered', 'static', 2)}
    assert list(attrs(C.swapaxes(C.input_variable((2, 3))))) == ['axis2', 'axis1']
    assert attrs(C.gather(ref, C.input_variable(1))) == {}
    assert attrs(C.squeeze(C.input_variable((1, 3, 1)), axes=[0])) == {'axisVec': [('ordered', 'static', -1)]}
    assert attrs(C.squeeze(C.input_variable((1, 3)))) == {}
    assert attrs(C.expand_dims(x, -1)) == {}
    assert attrs(C.transpose(x, (1, 0, 2))) == {
        'axisVec': [('ordered', 'static', 0), ('ordered', 'static', 2), ('ordered', 'static', 1)]}
    assert attrs(C.sequence.slice(C.sequence.input_variable(2), 0, 2)) == {}


def test_transposed_convolution_leaves_the_channel_axis_unpadded():
    x = C.input_variable((3, 8, 8))
    w = C.parameter((3, 5, 3, 3), init=0.1)
    for given, reported in (([True], [False, True, True]), ([True, False], [False, True, False]),
                            ([False], [False, False, False]), ([True, False, True], [True, False, True])):
        assert attrs(C.convolution_transpose(w, x, strides=(2, 2), auto_padding=given))['autoPadding'] == reported


def test_random_ops():
    assert str(attrs(C.random.normal((2, 3), mean=1, scale=2, seed=3))) == (
        "{'newShape': (2, 3), 'newDataType': 1, 'rngOffset': 0, 'rngSeed': 3, 'randomDistributionArgs': [1.0, 2.0], "
        "'randomDistributionType': 'normal'}")
    assert attrs(C.random.bernoulli((2, 3), mean=0.3, seed=3))['randomDistributionArgs'] == [0.3]
    assert str(attrs(C.random.uniform_like(C.input_variable(3), seed=3))) == (
        "{'rngOffset': 0, 'rngSeed': 3, 'randomDistributionArgs': [0.0, 1.0], 'randomDistributionType': 'uniform'}")
    assert str(attrs(C.random_sample(C.input_variable(5), 2, False, seed=4))) == \
        "{'rngOffset': 0, 'rngSeed': 4, 'allowDuplicates': False, 'numSamples': 2}"
    assert str(attrs(C.random_sample_inclusion_frequency(C.input_variable(5), 2, False, seed=4))) == \
        "{'rngOffset': 0, 'rngSeed': 4, 'allowDuplicates': False, 'numSamples': 2}"


def test_other_renamed_attributes():
    x = C.input_variable((3, 8, 8))
    assert attrs(C.cast(x, np.float64)) == {'newDataType': 2}
    assert attrs(C.cast(x, np.float16)) == {'newDataType': 4}
    assert str(attrs(C.local_response_normalization(x, 2, 1.0, 0.0001, 0.75))) == \
        "{'beta': 0.75, 'alpha': 0.0001, 'bias': 1.0, 'depthRadius': 2}"
    assert str(attrs(C.roipooling(x, C.input_variable((4, 4)), C.MAX_POOLING, (2, 2), 0.5))) == \
        "{'spatialScale': 0.5, 'roiOutputShape': (2, 2), 'poolingType': 0}"
    assert str(attrs(C.selu(x))) == "{'alpha': 1.6732632423543772, 'gamma': 1.0507009873554805}"
    assert attrs(C.depth_to_space(C.input_variable((4, 2, 2)), 2)) == {'blockSize': 2}
    assert attrs(C.space_to_depth(C.input_variable((1, 4, 4)), 2)) == {'blockSize': 2}
    assert attrs(C.times_transpose(C.input_variable(4), C.parameter((5, 4)))) == {'outputRank': 1}
