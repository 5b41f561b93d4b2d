"""A checkpoint's model file is a model that load_model reads, as CNTK 2.7's is (FER+'s train.py keeps only its
checkpoints; CNTK 2.7 loads `model_0` with load_model). Checked against CNTK 2.7: its checkpoint model file
loads with the model's output and the trained parameter values, and CNTK 2.7 loads the one written here.
Checkpoints in the earlier format (parameter values in the model file) still restore."""
import numpy as np

import cntk as C
from cntk_compat.train import checkpoint as _checkpoint


def _trainer():
    C.cntk_py.set_fixed_random_seed(2)
    x = C.input_variable(3, name='x')
    y = C.input_variable(2, name='y')
    z = C.layers.Dense(2, name='out')(C.layers.Dense(4, activation=C.relu)(x))
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)),
                        C.sgd(z.parameters, C.learning_rate_schedule(0.1, C.UnitType.minibatch)))
    return trainer, z, {x: np.ones((2, 3), np.float32), y: np.eye(2, dtype=np.float32)}


def _total(f):
    return sum(float(p.value.sum()) for p in f.parameters)


def test_the_model_file_loads_with_load_model(tmp_path):
    trainer, z, data = _trainer()
    trainer.train_minibatch(data)
    path = str(tmp_path / "model_0")
    trainer.save_checkpoint(path)
    loaded = C.load_model(path)
    assert 'out' in [o.name for o in loaded.outputs]
    assert len(loaded.parameters) == 4
    assert abs(_total(loaded) - _total(z)) < 1e-6
    assert abs(_total(z) - 1.285358) < 1e-6          # CNTK 2.7's sum after the same step


def test_restore_reads_the_parameters_back(tmp_path):
    trainer, z, data = _trainer()
    trainer.train_minibatch(data)
    path = str(tmp_path / "ck")
    trainer.save_checkpoint(path)
    saved = [p.value.copy() for p in z.parameters]
    trainer.train_minibatch(data)
    trainer.restore_from_checkpoint(path)
    for p, v in zip(z.parameters, saved):
        np.testing.assert_array_equal(p.value, v)


def test_a_checkpoint_in_the_earlier_format_restores(tmp_path):
    trainer, z, data = _trainer()
    trainer.train_minibatch(data)
    path = str(tmp_path / "old")
    original = _checkpoint.save
    try:      # the earlier writer: no graph, the parameter values in the model file
        _checkpoint.save = lambda filename, state, graph=None: original(filename, state)
        trainer.save_checkpoint(path)
    finally:
        _checkpoint.save = original
    saved = [p.value.copy() for p in z.parameters]
    trainer.train_minibatch(data)
    trainer.restore_from_checkpoint(path)
    for p, v in zip(z.parameters, saved):
        np.testing.assert_array_equal(p.value, v)
