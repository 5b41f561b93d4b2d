"""Composites saved before version 3 (CNTK 2.0's .dnn files) keep the random state of dropout and random ops in a
'state' dictionary of the composite. Loading one whose state lacks a stateful function, CNTK 2.7 writes on stderr,
without a line end: "WARNING: no state information found for the stateful function (Dropout) when deserializing
from a dictionary (version=2). Reproducibility not guaranteed." (sean-xin-yufeng/LSTM_Using_CNTK's LSTM-CNTK.dnn,
loaded by CNTK 2.7; the text is CNTK's). Files of version 3, as CNTK 2.7 and this package write them, say nothing."""
import numpy as np

import cntk as C
from cntk_compat.model_formats import cntkv2_reader

WARNING = ("WARNING: no state information found for the stateful function (Dropout) when deserializing from a "
           "dictionary (version=2). Reproducibility not guaranteed.")


def _saved_dropout_model(tmp_path):
    x = C.input_variable(3)
    z = C.layers.Dropout(0.5, seed=4)(C.layers.Dense(2, init=C.glorot_uniform(seed=1))(x))
    path = str(tmp_path / 'dropout.model')
    z.save(path)
    data = open(path, 'rb').read()
    return path, data, cntkv2_reader.parse(data, path)


def test_version_2_composite_without_state_warns(tmp_path, capsys):
    path, data, top = _saved_dropout_model(tmp_path)
    top['version'], top['state'] = 2, {}
    z = cntkv2_reader.load(data, path, {}, top=top)
    assert capsys.readouterr().err == WARNING
    out = z.eval({z.arguments[0]: np.ones((2, 3), np.float32)})  # evaluation does not drop out
    assert out.shape == (2, 2)


def test_version_3_file_says_nothing(tmp_path, capsys):
    path, _, top = _saved_dropout_model(tmp_path)
    assert top['version'] == 3
    C.load_model(path)
    assert capsys.readouterr().err == ''
