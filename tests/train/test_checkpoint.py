import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import cntk as C
from _models import data, logistic_regression
from cntk_compat.core.random_stream import random_nodes
from cntk_compat.train.checkpoint import CheckpointError

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(args, **kw):
    return subprocess.Popen([sys.executable, os.path.join(HERE, "_resume_worker.py")] + args, cwd=HERE, **kw)


def test_sigkill_then_restore_matches_uninterrupted_run(tmp_path):
    full = tmp_path / "full.npy"
    assert _run([str(tmp_path / "a.ckpt"), str(full), "0"]).wait(timeout=120) == 0
    ckpt = tmp_path / "b.ckpt"
    proc = _run([str(ckpt), str(tmp_path / "unused.npy"), "0.02"])
    deadline = time.time() + 60
    while not (ckpt.exists() and os.path.exists(str(ckpt) + ".ckp")) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert ckpt.exists(), "no checkpoint was written before the kill"
    resumed = tmp_path / "resumed.npy"
    assert _run([str(ckpt), str(resumed), "0"]).wait(timeout=120) == 0
    np.testing.assert_allclose(np.load(str(resumed)), np.load(str(full)), rtol=1e-5, atol=1e-6)


def _saved_trainer(path):
    crit, z, x, y = logistic_regression()
    trainer = C.Trainer(z, crit, [C.adam(z.parameters, C.learning_parameter_schedule(0.01),
                                         C.momentum_schedule(0.9))])
    X, Y = data(64)
    trainer.train_minibatch({x: X, y: Y})
    trainer.save_checkpoint(str(path), {"epoch": 3, "nested": {"a": [1, 2]}})
    return trainer, z, x, y, X, Y


def test_restore_brings_back_parameters_learner_state_and_counters(tmp_path):
    path = tmp_path / "c"
    trainer, z, x, y, X, Y = _saved_trainer(path)
    saved = [p.value.copy() for p in z.parameters]
    trainer.train_minibatch({x: X, y: Y})
    after_one = [p.value.copy() for p in z.parameters]
    assert trainer.restore_from_checkpoint(str(path)) == {"epoch": 3, "nested": {"a": [1, 2]}}
    for p, v in zip(z.parameters, saved):
        np.testing.assert_array_equal(p.value, v)
    assert trainer.total_number_of_samples_seen == 64
    trainer.train_minibatch({x: X, y: Y})
    for p, v in zip(z.parameters, after_one):
        np.testing.assert_allclose(p.value, v, rtol=1e-6)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "ckp"])
def test_corrupt_checkpoint_raises_naming_the_file(tmp_path, damage):
    path = tmp_path / "c"
    trainer = _saved_trainer(path)[0]
    victim = str(path) + ".ckp" if damage == "ckp" else str(path)
    raw = open(victim, "rb").read()
    with open(victim, "wb") as f:
        f.write(raw[: len(raw) // 2] if damage != "garbage" else b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match=os.path.basename(victim)):
        trainer.restore_from_checkpoint(str(path))


def test_mismatched_pair_and_missing_file(tmp_path):
    trainer = _saved_trainer(tmp_path / "a")[0]
    trainer.save_checkpoint(str(tmp_path / "b"))
    os.replace(str(tmp_path / "b.ckp"), str(tmp_path / "a.ckp"))
    with pytest.raises(CheckpointError, match="same checkpoint"):
        trainer.restore_from_checkpoint(str(tmp_path / "a"))
    with pytest.raises(FileNotFoundError, match="nothere"):
        trainer.restore_from_checkpoint(str(tmp_path / "nothere"))


def test_failed_write_leaves_previous_checkpoint_intact(tmp_path, monkeypatch):
    path = tmp_path / "c"
    trainer = _saved_trainer(path)[0]
    before = open(str(path), "rb").read()

    def boom(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr("cntk_compat.train.checkpoint.torch.save", boom)
    with pytest.raises(OSError, match="disk full"):
        trainer.save_checkpoint(str(path))
    assert open(str(path), "rb").read() == before
    assert sorted(os.listdir(str(tmp_path))) == ["c", "c.ckp"]


def test_numpy_values_in_the_external_state_come_back_as_numpy_values(tmp_path):
    path = tmp_path / "Models" / "np.cmf"  # the folder does not exist yet, as in CNTK's tutorials
    trainer = _saved_trainer(tmp_path / "c")[0]
    state = {"pos": np.int64(3), "lr": np.float32(0.5), "flag": np.bool_(True),
             "nested": {"a": [np.arange(6, dtype=np.int16).reshape(2, 3), np.float64(2.5)]}, "t": (1, "s")}
    trainer.save_checkpoint(str(path), state)
    restored = trainer.restore_from_checkpoint(str(path))
    assert type(restored["pos"]) is np.int64 and restored["pos"] == 3
    assert type(restored["lr"]) is np.float32 and type(restored["flag"]) is np.bool_
    a = restored["nested"]["a"][0]
    assert a.dtype == np.int16 and a.shape == (2, 3) and a.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert restored["nested"]["a"][1] == 2.5 and restored["t"] == (1, "s")


def test_a_value_a_checkpoint_cannot_hold_fails_at_save_naming_it(tmp_path):
    trainer = _saved_trainer(tmp_path / "c")[0]
    with pytest.raises(TypeError, match=r"\['external_state'\]\['bad'\]\[1\] is a object"):
        trainer.save_checkpoint(str(tmp_path / "d"), {"bad": [1, object()]})
    assert not os.path.exists(str(tmp_path / "d"))


def test_checkpoint_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        _saved_trainer(tmp_path / "c")
    finally:
        os.umask(old)
    assert os.stat(str(tmp_path / "c")).st_mode & 0o777 == 0o644
    assert os.stat(str(tmp_path / "c.ckp")).st_mode & 0o777 == 0o644


def _dropout_trainer():
    C.cntk_py.set_fixed_random_seed(3)
    x = C.input_variable(2, name="features")
    y = C.input_variable(2, name="labels")
    h = C.layers.Dropout(0.5, name="drop")(C.layers.Dense(16, activation=C.relu, name="hidden")(x))
    drawn = C.reduce_sum(C.random_sample(C.constant(np.ones(4, np.float32)), 2, True))  # a sampler in the graph
    z = C.layers.Dense(2, name="out")(h + 0 * drawn)
    loss = C.cross_entropy_with_softmax(z, y)
    return C.Trainer(z, (loss, C.classification_error(z, y)),
                     [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))]), z, x, y


def test_resume_with_dropout_and_a_sampler_is_bitwise_equal_to_an_uninterrupted_run(tmp_path):
    X, Y = data(48)
    trainer, z, x, y = _dropout_trainer()
    for k in range(3):
        trainer.train_minibatch({x: X[16 * k:16 * k + 8], y: Y[16 * k:16 * k + 8]})
    trainer.save_checkpoint(str(tmp_path / "c"))
    for k in range(3):
        trainer.train_minibatch({x: X[16 * k + 8:16 * k + 16], y: Y[16 * k + 8:16 * k + 16]})
    uninterrupted = [p.value for p in z.parameters]
    offsets = [n.attributes["rngOffset"] for n in random_nodes(z)]

    resumed, z2, x2, y2 = _dropout_trainer()  # a new model, as in a restarted process
    resumed.restore_from_checkpoint(str(tmp_path / "c"))
    for k in range(3):
        resumed.train_minibatch({x2: X[16 * k + 8:16 * k + 16], y2: Y[16 * k + 8:16 * k + 16]})
    for a, b in zip(uninterrupted, [p.value for p in z2.parameters]):
        np.testing.assert_array_equal(a, b)
    assert len(offsets) == 2 and min(offsets) > 0
    assert [n.attributes["rngOffset"] for n in random_nodes(z2)] == offsets



def test_a_saved_and_loaded_model_continues_its_dropout_stream(tmp_path):
    x = C.input_variable(50, name="x")
    z = C.dropout(x, 0.5, seed=11)
    data = np.ones((4, 50), np.float32)
    masks = lambda f: list(f.forward({f.arguments[0]: data}, f.outputs, set(f.outputs))[1].values())[0]  # noqa
    masks(z)  # draw once: rngOffset moves on
    z.save(str(tmp_path / "d.model"))
    loaded = C.load_model(str(tmp_path / "d.model"))
    assert random_nodes(loaded)[0].attributes["rngOffset"] == 200
    np.testing.assert_array_equal(masks(loaded), masks(z))
