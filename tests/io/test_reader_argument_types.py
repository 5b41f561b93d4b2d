"""The argument types CNTK 2.7's readers take through SWIG (size_t: a Python int, a bool counting as one) and the
errors for the others, recorded under CNTK 2.7."""
import numpy as np
import pytest

from cntk.io import (CTFDeserializer, HTKFeatureDeserializer, HTKMLFBinaryDeserializer, HTKMLFDeserializer,
                     MinibatchSource, StreamDef, StreamDefs)

SWIG = "^Wrong number or type of arguments for overloaded function '%s'\\."


@pytest.mark.parametrize('shape', [(6,), [6], (2, 3), (1, 6), (), np.int64(6), (np.int64(6),), 6.0, '6', -1])
def test_a_stream_dimension_that_is_not_an_int_is_swigs_error(tmp_path, shape):
    # raised when the deserializer is configured, before its files are looked at
    missing = str(tmp_path / 'missing')
    with pytest.raises(NotImplementedError, match=SWIG % 'new_StreamConfiguration'):
        CTFDeserializer(missing, StreamDefs(x=StreamDef(field='x', shape=shape)))
    with pytest.raises(NotImplementedError, match=SWIG % 'new_HTKFeatureConfiguration'):
        HTKFeatureDeserializer(StreamDefs(f=StreamDef(shape=shape, scp=missing)))
    with pytest.raises(NotImplementedError, match=SWIG % 'htk_mlf_deserializer'):
        HTKMLFDeserializer(missing, StreamDefs(l=StreamDef(shape=shape, mlf=missing)))
    with pytest.raises(TypeError, match="^in method 'htk_mlf_binary_deserializer', argument 3 of type 'size_t'"):
        HTKMLFBinaryDeserializer(StreamDefs(l=StreamDef(shape=shape, mlf=missing)))


def test_a_stream_without_shape_has_no_dim(tmp_path):
    with pytest.raises(AttributeError, match="^record has no attribute 'dim'"):
        CTFDeserializer(str(tmp_path / 'missing'), StreamDefs(x=StreamDef(field='x')))


def test_a_bool_dimension_counts_as_an_int(tmp_path):
    path = tmp_path / 'one.ctf'
    path.write_text('0 |x 5\n1 |x 7\n')
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(x=StreamDef(field='x', shape=True))),
                          randomize=False)
    assert np.asarray(src.next_minibatch(True)[src['x']].asarray()).tolist() == [[[5.0]]]


@pytest.mark.parametrize('size,parts,index', [(2.0, None, None), (2.5, None, None), (np.int64(2), None, None),
                                              (np.float32(2), None, None), ('2', None, None), (None, None, None),
                                              (-1, None, None), (0.0, None, None), (2, 1.0, 0), (2, 2, 0.0),
                                              (2, np.int64(2), 0)])
def test_next_minibatch_takes_ints_only(tmp_path, size, parts, index):
    path = tmp_path / 'one.ctf'
    path.write_text('0 |x 5\n1 |x 7\n')
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(x=StreamDef(field='x', shape=1))), randomize=False)
    with pytest.raises(NotImplementedError, match=SWIG % 'MinibatchSource_get_next_minibatch'):
        src.next_minibatch(size, num_data_partitions=parts, partition_index=index)
    with pytest.raises(ValueError, match='^GetNextMinibatch: Requested minibatch size must be > 0\\.\\n'):
        src.next_minibatch(0)
    assert src.next_minibatch(2, num_data_partitions=True, partition_index=False)[src['x']].num_samples == 2
