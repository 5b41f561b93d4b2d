"""Every registered op, walked from the registry: built on random shapes through its public constructor, its
shape rule agrees with the computed output, it prints, clones and survives save -> load with the same values,
and (where it is differentiable) its float64 gradient matches finite differences.

An op registered without a CATALOG entry fails test_the_catalog_covers_the_registry unless it is listed in
NOT_YET_WALKED, which says honestly which ops this test does not reach yet.
"""
import numpy as np
import pytest

import cntk as C
from cntk_compat.core.graph import node_inputs_and_body, walk
from cntk_compat.core.registry import registered_ops

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


def _on_sequence(fn, smooth=True, dim=3):
    def build(rng):
        x = C.sequence.input_variable(dim, dtype=F64, needs_gradient=True)
        data = [_rand(rng, (n, dim)) for n in (3, 1, 2)]
        return fn(x), {x: data}, smooth
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
    x = C.input_variable(3, dtype=F64, needs_gradient=True)
    params = [C.parameter((3,), init=v, dtype=F64) for v in (1.0, 0.0)]
    stats = [C.constant(np.zeros(3), dtype=F64), C.constant(np.ones(3), dtype=F64), C.constant(0, dtype=F64)]
    f = C.batch_normalization(x, params[0], params[1], stats[0], stats[1], False, running_count=stats[2])
    return f, {x: _rand(rng, (2, 3))}, True


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


def _where(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    return C.sequence.where(C.greater(C.slice(s, 0, 0, 1), 0)), {s: data}, False


def _where_gather(rng):
    s = C.sequence.input_variable(2, dtype=F64, needs_gradient=True)
    data = [_rand(rng, (n, 2)) for n in (3, 2)]
    cond = C.greater(C.slice(s, 0, 0, 1), 0)
    return C.sequence.gather(s, cond), {s: data}, False


def _eye_like(rng):
    x = C.input_variable(3, dtype=F64)
    return C.eye_like(x), {x: _rand(rng, (3, 3))}, False


CATALOG = {
    "Times": _times, "TransposeTimes": _times_transpose,
    "Convolution": _convolution, "ConvolutionTranspose": _convolution_transpose,
    "BatchNormalization": _batch_normalization, "Splice": _splice, "Select": _select, "Gather": _gather,
    "OneHot": _one_hot, "SequenceBroadcastAs": _sequence_broadcast, "Where": _where, "EyeLikeOp": _eye_like,
    "SequenceGather": _where_gather,
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
    "Log": _unary(C.log, 0.5, 2.0), "Sqrt": _unary(C.sqrt, 0.5, 2.0), "Square": _unary(C.square),
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
    "Pooling": _pooling(C.AVG_POOLING, True), "Unpooling": None,
    "PastValue": _past_future(C.sequence.past_value), "FutureValue": _past_future(C.sequence.future_value),
    "SequenceFirst": _on_sequence(C.sequence.first), "SequenceLast": _on_sequence(C.sequence.last),
    "SequenceIsFirst": _on_sequence(C.sequence.is_first, smooth=False),
    "SequenceIsLast": _on_sequence(C.sequence.is_last, smooth=False),
    "SequenceReduceSum": _on_sequence(C.sequence.reduce_sum),
    "SequenceReduceMax": _on_sequence(C.sequence.reduce_max, smooth=False),
    "SequenceSoftmax": _on_sequence(C.sequence.softmax),
    "SequenceSlice": _on_sequence(lambda x: C.sequence.slice(x, 0, 1)),
}
CATALOG = {k: v for k, v in CATALOG.items() if v is not None}

# registered ops this walk does not build yet (each is tested by its own family's tests)
NOT_YET_WALKED = {
    "Block", "Combine", "Assign", "BernoulliRandom", "BernoulliRandomLike", "GumbelRandom", "GumbelRandomLike",
    "NormalRandom", "NormalRandomLike", "UniformRandom", "UniformRandomLike", "RandomSample",
    "RandomSampleInclusionFrequency", "CosineDistanceWithNegativeSamples", "Crop", "DepthToSpace", "SpaceToDepth",
    "EditDistanceError", "LambdaRank", "NDCG1Eval", "LocalResponseNormalization", "PReLU", "ROIPooling",
    "ReconcileDynamicAxis", "SequenceScatter", "SequentialConvolution", "ToBatch", "UnpackBatch",
    "ToSequenceLikeOp", "ToSequenceOp", "UnpackSequence", "Unpooling", "UserFunction",
    "ReduceL1OverSequences", "ReduceL2OverSequences", "ReduceLogSumOverSequences", "ReduceMaxOverSequences",
    "ReduceMeanOverSequences", "ReduceMinOverSequences", "ReduceProdOverSequences", "ReduceSumOverSequences",
    "ReduceSumSquareOverSequences",
}
RANDOM = {"Dropout"}
# what this walk found and the owners of those ops have not fixed yet: each fails as the reason says
KNOWN_FAILURES = {
    "Argmax": "save -> load: the saved axis (all static axes) is read back as 'Axis AllStaticAxes is not a "
              "static axis'",
    "Argmin": "save -> load: as Argmax",
    "BatchNormalization": "inference-mode gradient: 0 analytic where finite differences give about 12",
}


def _cases():
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[name]))
            if name in KNOWN_FAILURES else name for name in sorted(CATALOG)]


def test_the_catalog_covers_the_registry():
    registered = set(registered_ops())
    assert set(CATALOG) - registered == set(), "catalog entries for ops that are not registered"
    assert registered - set(CATALOG) - NOT_YET_WALKED == set(), "registered ops without a walk (add to CATALOG)"
    assert set(CATALOG) & NOT_YET_WALKED == set()


def _values(f, feed):
    result = f.eval(feed)
    if hasattr(result, "toarray"):  # a sparse output (eye_like, one_hot) comes back as a CSR matrix
        result = result.toarray()
    return result if isinstance(result, list) else [np.asarray(result)]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(x, F64), np.asarray(y, F64), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("op_name", _cases())
def test_every_op_computes_what_its_shape_rule_says_and_round_trips(op_name, tmp_path):
    rng = np.random.RandomState(sum(map(ord, op_name)))
    f, feed, smooth = CATALOG[op_name](rng)
    ops = {n._op.name for n in walk(f.outputs, node_inputs_and_body).nodes}
    assert op_name in ops, "the builder for %s made %s" % (op_name, sorted(ops))
    out = f.output
    values = _values(f, feed)
    for v in values:   # the shape rule: static shape after the batch (and sequence) axes
        assert tuple(v.shape[v.ndim - len(out.shape):]) == tuple(out.shape)
    assert str(f) and out._type in str(f)
    if op_name in RANDOM:
        return
    cloned = f.clone(C.CloneMethod.clone)
    _same(values, _values(cloned, {cloned.arguments[f.arguments.index(a)]: d for a, d in feed.items()}))
    path = str(tmp_path / "op.model")
    f.save(path)
    loaded = C.Function.load(path)
    _same(values, _values(loaded, {loaded.arguments[f.arguments.index(a)]: d for a, d in feed.items()}))
    if smooth:
        _check_gradient(f, feed)


def _check_gradient(f, feed, eps=1e-6):
    """d sum(f) / d x against central differences, for the first argument that needs a gradient."""
    x = next(a for a in f.arguments if a.needs_gradient)
    loss = C.reduce_sum(f) if f.output._sequence_axis is None else C.sequence.reduce_sum(C.reduce_sum(f))
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
                result = loss.eval(new)
                return float(np.sum([np.sum(r) for r in (result if isinstance(data, list) else [result])]))
            numeric = (total(eps) - total(-eps)) / (2 * eps)
            assert abs(np.asarray(grad).reshape(-1)[k] - numeric) <= 1e-5 * max(1.0, abs(numeric)), \
                "d/dx[%d] of %s: %r analytic, %r numeric" % (k, f.root_function.op_name, grad.reshape(-1)[k], numeric)
