"""AttentionModel: the attended value is a convex combination of the encoder states of its own sequence."""
import numpy as np

import cntk as C
from cntk.layers import AttentionModel


def test_attention_of_constant_encoder_states_returns_them():
    enc = C.sequence.input_variable(3, sequence_axis=C.Axis('encoder'))
    dec = C.sequence.input_variable(2)
    attended = AttentionModel(5, name='attention')(enc, dec)
    assert attended.shape == (3,)
    v, w = np.array([1, 2, 3], np.float32), np.array([-1, 0, 4], np.float32)
    out = attended.eval({enc: [np.stack([v, v]), np.stack([w])],
                         dec: [np.random.rand(4, 2).astype(np.float32), np.random.rand(2, 2).astype(np.float32)]})
    np.testing.assert_allclose(out[0], np.tile(v, (4, 1)), rtol=1e-5)
    np.testing.assert_allclose(out[1], np.tile(w, (2, 1)), rtol=1e-5)  # the padding step gets no weight


def test_attention_weights_depend_on_the_decoder_state_as_in_cntk():
    enc = C.sequence.input_variable(1, sequence_axis=C.Axis('encoder'))
    dec = C.sequence.input_variable(1)
    attended = AttentionModel(4, init=C.glorot_uniform(seed=1))(enc, dec)
    out = attended.eval({enc: [np.array([[0], [10]], np.float32)], dec: [np.array([[-5], [5]], np.float32)]})
    # CNTK 2.7's values for this model, seed and data (each decoder step weighs the states 0 and 10 differently)
    np.testing.assert_allclose(out[0].ravel(), [9.954967, 5.1186314], rtol=1e-5)


def test_windowed_attention_warns_with_cntk_message():
    import warnings
    from cntk.layers import AttentionModel
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        AttentionModel(8, 20, -3)
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert messages == ["Specifying non-default values for attention_span and attention_axis has been deprecated "
                        "since version 2.2. These arguments will be removed in the future."]
    assert caught[0].filename == __file__   # attributed to the caller, as CNTK's stacklevel=2
