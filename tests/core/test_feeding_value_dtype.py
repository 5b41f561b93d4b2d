"""A Value (or reader data) fed to an input of another data type is CNTK 2.7's RuntimeError; numpy data is converted."""
import numpy as np
import pytest

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


def test_values_of_another_type_are_refused():
    x32, x64 = C.input_variable(2), C.input_variable(2, dtype=np.float64)
    with pytest.raises(RuntimeError, match=r"DataType Double does not match the corresponding Value's DataType Float"):
        (x64 * 1).eval({x64: C.Value.create(x32, [np.ones(2, np.float32)])})
    with pytest.raises(RuntimeError, match=r"DataType Float does not match the corresponding Value's DataType Double"):
        (x32 * 1).eval({x32: C.Value.create(x64, [np.ones(2)])})
    # numpy data is converted (CNTK 2.7 gives [[1, 1]])
    assert (x64 * 1).eval({x64: np.ones((1, 2), np.float32)}).tolist() == [[1.0, 1.0]]


def test_reader_data_to_a_double_input_is_refused(tmp_path):
    path = tmp_path / 'd.ctf'
    path.write_text(''.join('%d |a %d %d\n' % (i, i, i + 1) for i in range(4)))
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(a=StreamDef('a', 2))), randomize=False)
    mb = src.next_minibatch(3)
    x64 = C.input_variable(2, dtype=np.float64)
    with pytest.raises(RuntimeError, match=r"DataType Double does not match the corresponding Value's DataType Float"):
        (x64 * 1).eval({x64: mb[src.streams.a]})
