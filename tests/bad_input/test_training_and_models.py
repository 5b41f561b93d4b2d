"""Nonsense arguments to training, learners, layers and model loading: a clear error naming the culprit (or,
where CNTK 2.7 accepts the input, what CNTK does)."""
import io
import zipfile

import numpy as np
import pytest

import cntk as C
from cntk_compat.core import serialization


@pytest.fixture
def setup():
    x = C.input_variable(2, name="x")
    y = C.input_variable(2, name="y")
    z = C.layers.Dense(2)(x)
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)), [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    return x, y, z, trainer


def _data(n=4):
    return np.ones((n, 2), np.float32), np.eye(2, dtype=np.float32)[[0, 1] * (n // 2)]


def test_an_extra_input_is_ignored_as_in_cntk(setup):
    # CNTK 2.7 accepts data for variables the criterion does not use (a reader's full input map); so does this
    x, y, z, trainer = setup
    X, Y = _data()
    assert trainer.train_minibatch({x: X, y: Y, C.input_variable(3, name="w"): np.ones((4, 3), np.float32)})


def test_arguments_with_different_batch_sizes_are_named(setup):
    x, y, z, trainer = setup
    X, Y = _data()
    with pytest.raises(ValueError, match=r"(?s)Different minibatch layouts detected .*\n\n\(cntk-compat: '[xy]' has (4|3) "
                                         r"samples or sequences, '[xy]' (3|4) samples or sequences\)"):
        trainer.train_minibatch({x: X, y: Y[:3]})


def test_sequences_of_different_lengths_on_one_axis_are_named():
    a = C.sequence.input_variable(1, name="a")
    b = C.sequence.input_variable(1, name="b")
    with pytest.raises(ValueError, match=r"(?s)Different minibatch layouts detected .*'Input\('b', \[#, \*\], \[1\]\)' vs\. "
                                         r"'Input\('a', .*\(cntk-compat: 'a' has sequences of lengths \[3\], 'b' sequences "
                                         r"of lengths \[2\]\)"):
        (a + b).eval({a: [np.ones((3, 1), np.float32)], b: [np.ones((2, 1), np.float32)]})


def test_complex_data_is_refused_naming_the_argument(setup):
    x, y, z, trainer = setup
    with pytest.raises(ValueError, match=r"'x'.*only integer, bool, float32, float64 and float16 are supported, "
                                         r"you gave complex64"):
        z.eval({x: np.ones((1, 2), np.complex64)})


@pytest.mark.parametrize("size, error", [(2.5, NotImplementedError), ("4", NotImplementedError), (-1, NotImplementedError),
                                         (0, ValueError)])
def test_next_minibatch_sizes(tmp_path, size, error):
    # CNTK 2.7's types: its SWIG overload error for what is not a size_t, its ValueError for 0; the argument named
    (tmp_path / "a.ctf").write_text("|a 1\n|a 2\n")
    source = C.io.MinibatchSource(C.io.CTFDeserializer(str(tmp_path / "a.ctf"), C.io.StreamDefs(
        a=C.io.StreamDef(field="a", shape=1))), randomize=False)
    with pytest.raises(error, match="minibatch_size_in_samples"):
        source.next_minibatch(size)


@pytest.mark.parametrize("make, message", [
    (lambda p: C.momentum_sgd(p, 0.1, C.momentum_schedule(1.5)), r"momentum: a momentum must be in \[0, 1\].*1\.5"),
    (lambda p: C.momentum_sgd(p, 0.1, [0.9, 1.2]), r"momentum: a momentum must be in \[0, 1\].*1\.2"),
    (lambda p: C.adam(p, 0.1, 0.9, variance_momentum=2.0), r"variance_momentum: a momentum must be in \[0, 1\]"),
    (lambda p: C.momentum_sgd(p, 0.1, C.momentum_schedule(-0.1)), r"non-negative, got -0\.1")])
def test_a_momentum_outside_0_1_is_named(setup, make, message):
    x, y, z, trainer = setup
    with pytest.raises(ValueError, match=message):
        make(z.parameters)


@pytest.mark.parametrize("lr", [float("inf"), float("nan"), -1.0])
def test_a_learning_rate_that_is_not_finite_and_non_negative_is_named(setup, lr):
    x, y, z, trainer = setup
    with pytest.raises(ValueError, match=r"schedule values must be finite and non-negative, got"):
        C.adam(z.parameters, C.learning_parameter_schedule(lr), C.momentum_schedule(0.9))


@pytest.mark.parametrize("shape", [-5, 0, (2, 0), (3, -4)])
def test_input_variable_shapes(shape):
    with pytest.raises(ValueError, match=r"input_variable: shape"):
        C.input_variable(shape)


@pytest.mark.parametrize("shape", [-3, (2, -1)])
def test_dense_output_shapes(shape):
    # CNTK 2.7 takes 0 and (2, 0) as shapes, and truncates 1.5 to 1 (tests/layers/test_layer_arguments_cntk27.py)
    with pytest.raises(ValueError, match=r"Dense: the output dimensions must not be negative"):
        C.layers.Dense(shape)


def test_a_trainer_without_learners(setup):
    x, y, z, trainer = setup
    with pytest.raises(ValueError, match=r"Trainer: parameter_learners is empty"):
        C.Trainer(z, (C.cross_entropy_with_softmax(z, y), None), [])


def _archive(tmp_path):
    """A model in this package's archive format (graph.json + tensors.pt), and its entries."""
    x = C.input_variable(2, name="x")
    z = C.layers.Dense(2)(x)
    data = serialization.model_bytes(z)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def _write(path, entries, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(str(path), "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def test_a_model_with_absurdly_nested_json_is_named(tmp_path):
    entries = _archive(tmp_path)
    entries["graph.json"] = ("[" * 100000 + "]" * 100000).encode()
    _write(tmp_path / "deep.model", entries)
    with pytest.raises(RuntimeError, match=r"'.*deep\.model'.*corrupt \(RecursionError"):
        C.load_model(str(tmp_path / "deep.model"))


def test_bit_flips_in_compressed_tensors_are_named(tmp_path):
    entries = _archive(tmp_path)
    _write(tmp_path / "m.model", entries)
    raw = bytearray((tmp_path / "m.model").read_bytes())
    with zipfile.ZipFile(str(tmp_path / "m.model")) as archive:
        info = archive.getinfo("tensors.pt")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for k in range(start + 10, start + min(info.compress_size, 200), 7):
        raw[k] ^= 0xFF
    (tmp_path / "flipped.model").write_bytes(bytes(raw))
    with pytest.raises(RuntimeError, match=r"'.*flipped\.model'.*(corrupt|cannot be read)"):
        C.load_model(str(tmp_path / "flipped.model"))
