"""Every registered op, walked from the registry: built on random shapes through its public constructor, its
shape rule agrees with the computed output, it prints, clones and survives save -> load with the same values,
and (where it is differentiable) its float64 gradient matches finite differences. A random op instead draws
the same values from the same seed, continues its stream after save -> load and clone, and its draws have its
distribution's moments.

An op registered without a CATALOG (or RANDOM_CATALOG) entry fails test_the_catalog_covers_the_registry.
"""
import numpy as np
import pytest

import cntk as C
from cntk_compat.core.engine import evaluate_tensors
from cntk_compat.core.graph import node_inputs_and_body, walk
from cntk_compat.core.registry import registered_ops
from cntk_compat.ops._common import make

F64 = np.float64


def _rand(rng, shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(F64)


def _unary(fn, low=-0.9, high=0.9, smooth=True):
    def build(rng):
        shape = tuple(rng.randint(1, 4, size=rng.randint(1, 3)))
        x = C.input_variable(shape, dtype=F64, needs_gradient=True)
        return fn(x), {x: _rand(rng, (2,) + shape, low, high)}, smooth
    return build


def _binary(fn, smooth=True, positive=False):
    def build(rng):
        shape = tuple(rng.randint(1, 4, size=rng.randint(1, 3)))
        a = C.input_variable(shape, dtype=F64, needs_gradient=True)
        b = C.input_variable(shape, dtype=F64, needs_gradient=True)
        low = 0.5 if positive else -1.0
        return fn(a, b), {a: _rand(rng, (2,) + shape, low), b: _rand(rng, (2,) + shape, low)}, smooth
    return build


def _on_matrix(fn, smooth=True, shape=(3, 4)):
    def build(rng):
        x = C.input_variable(shape, dtype=F64, needs_gradient=True)
        return fn(x), {x: _rand(rng, (2,) + shape)}, smooth
    return build


def _on_sequence(fn, smooth=True, dim=3, low=-1.0):
    def build(rng):
        x = C.sequence.input_variable(dim, dtype=F64, needs_gradient=True)
        data = [_rand(rng, (n, dim), low) for n in (3, 1, 2)]
        return fn(x), {x: data}, smooth
    return build


def _optimized_rnnstack(rng):
    x = C.sequence.input_variable(3, dtype=F64, needs_gradient=True)
    w = C.parameter((120, 2), init=_rand(rng, (120, 2), -0.5, 0.5), dtype=F64)
    return (C.optimized_rnnstack(x, w, 2, 2, bidirectional=True),
            {x: [_rand(rng, (n, 3)) for n in (3, 1, 2)]}, True)


def _ctc_labels(rng, frames, dim=4):
    """Frame labels as labels_to_graph reads them: one-hot, 2 on the first frame of each phone (blank dim - 1)."""
    phones = rng.randint(0, dim - 1, size=frames)
    starts = np.r_[True, rng.rand(frames - 1) < 0.5]
    return (np.eye(dim)[phones] * np.where(starts, 2.0, 1.0)[:, None]).astype(F64)


def _ctc(fn, smooth):
    def build(rng):
        labels = C.sequence.input_variable(4, dtype=F64)
        z = C.sequence.input_variable(4, dtype=F64, needs_gradient=True)
        frames = (5, 3, 4)
        feed = {z: [_rand(rng, (n, 4)) for n in frames], labels: [_ctc_labels(rng, n) for n in frames]}
        return fn(labels, z), feed, smooth
    return build


def _times(rng):
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    w = C.parameter((3, 2), init=_rand(rng, (3, 2)), dtype=F64)
    return C.times(x, w), {x: _rand(rng, (2, 3))}, True


def _times_transpose(rng):
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    w = C.parameter((2, 3), init=_rand(rng, (2, 3)), dtype=F64)
    return C.times_transpose(x, w), {x: _rand(rng, (2, 3))}, True


def _convolution(rng):
    x = C.input_variable((1, 5, 5), dtype=F64, needs_gradient=True)
    w = C.parameter((2, 1, 3, 3), init=_rand(rng, (2, 1, 3, 3)), dtype=F64)
    return C.convolution(w, x), {x: _rand(rng, (2, 1, 5, 5))}, True


def _convolution_transpose(rng):
    x = C.input_variable((2, 3, 3), dtype=F64, needs_gradient=True)
    w = C.parameter((2, 1, 2, 2), init=_rand(rng, (2, 1, 2, 2)), dtype=F64)
    return C.convolution_transpose(w, x), {x: _rand(rng, (2, 2, 3, 3))}, True


def _pooling(kind, smooth):
    def build(rng):
        x = C.input_variable((1, 4, 4), dtype=F64, needs_gradient=True)
        return C.pooling(x, kind, (2, 2), strides=(2, 2)), {x: _rand(rng, (2, 1, 4, 4))}, smooth
    return build


def _batch_normalization(rng):
    """Training mode (what grad differentiates, as in CNTK) normalizes by the minibatch statistics; with an
    infinite time constant the running statistics stay put, so repeated evaluations agree. Squared, because
    the sum of a normalized minibatch is 0 whatever it holds."""
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    params = [C.parameter((3,), init=v, dtype=F64) for v in (1.5, 0.5)]
    stats = [C.constant(np.full(3, 0.1), dtype=F64), C.constant(np.full(3, 2.0), dtype=F64),
             C.constant(0, dtype=F64)]
    f = C.batch_normalization(x, params[0], params[1], stats[0], stats[1], False,
                              normalization_time_constant=np.inf, running_count=stats[2])
    return C.square(f), {x: _rand(rng, (4, 3))}, True


def _past_future(fn):
    return _on_sequence(lambda x: fn(x, initial_state=0.5))


def _splice(rng):
    a = C.input_variable(2, dtype=F64, needs_gradient=True)
    b = C.input_variable(3, dtype=F64, needs_gradient=True)
    return C.splice(a, b, axis=0), {a: _rand(rng, (2, 2)), b: _rand(rng, (2, 3))}, True


def _select(rng):
    c = C.input_variable(3, dtype=F64)
    a = C.input_variable(3, dtype=F64, needs_gradient=True)
    b = C.input_variable(3, dtype=F64, needs_gradient=True)
    cond = (rng.rand(2, 3) > 0.5).astype(F64)
    return C.element_select(c, a, b), {c: cond, a: _rand(rng, (2, 3)), b: _rand(rng, (2, 3))}, False


def _gather(rng):
    idx = C.input_variable(2, dtype=F64)
    ref = C.parameter((5, 3), init=_rand(rng, (5, 3)), dtype=F64)
    return C.gather(ref, idx), {idx: np.array([[0, 4], [2, 1]], F64)}, False


def _one_hot(rng):
    x = C.input_variable(2, dtype=F64)
    return C.one_hot(x, 4), {x: np.array([[0, 3], [2, 1]], F64)}, False


def _sequence_broadcast(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    v = C.input_variable(2, dtype=F64, needs_gradient=True)
    data_s = [_rand(rng, (n, 2)) for n in (3, 1)]
    return C.sequence.broadcast_as(v, s) * s, {s: data_s, v: _rand(rng, (2, 2))}, True


def _keeps_first_step(s):
    """A where condition on random data that selects each sequence's first step (CNTK cannot lay out a sequence
    left without steps) and the others where their first element is positive."""
    return C.element_max(C.greater(C.slice(s, 0, 0, 1), 0), C.sequence.is_first(s))


def _where(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    return C.sequence.where(_keeps_first_step(s)), {s: data}, False


def _where_gather(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    cond = _keeps_first_step(s)
    return C.sequence.gather(s, cond), {s: data}, False


def _where_single_step(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    return C.sequence.where(C.sequence.is_last(s), new_sequence_axis_typeinfo=(0, 1)), {s: data}, False


def _gather_single_step(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    return C.sequence.gather(s, C.sequence.is_first(s), new_sequence_axis_typeinfo=(0, 1)), {s: data}, True


def _eye_like(rng):
    x = C.input_variable(3, dtype=F64)
    return C.eye_like(x), {x: _rand(rng, (3, 3))}, False


def _away_from_zero(rng, shape):
    return _rand(rng, shape, 0.2, 1.0) * rng.choice([-1.0, 1.0], size=shape)


def _block(rng):
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    p = C.placeholder()
    return C.as_block(C.tanh(p) * 2, [(p, x)], "TanhTwice"), {x: _rand(rng, (2, 3))}, True


def _combine(rng):
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    return C.combine([C.tanh(x), C.sin(x)]), {x: _rand(rng, (2, 3))}, True


def _assign(rng):
    x = C.input_variable(3, dtype=F64)
    ref = C.constant(np.zeros(3), dtype=F64)
    return C.assign(ref, C.reduce_mean(x, axis=C.Axis.default_batch_axis())), {x: _rand(rng, (2, 3))}, False


def _cosine_negative(rng):
    a = C.input_variable(3, dtype=F64, needs_gradient=True)
    b = C.input_variable(3, dtype=F64, needs_gradient=True)
    f = C.cosine_distance_with_negative_samples(a, b, shift=1, num_negative_samples=2)
    return f, {a: _rand(rng, (4, 3)), b: _rand(rng, (4, 3))}, True


def _crop(rng):
    x = C.input_variable((2, 5, 5), dtype=F64, needs_gradient=True)
    ref = C.input_variable((2, 3, 3), dtype=F64)
    return C.crop_manual(x, ref, 1, 2), {x: _rand(rng, (2, 2, 5, 5)), ref: _rand(rng, (2, 2, 3, 3))}, True


def _depth_to_space(rng):
    x = C.input_variable((8, 2, 3), dtype=F64, needs_gradient=True)
    return C.depth_to_space(x, 2), {x: _rand(rng, (2, 8, 2, 3))}, True


def _space_to_depth(rng):
    x = C.input_variable((2, 4, 6), dtype=F64, needs_gradient=True)
    return C.space_to_depth(x, 2), {x: _rand(rng, (2, 2, 4, 6))}, True


def _edit_distance(rng):
    a = C.sequence.input_variable(4, dtype=F64)
    b = C.sequence.input_variable(4, dtype=F64)
    return C.edit_distance_error(a, b, squashInputs=True), \
        {a: [_rand(rng, (n, 4)) for n in (4, 2)], b: [_rand(rng, (n, 4)) for n in (4, 2)]}, False


def _ranking(fn):
    def build(rng):
        score = C.input_variable(1, dtype=F64, needs_gradient=True)
        gain = C.input_variable(1, dtype=F64)
        group = C.input_variable(1, dtype=F64)
        feed = {score: _rand(rng, (5, 1)), gain: np.array([[3.], [0.], [1.], [2.], [1.]]),
                group: np.array([[0.], [0.], [0.], [1.], [1.]])}
        return fn(score, gain, group), feed, False
    return build


def _weighted_logistic(rng):
    p = C.input_variable(1, dtype=F64, needs_gradient=True)
    t = C.input_variable(1, dtype=F64)
    w = C.input_variable(1, dtype=F64)
    # its gradient is CNTK's (not scaled as the value is), so finite differences do not apply
    return C.weighted_binary_cross_entropy(p, t, w), {
        p: _rand(rng, (4, 1), 0.1, 0.9), t: np.array([[0.], [1.], [1.], [0.]]), w: _rand(rng, (4, 1), 0.5, 2)}, False


def _top_n_error(rng):
    z = C.input_variable((2, 3), dtype=F64)
    y = C.input_variable((2, 3), dtype=F64)
    return C.classification_error(z, y, topN=2), {
        z: _rand(rng, (3, 2, 3)), y: np.eye(6)[[0, 4, 5]].reshape(3, 2, 3)}, False


def _lrn(rng):
    x = C.input_variable((5, 2, 2), dtype=F64, needs_gradient=True)
    f = C.local_response_normalization(x, 2, bias=1.0, alpha=0.5, beta=0.75)
    return f, {x: _rand(rng, (2, 5, 2, 2))}, True


def _prelu(rng):
    x = C.input_variable(4, dtype=F64, needs_gradient=True)
    alpha = C.parameter(4, init=_rand(rng, 4, 0.1, 0.5), dtype=F64)
    return C.param_relu(alpha, x), {x: _away_from_zero(rng, (2, 4))}, True


def _roipooling(rng):
    x = C.input_variable((2, 6, 6), dtype=F64, needs_gradient=True)
    rois = C.input_variable((2, 4), dtype=F64)
    boxes = np.array([[[0, 0, 3, 3], [1, 2, 5, 5]], [[2, 1, 4, 5], [0, 0, 5, 5]]], F64)
    return C.roipooling(x, rois, C.MAX_POOLING, (2, 2), 1.0), {x: _rand(rng, (2, 2, 6, 6)), rois: boxes}, False


def _reconcile(rng):
    v = C.input_variable(2, dtype=F64, needs_gradient=True)
    s = C.sequence.input_variable(2, dtype=F64)
    f = C.reconcile_dynamic_axes(v, s)
    return f, {v: _rand(rng, (2, 2)), s: [_rand(rng, (n, 2)) for n in (3, 1)]}, True


def _scatter(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    cond = _keeps_first_step(s)
    return C.sequence.scatter(C.sequence.gather(s, cond), cond), {s: data}, False


def _sequential_convolution(rng):
    x = C.sequence.input_variable((1, 3), dtype=F64, needs_gradient=True)
    w = C.parameter((2, 1, 2, 3), init=_rand(rng, (2, 1, 2, 3)), dtype=F64)
    f = C.convolution(w, x, sequential=True, auto_padding=[False, True, False])
    return f, {x: [_rand(rng, (n, 1, 3)) for n in (4, 2)]}, True


def _to_sequence(rng):
    x = C.input_variable((3, 2), dtype=F64, needs_gradient=True)
    return C.to_sequence(x) * 2, {x: _rand(rng, (2, 3, 2))}, True


def _to_sequence_like(rng):
    x = C.input_variable((3, 2), dtype=F64, needs_gradient=True)
    s = C.sequence.input_variable(2, dtype=F64)
    feed = {x: _rand(rng, (2, 3, 2)), s: [_rand(rng, (n, 2)) for n in (3, 2)]}
    return C.to_sequence_like(x, s), feed, True


def _unpack_sequence(rng):
    x = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    return C.sequence.unpack(x, 0.25), {x: [_rand(rng, (n, 2)) for n in (3, 1)]}, True


def _to_batch(rng):
    x = C.input_variable((3, 2), dtype=F64, needs_gradient=True)
    return C.to_batch(C.unpack_batch(x) * 2), {x: _rand(rng, (3, 3, 2))}, True


def _unpack_batch(rng):
    x = C.input_variable((3, 2), dtype=F64, needs_gradient=True)
    return C.unpack_batch(x), {x: _rand(rng, (3, 3, 2))}, True


def _unpooling(rng):
    x = C.input_variable((1, 4, 4), dtype=F64, needs_gradient=True)
    pooled = C.pooling(x, C.MAX_POOLING, (2, 2), strides=(2, 2))
    f = C.unpooling(pooled, x, C.MAX_UNPOOLING, (2, 2), (2, 2))
    return f, {x: _rand(rng, (2, 1, 4, 4))}, False


def _user_function(rng):
    from tests._user_functions import Doubling
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    return C.user_function(Doubling(x)), {x: _rand(rng, (2, 3))}, True


def _over_sequences(fn, **options):
    """A reduction over all axes of a sequence (batch and sequence axes included)."""
    return _on_sequence(lambda x: fn(x, axis=C.Axis.all_axes()), **options)


CATALOG = {
    "Times": _times, "TransposeTimes": _times_transpose,
    "Convolution": _convolution, "ConvolutionTranspose": _convolution_transpose,
    "BatchNormalization": _batch_normalization, "Splice": _splice, "Select": _select, "Gather": _gather,
    "OneHot": _one_hot, "SequenceBroadcastAs": _sequence_broadcast, "Where": _where, "EyeLikeOp": _eye_like,
    "SequenceGather": _where_gather, "WhereSingleStep": _where_single_step,
    "SequenceGatherSingleStep": _gather_single_step,
    "Plus": _binary(C.plus), "Minus": _binary(C.minus), "ElementTimes": _binary(C.element_times),
    "ElementDivide": _binary(C.element_divide, positive=True), "Pow": _binary(C.pow, positive=True),
    "ElementMax": _binary(C.element_max, smooth=False), "ElementMin": _binary(C.element_min, smooth=False),
    "LogPlus": _binary(C.log_add_exp),
    "Equal": _binary(C.equal, smooth=False), "NotEqual": _binary(C.not_equal, smooth=False),
    "Less": _binary(C.less, smooth=False), "LessEqual": _binary(C.less_equal, smooth=False),
    "Greater": _binary(C.greater, smooth=False), "GreaterEqual": _binary(C.greater_equal, smooth=False),
    "ElementAnd": _binary(C.element_and, smooth=False), "ElementOr": _binary(C.element_or, smooth=False),
    "ElementXor": _binary(C.element_xor, smooth=False),
    "Negate": _unary(C.negate), "Abs": _unary(C.abs, smooth=False), "Exp": _unary(C.exp),
    "Log": _unary(C.log, 0.5, 2.0), "Sqrt": _unary(C.sqrt, 0.5, 2.0),
    # C.square builds ElementTimes(x, x) as CNTK does; a Square node comes from files saved before
    "Square": _unary(lambda x: make("Square", [x])),
    "Reciprocal": _unary(C.reciprocal, 0.5, 2.0), "Sigmoid": _unary(C.sigmoid), "Tanh": _unary(C.tanh),
    "ReLU": _unary(C.relu, smooth=False), "Floor": _unary(C.floor, smooth=False),
    "Ceil": _unary(C.ceil, smooth=False), "Round": _unary(C.round, smooth=False),
    "Sin": _unary(C.sin), "Cos": _unary(C.cos), "Tan": _unary(C.tan), "Asin": _unary(C.asin),
    "Acos": _unary(C.acos), "Atan": _unary(C.atan), "Sinh": _unary(C.sinh), "Cosh": _unary(C.cosh),
    "Asinh": _unary(C.asinh), "Atanh": _unary(C.atanh), "ElementNot": _unary(C.element_not, smooth=False),
    "StraightThrough": _unary(C.straight_through_impl, smooth=False),
    "StopGradient": _unary(C.stop_gradient, smooth=False), "Alias": _unary(C.alias),
    "ELU": _unary(C.elu), "SELU": _unary(C.selu), "LeakyReLU": _unary(C.leaky_relu, smooth=False),
    "Softplus": _unary(C.softplus), "Softsign": _unary(C.softsign),
    "HardSigmoid": _unary(lambda x: C.hard_sigmoid(x, 0.2, 0.5), smooth=False),
    "Clip": _unary(lambda x: C.clip(x, -0.5, 0.5), smooth=False),
    "Softmax": _unary(C.softmax), "LogSoftmax": _unary(C.log_softmax), "Hardmax": _unary(C.hardmax, smooth=False),
    "Dropout": _unary(lambda x: C.dropout(x, 0.5), smooth=False),
    "ReduceSum": _unary(C.reduce_sum), "ReduceMean": _unary(C.reduce_mean),
    "ReduceMax": _unary(C.reduce_max, smooth=False), "ReduceMin": _unary(C.reduce_min, smooth=False),
    "ReduceProd": _unary(C.reduce_prod), "ReduceLogSum": _unary(C.reduce_log_sum_exp),
    "ReduceL1": _unary(C.reduce_l1, 0.2, 1.0), "ReduceL2": _unary(C.reduce_l2),
    "ReduceSumSquare": _unary(C.reduce_sum_square),
    "Argmax": _unary(C.argmax, smooth=False), "Argmin": _unary(C.argmin, smooth=False),
    "Reshape": _on_matrix(lambda x: C.reshape(x, (4, 3))),
    "Transpose": _on_matrix(lambda x: C.transpose(x, (1, 0))),
    "Slice": _on_matrix(lambda x: C.slice(x, 1, 1, 3)), "ExpandDims": _on_matrix(lambda x: C.expand_dims(x, 0)),
    "Squeeze": _on_matrix(lambda x: C.squeeze(C.expand_dims(x, 0))),
    "Pad": _on_matrix(lambda x: C.pad(x, [(1, 0), (0, 1)])),
    "MeanVarianceNormalization": _on_matrix(C.mean_variance_normalization),
    "Cast": _on_matrix(lambda x: C.cast(x, np.float32), smooth=False),
    "TopK": _on_matrix(lambda x: C.alias(C.top_k(C.reshape(x, (12,)), 3).outputs[0]), smooth=False),
    "ConstantLike": _on_matrix(C.zeros_like, smooth=False),
    "Pooling": _pooling(C.AVG_POOLING, True),
    "PastValue": _past_future(C.sequence.past_value), "FutureValue": _past_future(C.sequence.future_value),
    "LabelsToGraph": _on_sequence(C.labels_to_graph),
    "ForwardBackward": _ctc(lambda labels, z: C.forward_backward(C.labels_to_graph(labels), z, 3), True),
    "SequenceFirst": _on_sequence(C.sequence.first), "SequenceLast": _on_sequence(C.sequence.last),
    "SequenceIsFirst": _on_sequence(C.sequence.is_first, smooth=False),
    "SequenceIsLast": _on_sequence(C.sequence.is_last, smooth=False),
    "SequenceReduceSum": _on_sequence(C.sequence.reduce_sum),
    "SequenceReduceMax": _on_sequence(C.sequence.reduce_max, smooth=False),
    "SequenceSoftmax": _on_sequence(C.sequence.softmax),
    "SequenceSlice": _on_sequence(lambda x: C.sequence.slice(x, 0, 1)),
    "Block": _block, "Combine": _combine, "Assign": _assign, "CosineDistanceWithNegativeSamples": _cosine_negative,
    "Crop": _crop, "DepthToSpace": _depth_to_space, "SpaceToDepth": _space_to_depth,
    "CosDistance": _binary(C.cosine_distance), "Logistic": _weighted_logistic, "ClassificationError": _top_n_error,
    "EditDistanceError": _edit_distance, "LambdaRank": _ranking(C.lambda_rank), "NDCG1Eval": _ranking(C.ndcg_at_1),
    "LocalResponseNormalization": _lrn, "PReLU": _prelu, "ROIPooling": _roipooling,
    "ReconcileDynamicAxis": _reconcile, "SequenceScatter": _scatter, "SequentialConvolution": _sequential_convolution,
    "ToBatch": _to_batch, "UnpackBatch": _unpack_batch, "ToSequenceOp": _to_sequence,
    "ToSequenceLikeOp": _to_sequence_like, "UnpackSequence": _unpack_sequence, "Unpooling": _unpooling,
    "UserFunction": _user_function,
    "ReduceSumOverSequences": _over_sequences(C.reduce_sum), "ReduceMeanOverSequences": _over_sequences(C.reduce_mean),
    "ReduceMaxOverSequences": _over_sequences(C.reduce_max, smooth=False),
    "ReduceMinOverSequences": _over_sequences(C.reduce_min, smooth=False),
    "ReduceProdOverSequences": _over_sequences(C.reduce_prod),
    "ReduceLogSumOverSequences": _over_sequences(C.reduce_log_sum_exp),
    "ReduceL1OverSequences": _over_sequences(C.reduce_l1, low=0.2), "ReduceL2OverSequences": _over_sequences(C.reduce_l2),
    "ReduceSumSquareOverSequences": _over_sequences(C.reduce_sum_square),
    "OptimizedRNNStack": _optimized_rnnstack,
}

def _inclusion_frequency(rng):
    w = C.parameter(5, init=_rand(rng, 5, 0.1, 1.0), dtype=F64)
    x = C.input_variable(5, dtype=F64)
    return x * C.random_sample_inclusion_frequency(w, 3, True, seed=7), {x: _rand(rng, (2, 5))}, False


CATALOG["RandomSampleInclusionFrequency"] = _inclusion_frequency

# the random ops: each builder takes a seed and gives (function, feed); the check asserts the distribution's
# moments on a large draw (instead of finite differences, which a random draw has none of)
N_DRAWS = 20000
EULER_GAMMA = 0.5772156649015329


def _moments(mean, var):
    def check(values):
        v = np.asarray(values, F64).reshape(-1)
        assert abs(v.mean() - mean) < 5 * np.sqrt(var / v.size), (v.mean(), mean)
        assert abs(v.var() - var) < 0.05 * var, (v.var(), var)
    return check


def _sampler(fn, **moments):
    return lambda seed: (fn((N_DRAWS,), dtype=F64, seed=seed, **moments), {})


def _sampler_like(fn, **moments):
    def build(seed):
        x = C.input_variable(N_DRAWS // 4, dtype=F64)
        return fn(x, seed=seed, **moments), {x: np.zeros((4, N_DRAWS // 4))}
    return build


def _random_sample(seed):
    return C.random_sample(C.constant([1.0, 3.0, 0.0, 4.0], dtype=F64), N_DRAWS, True, seed=seed), {}


def _sample_frequencies(values):
    one_hot = values.toarray() if hasattr(values, "toarray") else np.asarray(values)
    assert one_hot.shape == (N_DRAWS, 4) and np.all(one_hot.sum(1) == 1)
    _moments(1 / 8, 1 / 8 * 7 / 8)(one_hot[:, 0])
    assert one_hot[:, 2].sum() == 0
    _moments(4 / 8, 1 / 4)(one_hot[:, 3])


RANDOM_CATALOG = {
    "UniformRandom": (_sampler(C.random.uniform, low=-1.0, high=3.0), _moments(1.0, 16 / 12)),
    "UniformRandomLike": (_sampler_like(C.random.uniform_like, low=-1.0, high=3.0), _moments(1.0, 16 / 12)),
    "NormalRandom": (_sampler(C.random.normal, mean=1.0, scale=2.0), _moments(1.0, 4.0)),
    "NormalRandomLike": (_sampler_like(C.random.normal_like, mean=1.0, scale=2.0), _moments(1.0, 4.0)),
    "GumbelRandom": (_sampler(C.random.gumbel, loc=1.0, scale=2.0),
                     _moments(1.0 + 2.0 * EULER_GAMMA, np.pi ** 2 / 6 * 4.0)),
    "GumbelRandomLike": (_sampler_like(C.random.gumbel_like, loc=1.0, scale=2.0),
                         _moments(1.0 + 2.0 * EULER_GAMMA, np.pi ** 2 / 6 * 4.0)),
    "BernoulliRandom": (_sampler(C.random.bernoulli, mean=0.3), _moments(0.3, 0.21)),
    "BernoulliRandomLike": (_sampler_like(C.random.bernoulli_like, mean=0.3), _moments(0.3, 0.21)),
    "RandomSample": (_random_sample, _sample_frequencies),
}


# ops that compute nothing, so there is nothing to walk, and where their own tests are
UNEVALUATED = {"CustomProxyOp": "tests/ops/test_custom_proxy.py (builds, saves and loads it; evaluating raises)"}


def test_the_catalog_covers_the_registry():
    registered = set(registered_ops())
    walked = set(CATALOG) | set(RANDOM_CATALOG) | set(UNEVALUATED)
    assert walked - registered == set(), "catalog entries for ops that are not registered"
    assert registered - walked == set(), "registered ops without a walk (add to CATALOG or RANDOM_CATALOG)"
    assert set(CATALOG) & set(RANDOM_CATALOG) == set()


def _values(f, feed):
    result = f.eval(feed)
    if isinstance(result, dict):
        result = [result[o] for o in f.outputs]
    elif not isinstance(result, list) or len(f.outputs) == 1:
        result = [result]
    return [r.toarray() if hasattr(r, "toarray") else r for r in result]  # sparse outputs come back as CSR


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, list):  # per-sequence arrays
            _same(x, y)
        else:
            np.testing.assert_allclose(np.asarray(x, F64), np.asarray(y, F64), rtol=1e-6, atol=1e-9)


def _shapes_agree(f, values):
    """The shape rule: each output's static shape is what follows the batch (and sequence) axes."""
    assert len(values) == len(f.outputs)
    for out, v in zip(f.outputs, values):
        for item in (v if isinstance(v, list) else [v]):
            item = np.asarray(item)
            static = item.shape[item.ndim - len(out.shape):]
            assert all(d == s or s == C.FreeDimension for d, s in zip(static, out.shape)), (item.shape, out.shape)
            assert item.ndim - len(out.shape) <= len(out.dynamic_axes) + (1 if isinstance(v, list) else 0)


def _ops_in(f):
    return {n._op.name for n in walk(f.outputs, node_inputs_and_body).nodes} | {f.root_function._op.name}


def _fed(g, f, feed):
    """feed, keyed by g's arguments (a clone or a loaded copy of f)."""
    return {g.arguments[f.arguments.index(a)]: d for a, d in feed.items()}


@pytest.mark.parametrize("op_name", sorted(CATALOG))
def test_every_op_computes_what_its_shape_rule_says_and_round_trips(op_name, tmp_path):
    rng = np.random.RandomState(sum(map(ord, op_name)))
    f, feed, smooth = CATALOG[op_name](rng)
    assert op_name in _ops_in(f), "the builder for %s made %s" % (op_name, sorted(_ops_in(f)))
    values = _values(f, feed)
    _shapes_agree(f, values)
    assert all(str(o._type) in str(f) for o in f.outputs), str(f)
    cloned = f.clone(C.CloneMethod.clone)
    _same(values, _values(cloned, _fed(cloned, f, feed)))
    path = str(tmp_path / "op.model")
    f.save(path)
    loaded = C.Function.load(path)
    _same(values, _values(loaded, _fed(loaded, f, feed)))
    if smooth:
        _check_gradient(f, feed)


@pytest.mark.parametrize("op_name", sorted(RANDOM_CATALOG))
def test_every_random_op_is_reproducible_and_draws_its_distribution(op_name, tmp_path):
    build, check = RANDOM_CATALOG[op_name]
    f, feed = build(seed=11)
    assert op_name in _ops_in(f)
    first = _values(f, feed)
    _shapes_agree(f, first)
    assert all(str(o._type) in str(f) for o in f.outputs), str(f)
    check(first[0])
    same_seed, _ = build(seed=11)
    _same(first, _values(same_seed, _fed(same_seed, f, feed)))
    other_seed, _ = build(seed=12)
    assert not np.array_equal(first[0], _values(other_seed, _fed(other_seed, f, feed))[0])
    path = str(tmp_path / "op.model")
    f.save(path)   # after one draw: the loaded copy continues the stream where f stands
    second = _values(f, feed)
    assert not np.array_equal(first[0], second[0]), "a second evaluation repeats the first draw"
    loaded = C.Function.load(path)
    _same(second, _values(loaded, _fed(loaded, f, feed)))
    cloned = same_seed.clone(C.CloneMethod.clone)
    _same(second, _values(cloned, _fed(cloned, f, feed)))


def test_dropout_in_training_zeroes_its_rate_and_scales_the_rest():
    x = C.input_variable(N_DRAWS, dtype=F64)
    f = C.dropout(x, 0.25, seed=3)
    (out,), _ = evaluate_tensors(f.outputs, {x: np.ones((1, N_DRAWS))}, training=True)
    kept = out.detach().cpu().numpy().reshape(-1)
    _moments(0.75, 0.75 * 0.25)(kept != 0)
    np.testing.assert_allclose(kept[kept != 0], 1 / 0.75)


def _check_gradient(f, feed, eps=1e-6):
    """d sum(f) / d x against central differences, for f's first output and its first argument that needs a
    gradient."""
    x = next(a for a in f.arguments if a.needs_gradient)
    out = f.outputs[0]
    loss = C.reduce_sum(out) if out._sequence_axis is None else C.sequence.reduce_sum(C.reduce_sum(out))
    # grad differentiates the training-mode computation (CNTK's too), so the differences are taken in it
    training = any(n._op.uses_training for n in walk(f.outputs, node_inputs_and_body).nodes)
    analytic = loss.grad(feed, wrt=[x])
    data = feed[x]
    seqs = data if isinstance(data, list) else [data]
    grads = analytic if isinstance(analytic, list) else [analytic]
    for s, (seq, grad) in enumerate(zip(seqs, grads)):
        flat = seq.reshape(-1)
        for k in range(0, flat.size, max(1, flat.size // 5)):
            def total(delta):
                changed = [q.copy() for q in seqs]
                changed[s].reshape(-1)[k] += delta
                new = dict(feed)
                new[x] = changed if isinstance(data, list) else changed[0]
                if training:
                    return float(evaluate_tensors(loss.outputs, new, training=True)[0][0].sum())
                result = loss.eval(new)
                return float(np.sum([np.sum(r) for r in (result if isinstance(result, list) else [result])]))
            numeric = (total(eps) - total(-eps)) / (2 * eps)
            assert abs(np.asarray(grad).reshape(-1)[k] - numeric) <= 1e-5 * max(1.0, abs(numeric)), \
                "d/dx[%d] of %s: %r analytic, %r numeric" % (k, f.root_function.op_name, grad.reshape(-1)[k], numeric)
