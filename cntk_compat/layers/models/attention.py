"""AttentionModel: additive (Bahdanau-style) attention of a decoder state over the encoder's hidden states."""
import warnings

from ... import ops as C
from ...core.function import Function
from ...default_options import default_options, default_override_or, get_default_override
from ...initializer import glorot_uniform
from ..building import Stabilizer, _inject_name
from ..layers import Dense, Label
from ..sequence import PastValueWindow

__all__ = [
    "AttentionModel", "Dense", "Function", "Label", "PastValueWindow", "Stabilizer", "default_options",
    "default_override_or", "get_default_override", "glorot_uniform"
]


def AttentionModel(attention_dim, attention_span=None, attention_axis=None,
                   init=default_override_or(glorot_uniform()), go_backwards=default_override_or(False),
                   enable_self_stabilization=default_override_or(True), name=''):
    """f(encoder_hidden_state, decoder_hidden_state) -> the encoder states averaged with softmax weights of
    w' tanh(W_enc h_enc + W_dec h_dec), computed for each decoder step.

    attention_span/attention_axis select CNTK's older windowed form (a fixed window of the last
    attention_span encoder states laid out along the static attention_axis)."""
    init = get_default_override(AttentionModel, init=init)
    go_backwards = get_default_override(AttentionModel, go_backwards=go_backwards)
    stabilize = get_default_override(AttentionModel, enable_self_stabilization=enable_self_stabilization)
    windowed = attention_span is not None
    if not windowed and attention_axis is not None:
        raise ValueError("AttentionModel: attention_span cannot be None when attention_axis is given")
    if windowed and attention_span <= 0:
        raise ValueError("AttentionModel: attention_span must be positive, got %r" % (attention_span,))
    if windowed and attention_axis is None:
        raise ValueError("AttentionModel: attention_axis cannot be None when attention_span is given")

    def projection(dim):
        return Stabilizer(enable_self_stabilization=stabilize) >> Dense(dim, init=init, input_rank=1)
    with default_options(bias=False):
        project_encoder, project_decoder, project_tanh = projection(attention_dim), projection(attention_dim), \
            projection(1)
    final_stabilizer = Stabilizer(enable_self_stabilization=stabilize)

    if windowed:
        warnings.warn("Specifying non-default values for attention_span and attention_axis has been deprecated "
                      "since version 2.2. These arguments will be removed in the future.",
                      DeprecationWarning, stacklevel=2)

        @Function
        def windowed_attention(h_enc, h_dec):
            window, valid = PastValueWindow(attention_span, axis=attention_axis,
                                            go_backwards=go_backwards)(h_enc).outputs
            enc_proj = C.sequence.broadcast_as(project_encoder(window), h_dec)
            valid = C.sequence.broadcast_as(valid, h_dec)
            logits = project_tanh(C.tanh(project_decoder(h_dec) + enc_proj))
            logits = logits + (valid - 1) * 50  # pushes the padded window rows out of the softmax
            weights = Label('attention_weights')(C.softmax(logits, axis=attention_axis))
            attended = C.reduce_sum(C.element_times(C.sequence.broadcast_as(window, h_dec), weights),
                                    axis=attention_axis)
            return final_stabilizer(attended)
        return _inject_name(windowed_attention, name)

    @Function
    def attention(encoder_hidden_state, decoder_hidden_state):
        unpacked, valid = C.sequence.unpack(encoder_hidden_state, padding_value=0).outputs
        enc_proj = C.sequence.broadcast_as(project_encoder(unpacked), decoder_hidden_state)
        valid = C.sequence.broadcast_as(C.reshape(valid, (-1, 1)), decoder_hidden_state)
        logits = project_tanh(C.tanh(project_decoder(decoder_hidden_state) + enc_proj))
        logits = C.element_select(valid, logits, C.constant(-1e+30))
        weights = Label('attention_weights')(C.softmax(logits, axis=0))
        attended = C.reduce_sum(weights * C.sequence.broadcast_as(unpacked, weights), axis=0)
        return final_stabilizer(C.reshape(attended, (), 0, 1))
    return _inject_name(attention, name)
