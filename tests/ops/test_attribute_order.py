"""Function.attributes lists its keys in CNTK 2.7's order (the order of its native Dictionary; key lists from
running CNTK 2.7), so that printing an attributes dict gives CNTK's text."""
import numpy as np

import cntk as C


def keys(f):
    return list(f.root_function.attributes)


def test_convolution_pooling_and_batch_normalization():
    x = C.input_variable((3, 8, 8))
    conv = ['groups', 'maxTempMemSizeInSamples', 'kernelShape', 'outputShape', 'transpose', 'lowerPad', 'sequential',
            'autoPadding', 'sharing', 'upperPad', 'dilation', 'strides']
    assert keys(C.convolution(C.parameter((5, 3, 3, 3), init=0.1), x)) == conv
    assert keys(C.convolution_transpose(C.parameter((3, 5, 3, 3), init=0.1), x)) == conv
    pool = ['includePad', 'upperPad', 'lowerPad', 'ceilOutDim', 'autoPadding', 'strides', 'poolingWindowShape',
            'poolingType']
    assert keys(C.pooling(x, C.MAX_POOLING, (2, 2))) == pool
    assert keys(C.unpooling(C.pooling(x, C.MAX_POOLING, (2, 2), (2, 2)), x, C.MAX_UNPOOLING, (2, 2), (2, 2))) == \
        ['upperPad', 'lowerPad', 'autoPadding', 'strides', 'unpoolingWindowShape', 'poolingType']
    bn = C.batch_normalization(x, C.parameter((3, 1, 1)), C.parameter((3, 1, 1)), C.constant(np.zeros((3, 1, 1))),
                               C.constant(np.ones((3, 1, 1))), True, running_count=C.constant(0))
    assert keys(bn) == ['useCuDNNEngine', 'epsilon', 'blendTimeConstant', 'normalizationTimeConstant',
                        'disableRegularization', 'spatial']
    assert str(C.dropout(x, 0.5, seed=7).root_function.attributes) == "{'rngOffset': 0, 'rngSeed': 7, 'dropoutRate': 0.5}"


def test_shaping_and_reductions():
    x = C.input_variable((3, 8, 8))
    assert keys(C.slice(x, 1, 2, 5)) == ['sliceStrides', 'endIndex', 'beginIndex', 'axis']
    assert keys(C.slice(x, [1, 2], [0, 1], [2, 3])) == ['sliceStridesVec', 'endIndexVec', 'beginIndexVec', 'axisVec']
    assert keys(C.reshape(x, (3, 64))) == ['endAxis', 'beginAxis', 'newShape']
    assert keys(C.pad(x, [(0, 0), (1, 1), (1, 1)])) == ['paddingConstantValue', 'paddingMode', 'paddingFoot',
                                                        'paddingHead']
    assert keys(C.reduce_sum(x, axis=1)) == ['reductionOpName', 'reductionKeepDimensions', 'axisVec']
    assert keys(C.argmax(x, axis=0)) == ['reductionKeepDimensions', 'reductionOpName', 'axis']
    assert keys(C.one_hot(C.input_variable(1), 5)) == ['onehotAxis', 'oneHotOutputSparse', 'numClass']
    assert keys(C.top_k(C.input_variable(5), 2)) == ['numItems', 'axis']
    assert keys(C.times(C.input_variable(4), C.parameter((4, 5)))) == ['inferInputRankToMap', 'outputRank']


def test_sequence_ops_and_the_rnn_stack():
    s = C.sequence.input_variable(4)
    assert keys(C.sequence.past_value(s)) == ['offset']
    assert keys(C.sequence.unpack(s, 0)) == ['sequenceUnpackSuppressMaskOutput', 'sequenceUnpackPaddingValue']
    rnn = C.optimized_rnnstack(s, C.parameter((-1, 5)), 5, 2, recurrent_op='lstm')
    assert str(rnn.root_function.attributes) == \
        "{'recurrentOp': 'lstm', 'bidirectional': False, 'numLayers': 2, 'hiddenSize': 5}"
    assert keys(C.edit_distance_error(C.input_variable(5), C.input_variable(5))) == \
        ['TokensToIgnore', 'SquashInputs', 'DeletionPenalty', 'InsertionPenalty', 'SubstitutionPenalty']
