"""CNTK 2.7 fails with a RuntimeError on every checkpoint it cannot restore: a missing file or a missing '.ckp'
("Cannot open file '...' for reading."), a corrupt one, a directory, a '.ckp' of another checkpoint. cntk-compat's
errors are RuntimeErrors too (and still the IOError or ValueError they were)."""
import os
import shutil

import pytest

import cntk as C


def _trainer():
    x, y = C.input_variable(3), C.input_variable(2)
    z = C.layers.Dense(2)(x)
    return C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)),
                     [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])


def test_restore_failures_are_runtime_errors(tmp_path):
    t = _trainer()
    ck = str(tmp_path / 'ck')
    t.save_checkpoint(ck)
    with pytest.raises(RuntimeError, match='nothere'):
        t.restore_from_checkpoint(str(tmp_path / 'nothere'))
    with pytest.raises(FileNotFoundError):
        t.restore_from_checkpoint(str(tmp_path / 'nothere'))
    shutil.copy(ck, ck + '2')                                   # no .ckp
    with pytest.raises(RuntimeError, match=r"ck2\.ckp"):
        t.restore_from_checkpoint(ck + '2')
    for name in ('ck3', 'ck3.ckp'):
        (tmp_path / name).write_bytes(b'garbage' * 10)
    with pytest.raises(RuntimeError, match='ck3'):
        t.restore_from_checkpoint(ck + '3')
    os.mkdir(ck + '4')
    with pytest.raises(RuntimeError, match='directory'):
        t.restore_from_checkpoint(ck + '4')
    shutil.copy(ck + '.ckp', ck + '5.ckp')
    (tmp_path / 'ck5').write_bytes(b'xx')
    with pytest.raises(RuntimeError, match='ck5'):
        t.restore_from_checkpoint(ck + '5')
