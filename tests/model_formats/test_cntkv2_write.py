"""Writing CNTK's v2 model format (the default of Function.save): every registered op has a CNTK mapping or a
stated reason why not; a model per mapped op is saved, loaded back here, and -- where real CNTK 2.7 is installed
(CNTK27_PYTHON, default /root/.cache/cntk27/bin/python-cntk27) -- loaded and evaluated by CNTK 2.7 itself."""
import os
import subprocess

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.core.registry import registered_ops
from cntk_compat.layers import LSTM, Dense, Recurrence
from cntk_compat.model_formats import cntkv2_writer as W
from tests._user_functions import Doubling

CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")
RNG = np.random.RandomState(7)
X = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
S = [RNG.uniform(-1, 1, (4, 3)).astype(np.float32), RNG.uniform(-1, 1, (2, 3)).astype(np.float32)]


def _const(shape, low=-1.0, high=1.0, seed=0):
    return C.Constant(np.random.RandomState(seed).uniform(low, high, shape).astype(np.float32))


def _param(shape, seed=1):
    return C.Parameter(shape, init=np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32))


def _unit(x):
    return C.sigmoid(x)  # values in (0, 1) for ops with a restricted domain


def _batch_norm(x):
    shape = (3, 4)
    return C.batch_normalization(x, _param(shape, 2), _param(shape, 3), _const(shape, seed=4),
                                 _const(shape, 0.5, 2.0, seed=5), False, running_count=C.Constant(np.float32(10)))


def _cases():
    c = _const((3, 4), seed=9)
    binary = {"Plus": C.plus, "Minus": C.minus, "ElementTimes": C.element_times, "Equal": C.equal,
              "NotEqual": C.not_equal, "Less": C.less, "LessEqual": C.less_equal, "Greater": C.greater,
              "GreaterEqual": C.greater_equal, "LogPlus": C.log_add_exp, "ElementDivide": C.element_divide,
              "ElementMax": C.element_max, "ElementMin": C.element_min, "ElementAnd": C.element_and,
              "ElementOr": C.element_or, "ElementXor": C.element_xor}
    unary = {"Negate": C.negate, "Sigmoid": C.sigmoid, "Tanh": C.tanh, "ReLU": C.relu, "Exp": C.exp,
             "Floor": C.floor, "Abs": C.abs, "Sin": C.sin, "Cos": C.cos, "Alias": C.alias,
             "StopGradient": C.stop_gradient, "ELU": C.elu, "Sinh": C.sinh, "Cosh": C.cosh, "Asinh": C.asinh,
             "Atan": C.atan, "Square": C.square, "Round": C.round, "Ceil": C.ceil, "LeakyReLU": C.leaky_relu,
             "SELU": C.selu, "Softplus": C.softplus, "Softsign": C.softsign, "ElementNot": C.element_not,
             "Log": lambda x: C.log(_unit(x)), "Sqrt": lambda x: C.sqrt(_unit(x)),
             "Reciprocal": lambda x: C.reciprocal(_unit(x)), "Asin": lambda x: C.asin(C.tanh(x)),
             "Acos": lambda x: C.acos(C.tanh(x)), "Atanh": lambda x: C.atanh(C.tanh(x) * 0.9),
             "Tan": lambda x: C.tan(C.tanh(x)), "Pow": lambda x: C.pow(_unit(x), C.abs(c)),
             "HardSigmoid": lambda x: C.hard_sigmoid(x, 0.2, 0.5), "PReLU": lambda x: C.param_relu(_param((3, 4)), x)}
    cases = {name: (lambda fn: lambda x, s: fn(x, c))(fn) for name, fn in binary.items()}
    cases.update({name: (lambda fn: lambda x, s: fn(x))(fn) for name, fn in unary.items()})
    cases.update({
        "Softmax": lambda x, s: C.softmax(C.reshape(x, (12,))),
        "LogSoftmax": lambda x, s: C.log_softmax(C.reshape(x, (12,))),
        "Hardmax": lambda x, s: C.hardmax(C.reshape(x, (12,))),
        "Transpose": lambda x, s: C.transpose(x, (1, 0)),
        "Slice": lambda x, s: C.slice(x, [0, 1], [1, 0], [3, 3]),
        "Dropout": lambda x, s: C.dropout(x, 0.5),
        "Reshape": lambda x, s: C.reshape(x, (2, 6)),
        "ExpandDims": lambda x, s: C.expand_dims(x, 1),
        "Squeeze": lambda x, s: C.squeeze(C.reshape(x, (1, 12))),
        "Pooling": lambda x, s: C.pooling(C.reshape(x, (1, 3, 4)), C.MAX_POOLING, (2, 2), strides=(1, 1)),
        "Times": lambda x, s: C.times(x, _param((4, 5))),
        "TransposeTimes": lambda x, s: C.times_transpose(x, _param((5, 4))),
        "Convolution": lambda x, s: C.convolution(_param((2, 1, 2, 2)), C.reshape(x, (1, 3, 4))),
        "ConvolutionTranspose": lambda x, s: C.convolution_transpose(_param((1, 2, 2, 2)), C.reshape(x, (1, 3, 4)),
                                                                      auto_padding=[False]),
        "BatchNormalization": lambda x, s: _batch_norm(x),
        "Clip": lambda x, s: C.clip(x, -0.5, 0.5),
        "Select": lambda x, s: C.element_select(C.greater(x, c), x, c),
        "Splice": lambda x, s: C.splice(x, c, axis=0),
        "OneHot": lambda x, s: C.one_hot(C.floor(_unit(x) * 3), 3),
        "Gather": lambda x, s: C.gather(_const((5, 2)), C.floor(_unit(x) * 5)),
        "Gather along an axis": lambda x, s: C.gather(_const((2, 5, 3)), C.floor(_unit(x) * 5), axis=1),
        "Gather along a negative axis": lambda x, s: C.gather(_const((2, 3, 5)), C.floor(_unit(x) * 5), axis=-1),
        "Cast": lambda x, s: C.cast(x, np.float64),
        "TopK": lambda x, s: C.top_k(C.reshape(x, (12,)), 3),
        "Argmax": lambda x, s: C.argmax(x, 1), "Argmin": lambda x, s: C.argmin(x, 0),
        "ReduceSum": lambda x, s: C.reduce_sum(x, 1), "ReduceMean": lambda x, s: C.reduce_mean(x),
        "ReduceMax": lambda x, s: C.reduce_max(x, 0, keepdims=False), "ReduceMin": lambda x, s: C.reduce_min(x, 1),
        "ReduceProd": lambda x, s: C.reduce_prod(x, 1), "ReduceLogSum": lambda x, s: C.reduce_log_sum_exp(x, 0),
        "ReduceL1": lambda x, s: C.reduce_l1(x, 1), "ReduceL2": lambda x, s: C.reduce_l2(x, 0),
        "ReduceSumSquare": lambda x, s: C.reduce_sum_square(x, 1),
        "Block": lambda x, s: Dense(3, activation=C.relu)(x),
        "Combine": lambda x, s: C.combine([C.reduce_sum(x, 0), C.abs(x)]),
        "PastValue": lambda x, s: C.sequence.past_value(s, C.Constant(np.float32(0.5))),
        "FutureValue": lambda x, s: C.sequence.future_value(s, time_step=2),
        "ReconcileDynamicAxis": lambda x, s: C.reconcile_dynamic_axes(C.reshape(C.reduce_sum(x, 1), (3,)), s) + s,
        "LSTM loop": lambda x, s: Recurrence(LSTM(4))(s),
        "SequenceReduceSum": lambda x, s: C.sequence.reduce_sum(s),
        "SequenceReduceMax": lambda x, s: C.sequence.reduce_max(s),
        "SequenceBroadcastAs": lambda x, s: C.sequence.broadcast_as(C.reduce_sum(x, 1), s) + s,
        "SequenceIsFirst": lambda x, s: C.sequence.is_first(s) * 2 + s,
        "SequenceIsLast": lambda x, s: C.sequence.is_last(s) * 3 + s,
        "UnpackSequence": lambda x, s: C.sequence.unpack(s, 0.5, no_mask_output=True),
        # written as CNTK does: Sequence::Gather/Scatter/Slice blocks over Where -> PackedIndex -> Gather/ScatterPacked
        "SequenceFirst": lambda x, s: C.sequence.first(s),
        "SequenceLast": lambda x, s: C.sequence.last(s),
        "SequenceSlice": lambda x, s: C.sequence.slice(s, 1, 2),  # (CNTK 2.7 refuses empty sequences)
        "SequenceSlice to before the end": lambda x, s: C.sequence.slice(s, 0, -1),
        "SequenceSlice from the end": lambda x, s: C.sequence.slice(s, -2, 0),
        "SequenceSlice of a prefix": lambda x, s: C.sequence.slice(s, 0, 2) * 2,
        "SequenceGather": lambda x, s: C.sequence.gather(s, C.greater(C.reduce_sum(s, 0), 0)),
        "SequenceScatter": lambda x, s: C.sequence.scatter(C.sequence.gather(s, C.greater(C.reduce_sum(s, 0), 0)),
                                                           C.greater(C.reduce_sum(s, 0), 0)),
        "Where": lambda x, s: C.sequence.where(C.greater(C.reduce_sum(s, 0), 0)),
        # new_sequence_axis_typeinfo=(0, 1): a Where whose new dynamic axes are the batch axis only
        "WhereSingleStep": lambda x, s: C.sequence.where(C.sequence.is_last(s), new_sequence_axis_typeinfo=(0, 1)),
        "SequenceGatherSingleStep": lambda x, s: C.sequence.gather(s, C.sequence.is_first(s),
                                                                   new_sequence_axis_typeinfo=(0, 1)),
        "SequenceGatherSingleStep of the last step with the batch": lambda x, s: C.sequence.gather(
            s, C.sequence.is_last(s), new_sequence_axis_typeinfo=(0, 1)) * 2 + C.reshape(C.reduce_sum(x, 1), (3,)),
        "ReduceSumOverSequences": lambda x, s: C.reduce_sum(s, axis=C.Axis.all_axes()),
        "ReduceMeanOverSequences": lambda x, s: C.reduce_mean(s, axis=C.Axis.all_axes()),
        "ReduceMaxOverSequences": lambda x, s: C.reduce_max(s, axis=C.Axis.all_axes()),
        "ReduceMinOverSequences": lambda x, s: C.reduce_min(s, axis=C.Axis.all_axes()),
        "ReduceProdOverSequences": lambda x, s: C.reduce_prod(C.sigmoid(s), axis=C.Axis.all_axes()),
        "ReduceLogSumOverSequences": lambda x, s: C.reduce_log_sum_exp(s, axis=C.Axis.all_axes()),
        "ReduceMean over all axes": lambda x, s: C.reduce_mean(x, axis=C.Axis.all_axes()),
        "ReduceL1OverSequences": lambda x, s: C.reduce_l1(s, axis=C.Axis.all_axes()),
        "ReduceL2OverSequences": lambda x, s: C.reduce_l2(s, axis=C.Axis.all_axes()),
        "ReduceSumSquareOverSequences": lambda x, s: C.reduce_sum_square(s, axis=C.Axis.all_axes()),
        "ROIPooling": lambda x, s: C.roipooling(C.reshape(x, (1, 3, 4)), C.reconcile_dynamic_axes(C.constant(np.array(
            [[0, 0, 3, 2], [1, 0, 4, 3]], np.float32)), x), C.MAX_POOLING, (2, 2), 1.0),  # rois per sample
        "CosineDistanceWithNegativeSamples": lambda x, s: C.cosine_distance_with_negative_samples(
            C.reduce_sum(x, 0), C.reduce_sum(x, 0) * 2 + 1, 1, 1),
        "StraightThrough": lambda x, s: C.straight_through_impl(x),
        "Assign": lambda x, s: C.assign(_param((4,), 3), C.reshape(C.reduce_sum(_const((3, 4)), 0), (4,))),  # no dynamic axes, as CNTK requires
        "LambdaRank": lambda x, s: C.lambda_rank(C.reshape(C.reduce_sum(x, 1), (3,))[0:1], C.abs(
            C.reshape(C.reduce_sum(x, 0), (4,))[0:1]), C.reshape(C.reduce_sum(x, 1), (3,))[1:2] * 0),
        "CosDistance": lambda x, s: C.cosine_distance(x, x * 2 + 1),
        "Logistic": lambda x, s: C.weighted_binary_cross_entropy(
            C.sigmoid(C.reshape(C.reduce_sum(x), (1,))), C.greater(C.reshape(C.reduce_sum(x), (1,)), 0),
            C.abs(C.reshape(C.reduce_sum(x), (1,))) + 1),
        "ClassificationError": lambda x, s: C.classification_error(x, C.hardmax(x * -1), topN=2),
        "NDCG1Eval": lambda x, s: C.ndcg_at_1(C.reshape(C.reduce_sum(x, 1), (3,))[0:1], C.abs(
            C.reshape(C.reduce_sum(x, 0), (4,))[0:1]), C.reshape(C.reduce_sum(x, 1), (3,))[1:2] * 0),
        "Unpooling": lambda x, s: C.unpooling(C.pooling(C.reshape(x, (1, 3, 4)), C.MAX_POOLING, (1, 2), (1, 2)),
                                              C.reshape(x, (1, 3, 4)), C.MAX_UNPOOLING, (1, 2), (1, 2)),
        "Pad": lambda x, s: C.pad(x, [(1, 0), (2, 1)], constant_value=0.5),
        "Pad reflect": lambda x, s: C.pad(x, [(0, 0), (1, 2)], mode=C.ops.REFLECT_PAD),
        "Pad symmetric": lambda x, s: C.pad(x, [(1, 1), (0, 0)], mode=C.ops.SYMMETRIC_PAD),
        "Crop": lambda x, s: C.crop_manual(C.reshape(x, (1, 3, 4)), _const((1, 2, 2)), 1, 1),
        "EyeLikeOp": lambda x, s: C.eye_like(C.reshape(C.reduce_sum(x, 0), (4,)), False) + 0,  # [batch x 4]
        "ConstantLike": lambda x, s: C.ones_like(x) * 2 + C.zeros_like(x) + x,
        "LocalResponseNormalization": lambda x, s: C.local_response_normalization(C.reshape(x, (4, 3, 1)), 1, 1.5,
                                                                                  0.3, 0.75),
        "DepthToSpace": lambda x, s: C.depth_to_space(C.reshape(x, (4, 1, 3)), 2),
        "SpaceToDepth": lambda x, s: C.space_to_depth(C.reshape(x, (1, 2, 6)), 2),
        "MeanVarianceNormalization": lambda x, s: C.mean_variance_normalization(C.reshape(x, (3, 2, 2))),
        "MeanVarianceNormalization across channels": lambda x, s: C.mean_variance_normalization(
            C.reshape(x, (3, 2, 2)), epsilon=0.01, use_stats_across_channels=True),
        "SequenceSoftmax": lambda x, s: C.sequence.softmax(s),
        "ToSequenceOp": lambda x, s: C.to_sequence(x),
        "ToSequenceLikeOp": lambda x, s: C.to_sequence_like(C.reshape(C.reduce_sum(x, 0), (4, 1)) *
                                                            C.constant(np.ones((4, 3), np.float32)), s),
        "ToBatch": lambda x, s: C.to_batch(C.Constant(np.arange(6, dtype=np.float32).reshape(2, 3))) + 0,
        "UnpackBatch": lambda x, s: C.unpack_batch(x) * 2,
        "UniformRandom": lambda x, s: C.random.uniform((2, 3), low=-1, high=2, seed=3) + 0,
        "NormalRandom": lambda x, s: C.random.normal((4,), mean=1, scale=2, seed=4) + 0,
        "GumbelRandom": lambda x, s: C.random.gumbel((3,), loc=0.5, scale=2, seed=5) + 0,
        "BernoulliRandom": lambda x, s: C.random.bernoulli((5,), mean=0.3, seed=6) + 0,
        "UniformRandomLike": lambda x, s: C.random.uniform_like(x, seed=7) + x,
        "NormalRandomLike": lambda x, s: C.random.normal_like(x, scale=0.1, seed=8) + x,
        "GumbelRandomLike": lambda x, s: C.random.gumbel_like(x, seed=9) + x,
        "BernoulliRandomLike": lambda x, s: C.random.bernoulli_like(x, mean=0.7, seed=10) + x,
        "RandomSample": lambda x, s: C.times(C.random_sample(_const((6,), 0.1, 1.0), 3, False, seed=11),
                                             _const((6, 2))),
        "RandomSampleInclusionFrequency": lambda x, s: C.random_sample_inclusion_frequency(
            _const((6,), 0.1, 1.0), 3, True, seed=12) + 0 * C.reduce_sum(x),
        "OptimizedRNNStack": lambda x, s: C.optimized_rnnstack(s, _param((184, 4)), 4, 2, bidirectional=True),
        "LabelsToGraph": lambda x, s: C.labels_to_graph(s),
        "ForwardBackward": lambda x, s: C.forward_backward(C.labels_to_graph(C.hardmax(s) * 2), s, 2, 1),
        "EditDistanceError": lambda x, s: C.edit_distance_error(s, C.abs(s), 2, 1, 0.5, True, [0]),
        # CNTK's ConvolutionSequenceShape/UnpackSequence/Convolution/ToSequence records: the sequence keeps its
        # lengths (padded, stride 1), or gets new ones (a new sequence axis)
        "SequentialConvolution": lambda x, s: C.convolution(_param((2, 1, 3, 2), 6), C.reshape(s, (1, 3)),
                                                            sequential=True, auto_padding=[False, True, False]),
        "SequentialConvolution strided": lambda x, s: C.relu(C.convolution(
            _param((3, 1, 2, 2), 7), C.reshape(s, (1, 3)), sequential=True, strides=(1, 2, 1),
            auto_padding=[False, False, True])) + 1,
        "SequentialConvolution layer": lambda x, s: C.layers.Convolution((2, 2), 2, sequential=True, pad=True,
                                                                         init=C.glorot_uniform(seed=3))(
            C.reshape(s, (1, 3))),
        # a Python user function (CNTK 2.7 needs the class too: the oracle script defines it)
        "UserFunction": lambda x, s: C.user_function(Doubling(C.tanh(x))) + 1,
    })
    return cases


CASES = _cases()
# random draws: CNTK 2.7's generator is not this package's, so under CNTK only the shapes are compared
RANDOM_CASES = {"UniformRandom", "NormalRandom", "GumbelRandom", "BernoulliRandom", "UniformRandomLike",
                "NormalRandomLike", "GumbelRandomLike", "BernoulliRandomLike", "RandomSample"}


def test_every_registered_op_is_mapped_or_says_why_not():
    unaccounted = sorted(op for op in registered_ops() if not W.encodable(op) and op not in W.NOT_EXPRESSIBLE)
    assert unaccounted == [], "ops with neither a CNTK mapping nor a reason in NOT_EXPRESSIBLE: %s" % unaccounted
    assert not set(W.NOT_EXPRESSIBLE) & (set(W.ENCODERS) | set(W.EXPANSIONS) | set(W.CHAINS))


def test_every_mapped_op_has_a_case():
    # CustomProxyOp computes nothing: tests/ops/test_custom_proxy.py saves and loads it (with CNTK 2.7 too)
    assert sorted(op for op in list(W.ENCODERS) + list(W.EXPANSIONS) + list(W.CHAINS) +
                  ["Block", "Combine", "SequentialConvolution", "UserFunction"]
                  if op not in CASES and op != "CustomProxyOp") == []


def _build(name):
    x = C.input_variable((3, 4), name="x")
    s = C.sequence.input_variable(3, name="s")
    model = CASES[name](x, s)
    return model, x, s


def _feed(model, x, s):
    feed = {}
    for a in model.arguments:
        feed[a] = X if a.name == "x" else S
    return feed


def _first_output(model, x, s):
    out = model.outputs[0]
    return model.eval(_feed(model, x, s), outputs=[out])


def _same(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
        return
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_in_cntk_format_and_loaded_back(name, tmp_path):
    model, x, s = _build(name)
    path = str(tmp_path / "m.model")
    model.save(path)
    with open(path, "rb") as f:
        assert f.read(4)[:1] == b"\x08", "save() must write CNTK's format for %s" % name
    loaded = C.load_model(path)
    names = sorted(a.name for a in loaded.arguments)
    assert names == sorted(a.name for a in model.arguments)
    _same(_first_output(loaded, x, s), _first_output(model, x, s))


_ORACLE = r'''
import sys, os, numpy as np
import cntk as C
from cntk.ops.functions import UserFunction


''' + open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "_user_functions.py")).read() + r'''

# the file names the class by its module here (tests._user_functions), which CNTK's process cannot import
C.Function.register_udf_deserialize_callback("tests._user_functions.Doubling", Doubling.deserialize)
folder = sys.argv[1]
x = np.load(os.path.join(folder, "x.npy"))
s = [np.load(os.path.join(folder, "s%d.npy" % i)) for i in range(2)]
for name in sorted(os.listdir(folder)):
    if not name.endswith(".model"):
        continue
    stem = name[:-6]
    try:
        m = C.load_model(os.path.join(folder, name))
        if any(f.op_name == "OptimizedRNNStack" for f in C.logging.graph.depth_first_search(
                    m, lambda f: isinstance(f, C.Function), depth=-1)):
            # CNTK 2.7 runs the cuDNN stack on GPUs only; on CPU its own converter rewrites it as layers
            from cntk.misc.optimized_rnnstack_converter import convert_optimized_rnnstack
            m = convert_optimized_rnnstack(m)
        feed = dict((a, x if a.name == "x" else s) for a in m.arguments)
        out = m.eval(feed, outputs=[m.outputs[0]])
        if isinstance(out, list):
            for i, o in enumerate(out):
                np.save(os.path.join(folder, "%s.out%d.npy" % (stem, i)), np.asarray(o, np.float64))
        else:
            np.save(os.path.join(folder, "%s.out.npy" % stem), np.asarray(out, np.float64))
    except Exception as e:
        open(os.path.join(folder, stem + ".err"), "w").write("%s: %s" % (type(e).__name__, str(e).splitlines()[0]))
'''


@pytest.mark.skipif(not os.path.exists(CNTK27), reason="real CNTK 2.7 (the oracle) is not installed")
def test_cntk27_loads_every_case_and_computes_the_same(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    np.save(str(folder / "x.npy"), X)
    for i, seq in enumerate(S):
        np.save(str(folder / ("s%d.npy" % i)), seq)
    expected = {}
    for name in CASES:
        model, x, s = _build(name)
        stem = name.replace(" ", "_")
        model.save(str(folder / (stem + ".model")))
        expected[stem] = _first_output(model, x, s)
    script = tmp_path / "oracle.py"
    script.write_text(_ORACLE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([CNTK27, str(script), str(folder)], cwd=str(tmp_path), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    failures = []
    for stem, ours in sorted(expected.items()):
        err = folder / (stem + ".err")
        if err.exists():
            failures.append("%s: CNTK 2.7 failed: %s" % (stem, err.read_text()))
            continue
        if (folder / ("%s.out.npy" % stem)).exists():
            theirs = np.load(str(folder / ("%s.out.npy" % stem)))
        else:  # sequences: one array per sequence (ours may be one array when all have the same length)
            theirs, i = [], 0
            while (folder / ("%s.out%d.npy" % (stem, i))).exists():
                theirs.append(np.load(str(folder / ("%s.out%d.npy" % (stem, i)))))
                i += 1
        if isinstance(ours, list) != isinstance(theirs, list):
            ours, theirs = np.asarray(ours), np.asarray(theirs)
        try:
            if stem in RANDOM_CASES:
                assert np.shape(ours) == np.shape(theirs), (np.shape(ours), np.shape(theirs))
            else:
                _same(ours, theirs)
        except AssertionError as e:
            failures.append("%s: %s" % (stem, str(e).strip().splitlines()[-1]))
    assert failures == []


def test_restore_and_checkpoints_bring_back_constants(tmp_path):
    # batch normalization's running statistics are constants: CNTK's restore and checkpoints keep them
    x = C.input_variable(4)
    f = C.layers.BatchNormalization()(x)
    trainer = C.Trainer(f, C.reduce_sum(f), C.sgd(f.parameters, C.learning_parameter_schedule_per_sample(0.1)))

    def set_all(v):
        for c in f.constants + f.parameters:
            c.value = np.full(c.shape, v, np.float32)

    def values():
        return sorted((c.name, float(np.asarray(c.value).reshape(-1)[0])) for c in f.constants + f.parameters)

    set_all(1)
    f.save(str(tmp_path / "f.model"))
    set_all(2)
    trainer.save_checkpoint(str(tmp_path / "ckp"))
    set_all(3)
    trainer.restore_from_checkpoint(str(tmp_path / "ckp"))
    assert {v for _, v in values()} == {2.0}
    f.restore(str(tmp_path / "f.model"))
    assert {v for _, v in values()} == {1.0}


def test_ranking_ops_compute_cntk27s_values():
    # values CNTK 2.7 computes for these inputs (checked with it)
    score, gain, group = (C.input_variable(1, name=n) for n in ("score", "gain", "group"))
    lr, ndcg = C.lambda_rank(score, gain, group), C.ndcg_at_1(score, gain, group)
    feed = {score: np.array([[0.3], [0.9], [0.1]], np.float32), gain: np.array([[1.], [0.], [2.]], np.float32),
            group: np.zeros((3, 1), np.float32)}
    np.testing.assert_allclose([lr.eval(feed), ndcg.eval(feed)], [55.360527, 0.0], rtol=1e-5)
    feed = {score: np.array([[0.3], [0.9]], np.float32), gain: np.array([[1.], [2.]], np.float32),
            group: np.zeros((2, 1), np.float32)}
    np.testing.assert_allclose([lr.eval(feed), ndcg.eval(feed)], [-32.634235, 400.0], rtol=1e-5)
