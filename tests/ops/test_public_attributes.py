"""Function.attributes reports CNTK's names and values (expected dicts from running CNTK 2.7; an axis is reported as
the tuple (ordering, kind, index or name))."""
import numpy as np

import cntk as C


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
    assert attrs(C.slice(x, 1, 0, 4)) == {'sliceStrides': 1, 'endIndex': 4, 'beginIndex': 0, 'axis': ('ordered', 'static', 1)}
    assert attrs(C.slice(x, [1, 2], [0, 1], [4, 5])) == {
        'sliceStridesVec': [1, 1], 'endIndexVec': [4, 5], 'beginIndexVec': [0, 1], 'axisVec': [('ordered', 'static', 1), ('ordered', 'static', 0)]}
    assert attrs(C.splice(x, x, axis=0)) == {'axis': ('ordered', 'static', 2)}
    assert attrs(C.reshape(x, (64,))) == {'endAxis': ('ordered', 'static', 3), 'beginAxis': ('ordered', 'static', 0), 'newShape': (64,)}
    assert attrs(C.pad(x, [(0, 0), (1, 1), (1, 1)])) == {
        'paddingConstantValue': 0.0, 'paddingMode': 0, 'paddingFoot': [1, 1, 0], 'paddingHead': [1, 1, 0]}
    assert attrs(C.crop_manual(x, C.input_variable((1, 4, 4)), 1, 1)) == {'offset': [1, 1]}


def test_sequence_and_misc_ops():
    s = C.sequence.input_variable(3)
    assert attrs(C.sequence.past_value(s, initial_state=0.5, time_step=2)) == {'offset': 2}
    assert attrs(C.sequence.future_value(s)) == {'offset': 1}
    assert attrs(C.times(s, C.parameter((3, 4)))) == {'inferInputRankToMap': -1, 'outputRank': 1}
    assert attrs(C.one_hot(s, 5)) == {'onehotAxis': ('ordered', 'static', 0), 'oneHotOutputSparse': False, 'numClass': 5}
    assert attrs(C.top_k(s, 2)) == {'numItems': 2, 'axis': ('ordered', 'static', 0)}
    assert attrs(C.sequence.unpack(s, 0.0)) == {'sequenceUnpackSuppressMaskOutput': False,
                                                'sequenceUnpackPaddingValue': 0.0}
    assert attrs(C.dropout(s, 0.3, seed=4)) == {'rngOffset': 0, 'rngSeed': 4, 'dropoutRate': 0.3}
    roi = C.roipooling(C.input_variable((1, 8, 8)), C.input_variable((4, 4)), C.MAX_POOLING, (2, 2), 0.5)
    assert attrs(roi) == {'spatialScale': 0.5, 'roiOutputShape': (2, 2), 'poolingType': 0}


def test_convolution_transpose_and_kernels_without_output_maps():
    x = C.input_variable((1, 5, 5))
    k = C.constant(np.ones((1, 2, 2), np.float32))  # a kernel of the operand's rank: one output map
    conv = attrs(C.convolution(k, x, auto_padding=[False]))
    assert conv['kernelShape'] == (1, 2, 2) and conv['autoPadding'] == [False, False, False]
    assert attrs(C.convolution_transpose(k, x, auto_padding=[False])) == {
        'autoPadding': [False, False, False], 'sharing': [True, True, True], 'groups': 1, 'strides': (1, 1, 1),
        'dilation': (1, 1, 1), 'maxTempMemSizeInSamples': 0, 'upperPad': (0, 0, 0), 'lowerPad': (0, 0, 0),
        'transpose': True, 'outputShape': (0,), 'kernelShape': (1, 2, 2), 'sequential': False}
    w = C.parameter((1, 3, 2, 2), init=1)
    a = attrs(C.convolution_transpose(w, x, strides=(2, 2), output_shape=(3, 10, 10), auto_padding=[False, True]))
    assert (a['kernelShape'], a['outputShape'], a['strides'], a['autoPadding']) == \
        ((3, 2, 2), (3, 10, 10), (2, 2, 2), [False, False, True])
    x3 = C.input_variable((3, 9, 9))
    w3 = C.parameter((3, 2, 2, 2), init=1)
    assert [attrs(C.convolution_transpose(w3, x3, strides=s, auto_padding=[False]))['strides']
            for s in (2, (2, 3), (1, 2, 3))] == [(3, 2, 2), (3, 2, 3), (1, 2, 3)]


def test_axes_in_attributes_are_cntks_tuples():
    x = C.input_variable((2, 3))
    assert attrs(C.slice(x, 0, 1, 2)) == {'endIndex': 2, 'beginIndex': 1, 'axis': ('ordered', 'static', 1),
                                          'sliceStrides': 1}
    assert attrs(C.slice(x, [0, 1], [1, 0], [2, 2], [-1, 1])) == {
        'endIndexVec': [2, 2], 'beginIndexVec': [1, 0], 'axisVec': [('ordered', 'static', 1), ('ordered', 'static', 0)],
        'sliceStridesVec': [-1, 1]}
    assert str(C.Axis(1)) == repr(C.Axis(1)) == "Axis('staticAxisIdx=1')" and str(C.Axis(-1)) == "Axis('staticAxisIdx=-1')"


def test_reductions_report_cntks_attributes():
    # values from CNTK 2.7 (a static axis by its negative column-major index)
    x = C.input_variable((3, 4))
    assert attrs(C.reduce_sum(x, axis=1)) == {'axisVec': [('ordered', 'static', -2)],
                                              'reductionKeepDimensions': True, 'reductionOpName': 'Sum'}
    assert attrs(C.reduce_mean(x, axis=(0, 1))) == {
        'axisVec': [('ordered', 'static', -1), ('ordered', 'static', -2)], 'reductionKeepDimensions': True,
        'reductionOpName': 'Mean'}
    assert attrs(C.reduce_max(x, axis=0, keepdims=False))['reductionKeepDimensions'] is False
    assert attrs(C.reduce_log_sum_exp(x, axis=1))['reductionOpName'] == 'LogSum'
    assert attrs(C.reduce_sum(x, axis=C.Axis.default_batch_axis()))['axisVec'] == \
        [('unordered', 'dynamic', 'defaultBatchAxis')]
    assert attrs(C.reduce_l1(x, axis=1)) == {'axisVec': [('ordered', 'static', -2)], 'reductionKeepDimensions': True}
    assert attrs(C.argmax(x, axis=1)) == {'axis': ('ordered', 'static', 0), 'reductionKeepDimensions': True,
                                          'reductionOpName': 'Argmax'}
    assert attrs(C.argmin(x, axis=0))['axis'] == ('ordered', 'static', 1)


def test_batch_normalization_and_global_pooling():
    # found through the layers (cntk.layers.BatchNormalization passes use_cudnn_engine=not use_cntk_engine)
    x = C.input_variable((2, 3, 3))
    bn = C.layers.BatchNormalization()(x).root_function.block_root
    assert bn.attributes == {'blendTimeConstant': 0.0, 'disableRegularization': False, 'epsilon': 1e-05,
                             'normalizationTimeConstant': 5000.0, 'spatial': False, 'useCuDNNEngine': True}
    bn = C.layers.BatchNormalization(use_cntk_engine=True, map_rank=1, epsilon=0.01, normalization_time_constant=100,
                                     blend_time_constant=3, disable_regularization=True)(x).root_function.block_root
    assert bn.attributes == {'blendTimeConstant': 3.0, 'disableRegularization': True, 'epsilon': 0.01,
                             'normalizationTimeConstant': 100.0, 'spatial': True, 'useCuDNNEngine': False}
    op = C.batch_normalization(x, C.parameter((2,)), C.parameter((2,)), C.constant(0, shape=(2,)),
                               C.constant(0, shape=(2,)), True, running_count=C.constant(0))
    assert attrs(op)['useCuDNNEngine'] is False
    # a global pooling shows the window it inferred
    gp = C.layers.GlobalAveragePooling()(x).root_function.block_root
    assert gp.attributes == {'autoPadding': [False], 'ceilOutDim': False, 'includePad': False, 'lowerPad': (0,),
                             'poolingType': 1, 'poolingWindowShape': (3, 3), 'strides': (1,), 'upperPad': (0,)}


def test_batch_normalization_engine_choice_is_saved(tmp_path):
    x = C.input_variable((2, 3, 3))
    for use_cntk_engine in (False, True):
        path = str(tmp_path / ("bn%d.model" % use_cntk_engine))
        C.layers.BatchNormalization(use_cntk_engine=use_cntk_engine)(x).save(path)
        loaded = C.load_model(path)
        bn = C.logging.graph.depth_first_search(
            loaded, lambda n: isinstance(n, C.Function) and n.op_name == 'BatchNormalization' and not n.is_block,
            depth=-1)
        assert [n.attributes['useCuDNNEngine'] for n in bn] == [not use_cntk_engine]


def test_unpooling():
    x = C.input_variable((1, 4, 4))
    p = C.pooling(x, C.MAX_POOLING, (2, 2), strides=(2, 2))
    assert attrs(C.unpooling(p, x, C.MAX_UNPOOLING, (2, 2), strides=(2, 2))) == {
        'autoPadding': [False], 'lowerPad': (0,), 'poolingType': 0, 'strides': (2, 2),
        'unpoolingWindowShape': (2, 2), 'upperPad': (0,)}
    layer = C.layers.MaxUnpooling((2, 2), strides=2)(C.layers.MaxPooling((2, 2), strides=2)(x), x)
    assert layer.root_function.block_root.attributes['autoPadding'] == [False, False]
