"""What scripts read off a reader's streams and minibatches, as CNTK 2.7 gives it (values from CNTK 2.7)."""
import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, StreamInformation


def _source(tmp_path, names, text='|f0 1 |f1 2 |f2 3 |f3 4 |f4 5\n', sparse=()):
    p = tmp_path / 'd.ctf'
    p.write_text(text)
    defs = {n: StreamDef(field='f%d' % j, shape=5 if n in sparse else 1, is_sparse=n in sparse)
            for j, n in enumerate(names)}
    return MinibatchSource(CTFDeserializer(str(p), StreamDefs(**defs)), randomize=False)


def test_stream_ids_follow_the_case_insensitive_names_and_stream_infos_lists_the_last_first(tmp_path):
    src = _source(tmp_path, ['b', 'A', 'c', 'B2', 'a1'])
    assert [(si.m_name, si.m_id) for si in src.stream_infos()] == \
        [('c', 4), ('B2', 3), ('b', 2), ('a1', 1), ('A', 0)]
    assert list(src.streams.keys()) == ['c', 'B2', 'b', 'a1', 'A']
    mb = src.next_minibatch(1)
    assert [k.m_name for k in mb.keys()] == ['A', 'a1', 'b', 'B2', 'c']


def test_stream_ids_are_numbered_per_deserializer(tmp_path):
    p, q = tmp_path / 'p.ctf', tmp_path / 'q.ctf'
    p.write_text('0 |a 1 |b 2\n')
    q.write_text('0 |c 1\n')
    src = MinibatchSource([CTFDeserializer(str(p), StreamDefs(zz=StreamDef(field='a', shape=1),
                                                              aa=StreamDef(field='b', shape=1))),
                           CTFDeserializer(str(q), StreamDefs(bb=StreamDef(field='c', shape=1)))], randomize=False)
    assert [(si.m_name, si.m_id) for si in src.stream_infos()] == [('bb', 2), ('zz', 1), ('aa', 0)]


def test_stream_information_fields_are_cntk_codes(tmp_path):
    src = _source(tmp_path, ['w', 't'], text='|f0 3:1 |f1 1\n', sparse=('w',))
    w, t = src.streams.w, src.streams.t
    assert (w.m_storage_format, w.m_element_type, w.m_is_binary, w.m_defines_mb_size) == (1, 1, False, False)
    assert t.m_storage_format == C.cntk_py.StorageFormat_Dense == 0
    assert w.m_storage_format == C.cntk_py.StorageFormat_SparseCSC
    assert t.m_element_type == C.cntk_py.DataType_Float
    assert w.m_sample_layout.dimensions() == (5,) and str(w) == w.as_string() == repr(w) == 'w([5])'
    user = StreamInformation('a', 0, 'dense', np.float64, (5, 3))
    assert (user.m_element_type, user.m_storage_format, str(user)) == (2, 0, 'a([5 x 3])')
    assert user.m_sample_layout.dimensions() == (5, 3)


def test_minibatch_data_mask_is_int8_and_its_string_names_the_value(tmp_path):
    text = '0 |f0 1\n0 |f0 2\n0 |f0 3\n1 |f0 4\n1 |f0 5\n2 |f0 6\n'
    src = _source(tmp_path, ['x'], text=text)
    d = src.next_minibatch(6)[src.streams.x]
    assert d.mask.dtype == np.int8 and d.mask.tolist() == [[2, 1, 1], [2, 1, 0], [2, 0, 0]]
    assert str(d) == d.as_string() == 'MinibatchData(data=Value([3 x 3 x 1], CPU), samples=6, seqs=3)'


def test_value_clone_alias_copy_from_and_codes():
    v = C.Value(np.ones((2, 3), np.float32))
    clone, alias = v.deep_clone(), v.alias()
    alias.copy_from(C.Value(np.zeros((2, 3), np.float32)))
    assert v.asarray().sum() == 0 and clone.asarray().sum() == 6
    assert (v.get_data_type(), v.get_storage_format()) == (1, 0)
    assert C.Value.one_hot([[1, 2], [0]], 4).get_storage_format() == 1
    assert C.Value(np.ones((2, 3))).data.get_data_type() == 2
    assert C.NDArrayView.from_dense(np.ones((2, 2), np.float32)).get_storage_format() == 0
    assert C.Value.one_hot_skip == C.Value.ONE_HOT_SKIP == 2 ** 32 - 1


def test_an_erased_value_can_no_longer_be_read():
    v = C.Value(np.ones((2, 3), np.float32))
    v.erase()
    assert not v.is_valid
    for read in (lambda: v.shape, lambda: v.asarray(), lambda: v.is_sparse, lambda: v.data):
        try:
            read()
        except RuntimeError:
            continue
        raise AssertionError('an erased Value was read')


def test_checkpoint_state_carries_cntks_sample_position_and_restores_from_it(tmp_path):
    # sequences of 3, 2, 1 and 4 samples; CNTK's state is {'minibatchSourcePosition': samples read}; restoring
    # it continues at the first sequence that ends past the position
    text = '0 |f0 1\n0 |f0 2\n0 |f0 3\n1 |f0 4\n1 |f0 5\n2 |f0 6\n3 |f0 7\n3 |f0 8\n3 |f0 9\n3 |f0 10\n'
    src = _source(tmp_path, ['x'], text=text)
    src.next_minibatch(4)
    assert src.get_checkpoint_state()['minibatchSourcePosition'] == 3
    for position, first, after in ((3, [4, 5], 6), (4, [6], 6), (5, [6], 6), (9, [1, 2, 3], 13), (23, [4, 5], 26)):
        src.restore_from_checkpoint({'minibatchSourcePosition': position})
        seqs = src.next_minibatch(3)[src.streams.x].as_sequences()
        assert seqs[0][:, 0].tolist() == first
        assert src.get_checkpoint_state()['minibatchSourcePosition'] == after


def test_a_script_rewinds_by_changing_cntks_key_in_the_current_position(tmp_path):
    # a text classifier rewinds its one-sweep dev reader before each evaluation with
    # pos = src.current_position; pos['minibatchSourcePosition'] = 0; src.current_position = pos
    # (CNTK 2.7: every evaluation reads the 6 samples again, in minibatches of 3 samples; 2, then 1 sequence)
    p = tmp_path / 'd.ctf'
    p.write_text('0 |S0 1:1 |S1 1 0\n0 |S0 2:1\n1 |S0 3:1 |S1 0 1\n2 |S0 0:1 |S1 1 0\n2 |S0 1:1\n2 |S0 2:1\n')
    for randomize in (False, True):
        src = MinibatchSource(CTFDeserializer(str(p), StreamDefs(
            s=StreamDef(field='S0', shape=4, is_sparse=True), l=StreamDef(field='S1', shape=2))),
            randomize=randomize, max_sweeps=1)
        for sweep in range(3):
            pos = src.current_position
            assert pos['minibatchSourcePosition'] == 6 * (sweep > 0)
            pos['minibatchSourcePosition'] = 0
            src.current_position = pos
            read = []
            mb = src.next_minibatch(5)
            while mb:
                read.append((mb[src.streams.s].num_samples, mb[src.streams.s].num_sequences,
                             mb[src.streams.l].asarray().reshape(-1, 2).tolist()))
                mb = src.next_minibatch(5)
            assert read == [(3, 2, [[1, 0], [0, 1]]), (3, 1, [[1, 0]])]
        pos = src.current_position          # left as read, the state restores the position as it was
        src.current_position = pos
        assert not src.next_minibatch(5)


def test_one_hot_of_a_flat_list_of_indices_is_a_batch_of_samples():
    v = C.Value.one_hot([1, C.Value.ONE_HOT_SKIP, 3], 4)
    assert v.shape == (3, 4) and v.is_sparse
    a = v.asarray()
    assert a.shape == (3, 4) and a.toarray().tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]
    assert C.Value.one_hot(np.array([1, 2]), 4, dtype=np.float64).shape == (2, 4)
    x = C.input_variable(4, is_sparse=True)
    out = C.times(x, np.arange(8, dtype=np.float32).reshape(4, 2)).eval({x: v})
    np.testing.assert_array_equal(out, [[2, 3], [0, 0], [6, 7]])
    s = C.sequence.input_variable(4, is_sparse=True)  # fed to a sequence input: one sequence of 3 steps
    out = C.times(s, np.eye(4, dtype=np.float32)).eval({s: C.Value.one_hot([1, 2, 3], 4)})
    assert len(out) == 1 and out[0].shape == (3, 4)


def test_read_only_values_refuse_copy_from():
    x = C.input_variable(2)
    v = C.Value.create(x, [np.ones(2, np.float32)], read_only=True)
    assert v.is_read_only and not C.Value.create(x, [np.ones(2, np.float32)]).is_read_only
    try:
        v.copy_from(C.Value.create(x, [np.zeros(2, np.float32)]))
    except RuntimeError:
        pass
    else:
        raise AssertionError('a read-only Value was written')
    np.testing.assert_array_equal((x * 2).eval({x: v}), [[2, 2]])
    assert C.Value(np.ones((2, 2), np.float32)).deep_clone(True).is_read_only


def test_reader_constants_are_cntks():
    assert C.io.FULL_DATA_SWEEP == 2 ** 64 - 2 and C.io.INFINITELY_REPEAT == 2 ** 64 - 1
    assert C.io.DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS == 128


def test_ndarrayview_clone_alias_copy_from_and_set_value():
    nd = C.NDArrayView.from_dense(np.ones((2, 3), np.float32))
    clone, alias = nd.deep_clone(), nd.alias()
    alias.copy_from(C.NDArrayView.from_dense(np.zeros((2, 3), np.float32)))
    assert nd.asarray().sum() == 0 and clone.asarray().sum() == 6
    filled = C.NDArrayView(shape=(2, 2), data_type=np.float32)
    filled.set_value(3.0)
    np.testing.assert_array_equal(filled.asarray(), np.full((2, 2), 3, np.float32))
    v = C.Value(np.ones((2, 2), np.float32))
    v.data.copy_from(filled)  # a Value's data is a view on its storage
    np.testing.assert_array_equal(v.asarray(), filled.asarray())


def test_deserializer_reads_as_its_configuration_dictionary_and_source_constants(tmp_path):
    p = tmp_path / 'c.ctf'
    p.write_text('|x 1 2\n')
    d = CTFDeserializer(str(p), StreamDefs(x=StreamDef(field='x', shape=2)))
    assert sorted(d.keys()) == ['file', 'input', 'type'] and 'input' in d
    assert dict(d.items())['type'] == 'CNTKTextFormatDeserializer' and d.get('file') == str(p)
    assert MinibatchSource.full_data_sweep == 2 ** 64 - 2 and MinibatchSource.infinitely_repeat == 2 ** 64 - 1
    assert MinibatchSource(d, randomize=False).default_randomization_window_in_chunks == 128


def test_htk_deserializers_show_cntks_configuration(tmp_path):
    from cntk.io import HTKFeatureDeserializer, HTKMLFDeserializer
    scp, mlf, states = tmp_path / 'f.scp', tmp_path / 'l.mlf', tmp_path / 'states.txt'
    scp.write_text('a=%s[0,3]\n' % (tmp_path / 'a.htk'))
    mlf.write_text('#!MLF!#\n"a.lab"\n0 100 s1\n.\n')
    states.write_text('s1\ns2\n')
    d = HTKFeatureDeserializer(StreamDefs(f=StreamDef(shape=3, context=(1, 2), scp=str(scp))))
    assert d['type'] == 'HTKFeatureDeserializer'
    assert dict(d['input']['f']) == dict(contextWindow=[1, 2], definesMBSize=False, dim=3, expandToUtterance=False,
                                         maxSequenceLength=65535, scpFile=str(scp))
    m = HTKMLFDeserializer(str(states), StreamDefs(l=StreamDef(shape=2, mlf=str(mlf))))
    assert sorted(m.keys()) == ['input', 'type'] and m['type'] == 'HTKMLFDeserializer'
    assert dict(m['input']['l']) == dict(dim=2, labelMappingFile=str(states), mlfFile=str(mlf),
                                         phoneBoundaries='false')
