"""Layer arguments as CNTK 2.7 takes or refuses them (found by differential probes against CNTK 2.7; the values
and error types are CNTK 2.7's)."""
import numpy as np
import pytest

import cntk as C
from cntk.layers import (Activation, BatchNormalization, Convolution, Convolution2D, ConvolutionTranspose, Dense,
                         Dropout, Label, LayerNormalization, SequentialConvolution, default_options)


def test_dense_output_shape_is_taken_as_cntk_takes_it():
    x = C.input_variable(3)
    assert Dense(2.5)(x).shape == (2,)          # numbers are truncated
    assert Dense(True)(x).shape == (1,)
    assert Dense([2, 3])(x).shape == (2, 3)
    assert Dense((2, 0))(x).shape == (2, 0)
    with pytest.raises(TypeError):
        Dense(None)
    with pytest.raises(OverflowError):
        Dense("a")
    with pytest.raises(OverflowError):
        Dense((2, None))
    with pytest.raises(ValueError):
        Dense(-1)


def test_array_initializers_where_cntk_needs_an_initializer_with_rank():
    # Dense and ConvolutionTranspose hand init to initializer_with_rank, which refuses arrays
    with pytest.raises(TypeError):
        Dense(2, init=np.ones((3, 2)))
    with pytest.raises(TypeError):
        ConvolutionTranspose((2, 2), 2, init=np.ones((2, 2, 2, 2)))
    # a number is a constant initializer
    assert (Dense(2, init=0.5)(C.input_variable(3)).W.value == 0.5).all()


def test_convolution_array_initializer_only_without_reduction_axis_and_of_its_nominal_shape():
    x = C.input_variable((5, 5))
    f = Convolution((3, 3), 2, reduction_rank=0, init=np.ones((2, 3, 3)))(x)
    assert f.W.shape == (2, 1, 3, 3)
    with pytest.raises(ValueError):
        Convolution((3, 3), 2, reduction_rank=0, init=np.ones((2, 1, 3, 3)))
    with pytest.raises(ValueError):
        Convolution((3, 3), 2, init=np.ones((2, 2, 3, 3)))
    with pytest.raises(ValueError):
        SequentialConvolution((3, 3), 2, init=np.ones((2, 3, 3)))


def test_convolution_layers_refuse_groups():
    for layer in (Convolution, Convolution2D, SequentialConvolution):
        with pytest.raises(ValueError, match="groups"):
            layer((2, 2), 2, groups=2)


def test_convolution_transpose_needs_num_filters():
    with pytest.raises(TypeError, match="num_filters"):
        ConvolutionTranspose((3, 3), None)


def test_convolution_without_filters_drops_the_channel_axis_with_a_reshape():
    f = Convolution2D((2, 2))(C.input_variable((2, 3, 3)))
    assert f.shape == (2, 2)
    assert f.root_function.block_root.op_name == "Reshape"


def test_convolution_sequential_keeps_a_bias_axis_for_the_sequence_filter_axis():
    x = C.sequence.input_variable((2, 4))
    data = [np.arange(24, dtype=np.float32).reshape(3, 2, 4) / 10]
    f = Convolution((3, 2), 2, sequential=True, pad=True, init=C.initializer.uniform(1, seed=7), init_bias=0.5)(x)
    assert (f.W.shape, f.b.shape, f.shape) == ((2, 2, 3, 2), (2, 1, 1), (2, 4))
    expected = [[[0.091095954, -0.0023662448, -0.095828354, -0.09149766],
                 [-0.27873999, -0.25581205, -0.23288423, 0.58732688]],
                [[0.09998858, 0.29391074, 0.48783255, -0.6387918],
                 [-0.072766662, -0.081813455, -0.090860248, 1.8248944]],
                [[3.6077278, 3.8919897, 4.1762524, -0.51368189],
                 [0.27330065, 0.25113678, 0.22897363, 3.1908307]]]
    np.testing.assert_allclose(f.eval({x: data})[0], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(f.grad({x: data}, wrt=[f.b]), np.full((2, 1, 1), 12, np.float32))
    # without filters
    g = Convolution((2, 2), sequential=True, init=C.initializer.uniform(1, seed=7))(x)
    assert (g.W.shape, g.b.shape, g.shape) == ((1, 2, 2, 2), (1, 1, 1), (3,))
    np.testing.assert_allclose(g.eval({x: data})[0], [[1.2911797, 1.419702, 1.5482246],
                                                      [2.319359, 2.4478815, 2.576404]], rtol=1e-6)
    # SequentialConvolution's bias has no such axis
    assert SequentialConvolution((3, 2), 2, pad=True)(x).b.shape == (2, 1)
    # CNTK windows the sequence here, and refuses a stride along it
    with pytest.raises(NotImplementedError):
        Convolution((3, 2), 2, sequential=True, strides=(2, 1))


def test_dropout_keep_prob_interval():
    with pytest.raises(ValueError):
        Dropout(keep_prob=1.0)
    with pytest.raises(ValueError):
        Dropout(keep_prob=-0.5)
    Dropout(keep_prob=0.75)
    with pytest.raises(ValueError):  # keep_prob 0 is dropout_rate 1, refused where the dropout is made
        Dropout(keep_prob=0)(C.input_variable(2))


def test_activation_must_be_callable():
    with pytest.raises(TypeError):
        Activation(None)
    with pytest.raises(TypeError):
        Activation(3)
    with default_options(activation=None):
        with pytest.raises(TypeError):
            Activation()


def test_label_is_a_function_named_after_its_alias():
    label = Label("a")
    assert isinstance(label, C.Function)
    assert str(label) == "a: NoOp(x: Sequence[tensor]) -> Sequence[tensor]"
    assert [a.name for a in label.arguments] == ["x"]
    y = label(C.input_variable(2))
    assert (y.name, y.root_function.op_name) == ("a", "NoOp")
    assert str(Label("")) == "NoOp(x: Sequence[tensor]) -> Sequence[tensor]"
    model = C.layers.Sequential([Dense(4), Label("hidden"), Dense(2)])
    model.update_signature(3)
    assert model.hidden.shape == (4,)


def test_batch_normalization_map_rank_other_than_1_is_not_implemented():
    for map_rank in (0, 2):
        with pytest.raises(NotImplementedError):
            BatchNormalization(map_rank=map_rank)


def test_layer_normalization_takes_the_default_dtype_and_skips_a_zero_epsilon():
    with default_options(dtype=np.float64):
        f = LayerNormalization()(C.input_variable(3, dtype=np.float64))
    assert [p.dtype for p in f.parameters] == [np.float64, np.float64]
    assert [(c.name, c.shape, c.dtype) for c in f.constants] == [("", (), np.float64)]
    assert LayerNormalization(epsilon=0)(C.input_variable(3)).constants == ()
    x = C.input_variable(4)
    out = LayerNormalization(epsilon=0)(x).eval({x: np.array([[1, 2, 3, 6]], np.float32)})
    np.testing.assert_allclose(out, [[-1.069045, -0.5345225, 0.0, 1.6035674]], rtol=1e-6)


@pytest.mark.parametrize("make, message", [
    (lambda: C.layers.Dropout(keep_prob=1.0), "Dropout: keep_prob must be in the interval [0,1)"),
    (lambda: C.layers.Dropout(dropout_rate=1.0), "dropout_rate must be in the interval [0,1)"),
    (lambda: C.layers.Dropout(keep_prob=0.0), "dropout_rate must be in the interval [0,1)"),
    (lambda: C.layers.Dropout(dropout_rate=-0.1), "dropout_rate must be in the interval [0,1)"),
])
def test_dropout_rates_out_of_range_cntk27_messages(make, message):
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value).startswith(message)
