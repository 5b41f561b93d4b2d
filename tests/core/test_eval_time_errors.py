"""What CNTK 2.7 raises when a Function is evaluated on data it cannot take: builtins ValueError or RuntimeError
(CNTK has no error class of its own), with CNTK's messages (golden text from CNTK 2.7), and the data it takes."""
import numpy as np
import pytest
import scipy.sparse as sp

import cntk_compat as C


def _f():
    x = C.input_variable(3, name='x')
    y = C.input_variable(2, name='y')
    W = C.parameter((3, 2), init=1.0, name='W')
    return x, y, C.times(x, W) + y


def test_an_extra_argument_is_converted_but_its_layout_need_not_match(capfd):
    x, y, f = _f()
    s = C.sequence.input_variable(3, name='s')
    data = {x: np.ones((2, 3), np.float32), y: np.ones((2, 2), np.float32)}
    np.testing.assert_array_equal(f.eval({**data, s: [np.ones((2, 3), np.float32)]}), [[4, 4], [4, 4]])
    assert ("WARNING: Function::Forward provided values for (1) extra arguments which are not required for "
            "evaluating the specified Function outputs!") in capfd.readouterr().err
    with pytest.raises(ValueError, match=r"^Value::Create: The shape '\[2 x 4\]' of sequence #0 is not compatible "
                                         r"with the sample shape '\[3\]'\.$"):
        f.eval({**data, s: [np.ones((2, 4), np.float32)]})
    assert "WARNING" not in capfd.readouterr().err   # the data are converted first


def test_arguments_on_the_same_dynamic_axes_with_other_layouts():
    x = C.input_variable(3, name='x')
    y = C.input_variable(3, name='y')
    z = C.input_variable(3)
    one = lambda n: np.ones((n, 3), np.float32)  # noqa: E731
    message = (r"^Different minibatch layouts detected \(difference in sequence lengths or count or start flags\) in "
               r"data specified for the Function's arguments '%s' vs\. '%s', though these arguments have the same "
               r"dynamic axes '%s'\n")
    for data, later in (((2, 2, 3), r"Input\('%s', \[#\], \[3\]\)" % z.uid), ((2, 3, 2), r"Input\('y', \[#\], \[3\]\)"),
                        ((3, 2, 2), r"Input\('y', \[#\], \[3\]\)")):
        with pytest.raises(ValueError, match=message % (later, r"Input\('x', \[#\], \[3\]\)", r"\[#\]")):
            (x + y + z).eval({x: one(data[0]), y: one(data[1]), z: one(data[2])})
    s = C.sequence.input_variable(3, name='s')
    s2 = C.sequence.input_variable(3, name='s2')
    seqs = lambda t: [np.ones((t, 3), np.float32)] * 2  # noqa: E731
    for f, later, first in ((s + s2, 's2', 's'), (s2 + s, 's', 's2')):
        with pytest.raises(ValueError, match=message % (r"Input\('%s', \[#, \*\], \[3\]\)" % later,
                                                         r"Input\('%s', \[#, \*\], \[3\]\)" % first, r"\[#, \*\]")):
            f.eval({s: seqs(2), s2: seqs(3)})


def test_placeholders_count_as_missing_arguments_and_their_data_has_no_type():
    x = C.input_variable(3, name='x')
    p = C.placeholder(name='p')
    f = p + x
    one = np.ones((1, 3), np.float32)
    with pytest.raises(ValueError, match=r"^Values for 1 required arguments 'Placeholder\('p', \[\?\?\?\], \[\?\?\?\]\)', "
                                         r"that the requested output\(s\) '.*' depend on, have not been provided\.$"):
        f.eval({x: one})
    with pytest.raises(ValueError, match=r"^Values for 1 required arguments 'Input\('x', \[#\], \[3\]\)'"):
        f.forward({p: one})
    with pytest.raises(RuntimeError, match=r"^Unknown DataType\."):
        f.eval({x: one, p: one})
    with pytest.raises(ValueError, match="^function expects 2 arguments$"):
        f.eval({})


@pytest.mark.parametrize('make', [lambda a: C.Value(a), lambda a: C.NDArrayView.from_dense(a[0])])
def test_a_value_of_another_element_type_is_refused(make):
    x = C.input_variable(3, name='x')
    d = C.input_variable(3, dtype=np.float64, name='d')
    with pytest.raises(RuntimeError, match=r"^The Variable 'Input\('x', \[#\], \[3\]\)' DataType Float does not match "
                                           r"the corresponding Value's DataType Double$"):
        (x + 1).eval({x: make(np.ones((1, 1, 3), np.float64))})
    with pytest.raises(RuntimeError, match=r"^The Variable 'Input\('d', \[#\], \[3\]\)' DataType Double does not match "
                                           r"the corresponding Value's DataType Float$"):
        (d + 1).eval({d: make(np.ones((1, 1, 3), np.float32))})
    np.testing.assert_array_equal((d + 1).eval({d: make(np.ones((1, 1, 3), np.float64))}), [[2, 2, 2]])


def test_data_of_the_wrong_shape_or_rank():
    x = C.input_variable(3, name='x')
    s = C.sequence.input_variable(3, name='s')
    xs = C.input_variable(5, is_sparse=True, name='xs')
    for v, text in ((x, r"Input\('x', \[#\], \[3\]\)"), (s, r"Input\('s', \[#, \*\], \[3\]\)")):
        with pytest.raises(ValueError, match=r"^The trailing dimensions of the Value shape '\[2 x 4\]' do not match the "
                                             r"Variable '%s' shape '\[3\]'\.$" % text):
            (v + 1).eval({v: sp.csr_matrix(np.ones((2, 4), np.float32))})
    with pytest.raises(ValueError, match=r"^The trailing dimensions of the Value shape '\[4 x 6\]' do not match the "
                                         r"Variable 'Input\('xs', \[#\], \[5\]\)' shape '\[5\]'\.$"):
        C.times(xs, C.parameter((5, 2), init=1.)).eval({xs: sp.csr_matrix(np.eye(4, 6, dtype=np.float32))})
    for v, text, n in ((x, r"Input\('x', \[#\], \[3\]\)", 1), (s, r"Input\('s', \[#, \*\], \[3\]\)", 2)):
        for shape in ((2, 2, 2, 3), (2, 1, 1, 3)):
            with pytest.raises(ValueError, match=r"^Value rank \(4\) should be larger than the Variable rank \(1\) at "
                                                 r"most by number of dynamic axes \(%d\); Variable = '%s', Value shape = "
                                                 r"'\[%s\]'\.$" % (n, text, " x ".join(map(str, shape)))):
                (v + 1).eval({v: np.ones(shape, np.float32)})


def test_a_number_is_no_batch_but_a_0d_array_is_one_sample():
    x0 = C.input_variable((), name='x0')
    s0 = C.sequence.input_variable((), name='s0')
    for v in (x0, s0):
        for data in (5.0, 5, True, np.float32(5), np.float64(5)):
            with pytest.raises(ValueError, match="^batch must be a list of NumPy arrays or SciPy CSR matrices$"):
                (v * 2).eval({v: data})
    np.testing.assert_array_equal((x0 * 2).eval({x0: np.array(5.0, np.float32)}), [10.])


def test_an_input_without_dynamic_axes_keeps_a_scalars_rank():
    st = C.input_variable((), dynamic_axes=[], name='st')
    for data in (np.array(5.0, np.float32), np.float32(5), 5.0):
        r = (st * 2).eval({st: data})
        assert isinstance(r, np.ndarray) and r.shape == () and r == 10.0
    assert (st * 2).eval({st: np.float32(5)}, as_numpy=False).shape == ()
    assert C.reduce_sum(st).eval({st: np.float32(5)}).shape == ()


def test_sequences_that_are_all_empty_are_refused_as_cntk_packs_them():
    s = C.sequence.input_variable(3, name='s')
    empty, two = np.ones((0, 3), np.float32), np.ones((2, 3), np.float32)
    for data in ([empty], [empty, empty], C.Value.create(s, [empty]), np.ones((1, 0, 3), np.float32),
                 np.ones((0, 3), np.float32), C.Value(np.ones((1, 0, 3), np.float32))):
        with pytest.raises(RuntimeError, match=r"^AddSequence: Sequences must be a least one frame long\.$"):
            (s + 1).eval({s: data})
    for data in ([empty, two], [two, empty]):
        with pytest.raises(RuntimeError, match=r"^The first entry of a Value mask must be Valid or SequenceBegin$"):
            (s + 1).eval({s: data})


def test_data_of_no_samples_or_sequences_is_refused_as_cntk_refuses_it(capfd):
    """CNTK 2.7 evaluates no empty batch: an empty list is refused when its Value is made, an array of no samples
    when the input node narrows to it (golden texts from CNTK 2.7, which prints them on stderr first)."""
    x = C.input_variable(2, name='x')
    s = C.sequence.input_variable(2, name='s')
    f = C.times(x, C.parameter((2, 3), init=0.5))
    g = C.sequence.reduce_sum(s)
    narrow = r"^Node '%s' \(InputValue operation\): NarrowTo: Invalid bounds parameter, dimensions must be at least one\."
    for data in (np.zeros((0, 2), np.float32), np.zeros((0, 1, 2), np.float32)):
        with pytest.raises(RuntimeError, match=narrow % x.uid):
            f.eval({x: data})
    assert "About to throw exception 'NarrowTo: Invalid bounds parameter" in capfd.readouterr().err
    with pytest.raises(RuntimeError, match=narrow % x.uid):
        f(np.zeros((0, 2), np.float32))
    for fn, arg in ((f, x), (g, s)):
        with pytest.raises(ValueError, match=r"^Value::Create:: The number of sequences must be > 0\n"):
            fn.eval({arg: []})
    with pytest.raises(ValueError, match=r"^Value::Create:: The number of sequences must be > 0\n"):
        C.Value.create(x, [])
    with pytest.raises(RuntimeError, match=r"^The number \(3\) of time steps in the packed MBLayout does not match "
                                           r"the longest sequence's length \(0\) in the Value object"):
        g.eval({s: np.zeros((0, 3, 2), np.float32)})
    # a Trainer evaluates the data first: its update never sees an empty minibatch
    y = C.input_variable(3, name='y')
    trainer = C.Trainer(f, (C.cross_entropy_with_softmax(f, y), None), [C.sgd(f.parameters, 0.1)])
    with pytest.raises(RuntimeError, match=narrow % x.uid):
        trainer.train_minibatch({x: np.zeros((0, 2), np.float32), y: np.zeros((0, 3), np.float32)})
    np.testing.assert_array_equal(f.parameters[0].value, np.full((2, 3), 0.5, np.float32))
