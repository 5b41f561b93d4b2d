"""Sequence ops on padded batches of different lengths agree with per-sequence numpy."""
import numpy as np
import pytest

import cntk as C

LENGTHS = (3, 1, 4)


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    return [rng.rand(n, 2).astype(np.float32) for n in LENGTHS]


def _per_sequence(op, data):
    x = C.sequence.input_variable(2)
    return op(x).eval({x: data})


def _shift_past(s, k, init):
    return np.concatenate([np.full((min(k, len(s)), 2), init, np.float32), s[:max(len(s) - k, 0)]])


def _shift_future(s, k, init):
    return np.concatenate([s[k:], np.full((min(k, len(s)), 2), init, np.float32)])


@pytest.mark.parametrize("op, reference", [
    (lambda x: C.sequence.past_value(x, initial_state=0.5, time_step=2), lambda s: _shift_past(s, 2, 0.5)),
    (lambda x: C.sequence.future_value(x, initial_state=-1), lambda s: _shift_future(s, 1, -1)),
    (lambda x: C.sequence.delay(x, time_step=-2), lambda s: _shift_future(s, 2, 0)),
    (C.sequence.softmax, lambda s: np.exp(s) / np.exp(s).sum(0)),
    (lambda x: C.sequence.slice(x, -2, 0), lambda s: s[-2:]),
    (lambda x: C.sequence.gather(x, C.sequence.is_first(x)), lambda s: s[:1]),
])
def test_sequence_results(op, reference, data):
    got = _per_sequence(op, data)
    for g, s in zip(got, data):
        np.testing.assert_allclose(g, reference(s), rtol=1e-6)


@pytest.mark.parametrize("op, reference", [
    (C.sequence.reduce_sum, lambda s: s.sum(0)),
    (C.sequence.reduce_max, lambda s: s.max(0)),
    (C.sequence.first, lambda s: s[0]),
    (C.sequence.last, lambda s: s[-1]),
])
def test_sequence_reductions(op, reference, data):
    got = _per_sequence(op, data)
    np.testing.assert_allclose(got, np.stack([reference(s) for s in data]), rtol=1e-6)


def test_is_first_is_last_docstring_values():
    x = C.sequence.input_variable(shape=(3, 2))
    x0 = np.reshape(np.arange(24.0, dtype=np.float32), (1, 4, 3, 2))
    assert np.array_equal(C.sequence.is_first(x).eval({x: x0}), [[1, 0, 0, 0]])
    assert np.array_equal(C.sequence.is_last(x).eval({x: x0}), [[0, 0, 0, 1]])
    assert np.array_equal(C.sequence.last(x).eval({x: x0}), [[[18, 19], [20, 21], [22, 23]]])


def test_where_and_scatter(data):
    x = C.sequence.input_variable(2)
    idx = C.sequence.where(C.sequence.is_last(x)).eval({x: data})
    assert [list(np.ravel(i)) for i in idx] == [[n - 1] for n in LENGTHS]
    scattered = C.sequence.scatter(C.sequence.last(x), C.sequence.is_first(x)).eval({x: data})
    for s, d in zip(scattered, data):
        expected = np.zeros_like(d)
        expected[0] = d[-1]
        np.testing.assert_array_equal(s, expected)


def test_past_value_gradient(data):
    x = C.sequence.input_variable(2, needs_gradient=True)
    g = C.sequence.past_value(x, time_step=1).grad({x: data}, wrt=[x])
    for gi, n in zip(g, LENGTHS):
        expected = np.ones((n, 2), np.float32)
        expected[-1] = 0
        np.testing.assert_array_equal(gi, expected)


def test_broadcast_as_and_unpack(data):
    a = C.input_variable(2)
    x = C.sequence.input_variable(2)
    a_data = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = C.sequence.broadcast_as(a, x).eval({a: a_data, x: data})
    for g, row, n in zip(got, a_data, LENGTHS):
        np.testing.assert_array_equal(g, np.tile(row, (n, 1)))
    value, mask = C.sequence.unpack(x, padding_value=-7).outputs
    out = C.combine([value, mask]).eval({x: data})
    assert out[value].shape == (3, 4, 2) and np.all(out[value][1, 1:] == -7)
    np.testing.assert_array_equal(out[mask], [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]])


def test_to_sequence_round_trip():
    x = C.input_variable((C.FreeDimension, 2))
    lengths = C.input_variable(())
    seq = C.to_sequence(x, lengths)
    got = seq.eval({x: np.ones((2, 3, 2), np.float32), lengths: np.array([3, 1], np.float32)})
    assert [g.shape for g in got] == [(3, 2), (1, 2)]
    with pytest.raises(ValueError):
        C.to_sequence(C.sequence.input_variable(2))


def test_is_first_and_is_last_are_float32_scalars_until_the_operand_is_known():
    # CNTK 2.7 prints these types (str of the Function): the flag comes from a float constant
    x = C.sequence.input_variable(3)
    assert str(C.sequence.is_first(x)) == "Sequence::IsFirst(Sequence[Tensor[3]]) -> Sequence[np.float32]"
    assert str(C.sequence.is_last(C.placeholder(shape=(3,)))) == \
        "Sequence::IsLast(Sequence[Tensor[3]]) -> Sequence[np.float32]"
    assert str(C.sequence.is_first(C.placeholder(dynamic_axes=x.dynamic_axes))) == \
        "Sequence::IsFirst(Sequence[tensor]) -> Sequence[np.float32]"
    assert str(C.sequence.is_first(C.placeholder())) == "Sequence::IsFirst(Sequence[tensor]) -> Sequence[tensor]"
    x64 = C.sequence.input_variable(2, dtype=np.float64)
    assert C.sequence.is_last(x64).dtype == np.float64
