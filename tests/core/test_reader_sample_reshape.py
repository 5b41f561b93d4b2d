"""A reader stream whose samples come flattened feeds an input of the same total size (CNTK reshapes
reader-packed values: Utils::VerifyVariableValueCompatibility); other data is not reshaped."""
import re

import numpy as np
import pytest

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


def _source(tmp_path, lines, **streams):
    path = tmp_path / "data.ctf"
    path.write_text("".join(lines))
    defs = StreamDefs(**{k: StreamDef(k, dim) for k, dim in streams.items()})
    return MinibatchSource(CTFDeserializer(str(path), defs), randomize=False)


def test_flat_reader_samples_take_the_input_shape(tmp_path):
    lines = ["|f %s |l 1 0\n" % " ".join(str(i * 12 + j) for j in range(12)) for i in range(3)]
    src = _source(tmp_path, lines, f=12, l=2)
    x = C.input_variable((1, 3, 4))
    mb = src.next_minibatch(3)
    out = (x * 1).eval({x: mb[src.streams.f]})
    np.testing.assert_array_equal(out, np.arange(36, dtype=np.float32).reshape(3, 1, 3, 4))
    # training through the Trainer takes the same path
    z = C.layers.Dense(2)(C.layers.Convolution2D((2, 2), 2)(x))
    y = C.input_variable(2)
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), None),
                        [C.sgd(z.parameters, C.learning_parameter_schedule(0.01))])
    trainer.train_minibatch({x: mb[src.streams.f], y: mb[src.streams.l]})


def test_free_dimension_is_inferred_from_the_flat_sample(tmp_path):
    src = _source(tmp_path, ["|f %s\n" % " ".join(["1"] * 12)] * 2, f=12)
    x = C.input_variable((C.FreeDimension, 4))
    assert (x * 1).eval({x: src.next_minibatch(2)[src.streams.f]}).shape == (2, 3, 4)


def test_flat_sequence_samples_take_the_input_shape(tmp_path):
    src = _source(tmp_path, ["0 |f 1 2 3 4 5 6\n", "0 |f 7 8 9 10 11 12\n", "1 |f 0 0 0 0 0 1\n"], f=6)
    s = C.sequence.input_variable((2, 3))
    out = (s * 1).eval({s: src.next_minibatch(3)[src.streams.f]})
    np.testing.assert_array_equal(out[0], np.arange(1, 13, dtype=np.float32).reshape(2, 2, 3))
    np.testing.assert_array_equal(out[1], [[[0, 0, 0], [0, 0, 1]]])


def test_a_different_total_size_or_numpy_data_is_not_reshaped(tmp_path):
    src = _source(tmp_path, ["|f 1 2 3 4 5 6\n"] * 2, f=6)
    bad = C.input_variable(5)
    with pytest.raises(ValueError, match=re.escape("The trailing dimensions of the Value shape '[2 x 1 x 6]' do not "
                                                   "match the Variable 'Input('Input")):
        (bad * 1).eval({bad: src.next_minibatch(2)[src.streams.f]})
    x = C.input_variable((1, 2, 3))
    # CNTK rejects it too (its message): only reader values are reshaped
    with pytest.raises(ValueError, match=re.escape("Value's rank (2) should be >= the Variable's rank (3)")):
        (x * 1).eval({x: np.zeros((2, 6), np.float32)})
