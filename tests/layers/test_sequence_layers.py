"""cntk.layers.sequence: Delay, PastValueWindow, Recurrence, RecurrenceFrom, Fold, UnfoldFrom (values from
CNTK's documentation and tests)."""
import numpy as np
import pytest

import cntk as C
from cntk.layers import Delay, Fold, PastValueWindow, Recurrence, RecurrenceFrom, Sequential, UnfoldFrom
from cntk.layers.typing import Sequence, Signature, Tensor

X0 = np.reshape(np.arange(6, dtype=np.float32), (1, 3, 2))


def test_recurrence_plus_is_a_cumulative_sum_from_the_initial_state():
    x = C.input_variable(**Sequence[Tensor[2]])
    y = Recurrence(C.plus, initial_state=C.Constant([0, 0.5]))(x)
    out = y(np.array([[3, 2], [13, 42], [-100, 100]], np.float32))
    np.testing.assert_allclose(np.asarray(out).reshape(3, 2), [[3, 2.5], [16, 44.5], [-84, 144.5]])


def test_recurrence_backwards_and_from_data():
    x = C.input_variable(**Sequence[Tensor[1]])
    data = [np.array([[1], [2], [3]], np.float32), np.array([[5], [7]], np.float32)]
    back = Recurrence(C.plus, go_backwards=True)(x).eval({x: data})
    np.testing.assert_allclose(back[0].ravel(), [6, 5, 3])
    np.testing.assert_allclose(back[1].ravel(), [12, 7])
    s = C.input_variable(1)
    from_data = RecurrenceFrom(C.plus)(s, x).eval({s: np.array([[10], [100]], np.float32), x: data})
    np.testing.assert_allclose(from_data[0].ravel(), [11, 13, 16])
    np.testing.assert_allclose(from_data[1].ravel(), [105, 112])


def test_fold_reduces_a_sequence():
    r = Fold(C.plus)
    r.update_signature(Sequence[Tensor[1]])
    np.testing.assert_array_equal(r([np.array([[2], [6], [4], [8], [6]], np.float32)]), [[26]])
    m = Fold(C.element_max)
    m.update_signature(Sequence[Tensor[2]])
    np.testing.assert_array_equal(m([np.array([[2, 1], [6, 3], [4, 2], [8, 1], [6, 0]], np.float32)]), [[8, 3]])


def test_delay_trigram_and_past_value_window():
    x = C.input_variable(**Sequence[Tensor[2]])
    trigram = Sequential([tuple(Delay(T) for T in (-1, 0, 1)), C.splice])(x)
    np.testing.assert_array_equal(np.asarray(trigram(X0)).reshape(3, 6),
                                  [[2, 3, 0, 1, 0, 0], [4, 5, 2, 3, 0, 1], [0, 0, 4, 5, 2, 3]])
    value, valid = PastValueWindow(4, axis=-2)(x)(X0)
    np.testing.assert_array_equal(value.reshape(4, 2), [[4, 5], [2, 3], [0, 1], [0, 0]])
    np.testing.assert_array_equal(valid.reshape(4, 1), [[1], [1], [1], [0]])


def test_unfold_from_generates_sequences():
    @C.Function
    def double_up(s):
        return s * 2
    lengths_like = [np.zeros((3, 1), np.float32), np.zeros((5, 1), np.float32)]

    unfold = UnfoldFrom(double_up)

    @C.Function
    @Signature(Sequence[Tensor[1]])
    def plain(x):
        return unfold(C.Constant(1), x)
    out = plain(lengths_like)
    np.testing.assert_array_equal(out[0], [2, 4, 8])
    np.testing.assert_array_equal(out[1], [2, 4, 8, 16, 32])

    until = UnfoldFrom(double_up, until_predicate=lambda v: C.greater(v, 63), length_increase=1.6)

    @C.Function
    @Signature(Sequence[Tensor[1]])
    def cut(x):
        return until(C.Constant(1), x)
    out = cut(lengths_like)
    np.testing.assert_array_equal(out[0], [2, 4, 8, 16, 32])  # 3 * 1.6 steps
    np.testing.assert_array_equal(out[1], [2, 4, 8, 16, 32, 64])  # stopped after the first value > 63


def test_step_function_rules():
    with pytest.raises(TypeError, match="reads CNTK variables"):
        v = C.input_variable(1, name='extra')
        Recurrence(lambda prev, x: prev * v * x)
    with pytest.raises(TypeError, match="cannot create Parameters"):
        def step(prev, x):
            return prev * x * C.Parameter((1,))
        Recurrence(step)
    with pytest.raises(ValueError, match="11 state variables"):
        def eleven(p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, x):
            return tuple(p * x for p in (p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11))
        Recurrence(eleven)


def test_recurrence_trains_a_learnable_decay():
    x = C.input_variable(**Sequence[Tensor[1]])
    a = C.Parameter((1,), init=0.1, name='a')
    target = C.input_variable(**Sequence[Tensor[1]])
    z = Recurrence(lambda h, v: a * h + v)(x)
    loss = C.sequence.reduce_sum(C.squared_error(z, target))
    xs = [np.ones((4, 1), np.float32)]
    ys = [np.array([[1], [1.5], [1.75], [1.875]], np.float32)]  # generated with a = 0.5
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(0.05))
    trainer = C.Trainer(z, (loss, None), [learner])
    for _ in range(200):
        trainer.train_minibatch({x: xs, target: ys})
    assert abs(float(a.value[0]) - 0.5) < 1e-2


def test_recurrence_from_a_sequence_uses_its_last_item():
    state_axis, input_axis = C.Axis('stateAxis'), C.Axis('inputAxis')
    s = C.sequence.input_variable(1, sequence_axis=state_axis)
    x = C.sequence.input_variable(1, sequence_axis=input_axis)
    out = RecurrenceFrom(C.plus)(s, x).eval({s: [np.array([[1], [10]], np.float32)],
                                           x: [np.array([[1], [2]], np.float32)]})
    np.testing.assert_allclose(out[0].ravel(), [11, 13])
    back = RecurrenceFrom(C.plus, go_backwards=True)(s, x).eval({s: [np.array([[1], [10]], np.float32)],
                                                               x: [np.array([[1], [2]], np.float32)]})
    np.testing.assert_allclose(back[0].ravel(), [4, 3])


def test_recurrence_from_its_own_input_sequence_as_initial_state():
    # CNTK 2.7: the input sequence given also as the initial state starts the loop from its last item (first
    # with go_backwards) and is read step by step too; the gradient flows through both
    y = C.sequence.input_variable(2, needs_gradient=True)
    data = [np.array([[1, 2], [3, 4], [5, 6]], np.float32), np.array([[-1, 1]], np.float32)]
    golden = {False: ([[[3.5, 5.0], [4.75, 6.5], [7.375, 9.25]], [[-1.5, 1.5]]],
                      [[[1.75, 1.75], [1.5, 1.5], [1.875, 1.875]], [[1.5, 1.5]]]),
              True: ([[[3.875, 5.75], [5.75, 7.5], [5.5, 7.0]], [[-1.5, 1.5]]],
                     [[[1.875, 1.875], [1.5, 1.5], [1.75, 1.75]], [[1.5, 1.5]]])}
    for go_backwards, (values, gradients) in golden.items():
        f = RecurrenceFrom(lambda h, x: h * 0.5 + x, go_backwards=go_backwards)(y, y)
        assert [a.name for a in f.arguments] == [y.name]
        for got, want in zip(f.eval({y: data}), values):
            np.testing.assert_allclose(got, want)
        for got, want in zip(f.grad({y: data}, wrt=[y]), gradients):
            np.testing.assert_allclose(got, want)


def test_recurrence_from_a_gru_started_from_its_input():
    # a GRU (a fusable cell) whose initial state is its own input sequence runs as CNTK 2.7 computes it
    from cntk.layers import GRU
    y = C.sequence.input_variable(2)
    data = [np.array([[1, 2], [3, 4], [5, 6]], np.float32), np.array([[-1, 1]], np.float32)]
    out = RecurrenceFrom(GRU(2, init=C.glorot_uniform(seed=1)))(y, y).eval({y: data})
    np.testing.assert_allclose(out[0], [[-0.984278, 1.489876], [-0.994658, 1.018448], [-0.999679, 0.999838]],
                               atol=2e-6)
    np.testing.assert_allclose(out[1], [[-0.745392, 0.662378]], atol=2e-6)


def test_recurrence_from_keeps_every_initial_state_as_argument():
    # CNTK 2.7: the result takes one initial state per state variable, named h, c, a, b, ..., even when the first
    # state (the one returned) never reads the others
    from cntk.layers import Recurrence, RecurrenceFrom

    def step(prev1, prev2, prev3, x):
        return prev1 * x, prev2 * x, prev3 * x
    assert [a.name for a in RecurrenceFrom(step).signature] == ["h", "c", "a", "x"]
    x = C.sequence.input_variable(2)
    data = {x: [np.full((3, 2), 3.0, np.float32)]}
    # (CNTK 2.7 itself fails to evaluate this one; the values follow the recurrence's definition)
    out = Recurrence(step, initial_state=(2.0, 5.0, 7.0))(x).eval(data)
    assert np.allclose(out[0], [[6., 6.], [18., 18.], [54., 54.]])

    def step2(prev1, prev2, x):
        return prev1 * x + prev2, prev2 * x
    out = Recurrence(step2, initial_state=(2.0, 5.0))(x).eval(data)
    assert np.allclose(out[0], [[11., 11.], [48., 48.], [189., 189.]])  # CNTK 2.7's values


def test_recurrence_with_every_supported_number_of_states():
    from cntk.layers import RecurrenceFrom
    for n in range(1, 11):
        names = ["p%d" % k for k in range(n)]
        scope = {}
        exec("def step(%s, x):\n    return %s\n" % (", ".join(names), ", ".join("%s * x" % p for p in names)), scope)
        assert len(RecurrenceFrom(scope["step"]).signature) == n + 1


def test_unfold_from_takes_the_shape_of_its_initial_state():
    # CNTK 2.7 (golden values from it): a delay's shape is the elementwise one of its operand and its initial
    # state, so the generator's state takes the (1,) or (2,) of the initial state, not the scalar of `+ 1`
    x = C.sequence.input_variable(1)
    twice = UnfoldFrom(lambda h: h + 1, length_increase=2)(C.constant(np.array([0.], np.float32)), x)
    assert twice.shape == (1,)
    np.testing.assert_array_equal(twice.eval({x: [np.ones((2, 1), np.float32)]})[0], [[1], [2], [3], [4]])
    pair = UnfoldFrom(lambda h: h + 1)(C.constant(np.array([0., 5.], np.float32)), x)
    out = pair.eval({x: [np.ones((2, 1), np.float32), np.ones((3, 1), np.float32)]})
    np.testing.assert_array_equal(out[0], [[1, 6], [2, 7]])
    np.testing.assert_array_equal(out[1], [[1, 6], [2, 7], [3, 8]])


def test_past_value_window_stacks_along_a_new_leading_axis():
    # CNTK 2.7 (shapes and values from it): a block's splice along Axis.new_leading_axis() makes a new axis even
    # though the block's placeholders had no shape when it was built
    for dim in (1, 3):
        x = C.sequence.input_variable(dim)
        w = PastValueWindow(2, C.Axis.new_leading_axis())(x)
        assert [o.shape for o in w.outputs] == [(2, dim), (2, 1)]
    out = w.eval({x: [np.array([[1, 1, 1], [2, 2, 2], [3, 3, 3]], np.float32)]})
    np.testing.assert_array_equal(out[w.outputs[0]], [[[3, 3, 3], [2, 2, 2]]])
    np.testing.assert_array_equal(out[w.outputs[1]], [[[1], [1]]])
    p = C.placeholder()
    assert C.splice(p, p, axis=C.Axis.new_leading_axis())(C.input_variable((2, 3))).shape == (2, 2, 3)


def test_a_named_unfold_from_keeps_its_argument_order():
    # CNTK 2.7: (initial_state, dynamic_axes_like) whether or not the layer is named (values from CNTK 2.7)
    unfold = UnfoldFrom(lambda h: h * 0.5 + 1, name='uu')
    assert [a.name for a in unfold.arguments] == ['initial_state', 'dynamic_axes_like']
    h0 = C.input_variable(2)
    x = C.sequence.input_variable(2)
    out = unfold(h0, x).eval({h0: np.array([[1, 0], [0, 1]], np.float32),
                              x: [np.ones((3, 2), np.float32), np.ones((1, 2), np.float32)]})
    np.testing.assert_allclose(out[0], [[1.5, 1.0], [1.75, 1.5], [1.875, 1.75]])
    np.testing.assert_allclose(out[1], [[1.0, 1.5]])
