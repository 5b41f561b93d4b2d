"""Function.attributes reports CNTK's names and values (expected dicts from running CNTK 2.7)."""
import cntk as C
from cntk.axis import Axis


def attrs(f):
    return f.root_function.attributes


def test_convolution_and_pooling():
    x = C.input_variable((3, 8, 8))
    w = C.parameter((2, 3, 3, 3), init=0.1)
    assert attrs(C.convolution(w, x, strides=(2, 3), auto_padding=[True])) == {
        'groups': 1, 'maxTempMemSizeInSamples': 0, 'kernelShape': (3, 3, 3), 'outputShape': (0,),
        'transpose': False, 'lowerPad': (0, 0, 0), 'sequential': False, 'autoPadding': [True, True, True],
        'sharing': [True, True, True], 'upperPad': (0, 0, 0), 'dilation': (1, 1, 1), 'strides': (2, 2, 3)}
    assert attrs(C.convolution(w, x, strides=(2,), auto_padding=[False, True]))["autoPadding"] == \
        [False, False, True]
    assert attrs(C.pooling(x, C.AVG_POOLING, (2, 2), strides=(2, 1), auto_padding=[True])) == {
        'includePad': False, 'upperPad': (0,), 'lowerPad': (0,), 'ceilOutDim': False, 'autoPadding': [True],
        'strides': (2, 1), 'poolingWindowShape': (2, 2), 'poolingType': 1}


def test_shaping_ops():
    x = C.input_variable((1, 8, 8))
    assert attrs(C.slice(x, 1, 0, 4)) == {'sliceStrides': 1, 'endIndex': 4, 'beginIndex': 0, 'axis': Axis(1)}
    assert attrs(C.slice(x, [1, 2], [0, 1], [4, 5])) == {
        'sliceStridesVec': [1, 1], 'endIndexVec': [4, 5], 'beginIndexVec': [0, 1], 'axisVec': [Axis(1), Axis(0)]}
    assert attrs(C.splice(x, x, axis=0)) == {'axis': Axis(2)}
    assert attrs(C.reshape(x, (64,))) == {'endAxis': Axis(3), 'beginAxis': Axis(0), 'newShape': (64,)}
    assert attrs(C.pad(x, [(0, 0), (1, 1), (1, 1)])) == {
        'paddingConstantValue': 0.0, 'paddingMode': 0, 'paddingFoot': [1, 1, 0], 'paddingHead': [1, 1, 0]}
    assert attrs(C.crop_manual(x, C.input_variable((1, 4, 4)), 1, 1)) == {'offset': [1, 1]}


def test_sequence_and_misc_ops():
    s = C.sequence.input_variable(3)
    assert attrs(C.sequence.past_value(s, initial_state=0.5, time_step=2)) == {'offset': 2}
    assert attrs(C.sequence.future_value(s)) == {'offset': 1}
    assert attrs(C.times(s, C.parameter((3, 4)))) == {'inferInputRankToMap': -1, 'outputRank': 1}
    assert attrs(C.one_hot(s, 5)) == {'onehotAxis': Axis(0), 'oneHotOutputSparse': False, 'numClass': 5}
    assert attrs(C.top_k(s, 2)) == {'numItems': 2, 'axis': Axis(0)}
    assert attrs(C.sequence.unpack(s, 0.0)) == {'sequenceUnpackSuppressMaskOutput': False,
                                                'sequenceUnpackPaddingValue': 0.0}
    assert attrs(C.dropout(s, 0.3, seed=4)) == {'rngOffset': 0, 'rngSeed': 4, 'dropoutRate': 0.3}
    roi = C.roipooling(C.input_variable((1, 8, 8)), C.input_variable((4, 4)), C.MAX_POOLING, (2, 2), 0.5)
    assert attrs(roi) == {'spatialScale': 0.5, 'roiOutputShape': (2, 2)}
