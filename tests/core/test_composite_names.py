"""A composite Function's name is its own, apart from its root primitive's (facts from CNTK 2.7): an op constructor
names both alike, renaming either leaves the other, graph searches see only the primitives' names, and clone and
save/load keep the composite's."""
import os

import pytest

import cntk as C


def _operands():
    return C.input_variable(2, name='a'), C.input_variable(2, name='b')


def test_naming_a_composite_leaves_its_root_and_output_unnamed():
    a, b = _operands()
    f = C.plus(a, b)
    f.name = 'ff'
    assert (f.name, f.root_function.name, f.output.name, f.output.owner.name) == ('ff', '', '', '')
    assert str(f) == 'ff: Plus(a: Tensor[2], b: Tensor[2]) -> Tensor[2]'
    assert str(f.root_function) == 'Plus(a: Tensor[2], b: Tensor[2]) -> Tensor[2]'
    assert f.find_by_name('ff') is None
    assert (f * 2).find_all_with_name('ff') == []


def test_naming_the_root_leaves_the_composite_unnamed():
    a, b = _operands()
    f = C.plus(a, b)
    f.root_function.name = 'rr'
    assert (f.name, f.root_function.name) == ('', 'rr')
    assert str(f) == 'Plus(a: Tensor[2], b: Tensor[2]) -> Tensor[2]'
    f.name = 'cc'
    assert (f.name, f.root_function.name) == ('cc', 'rr')
    assert f.find_by_name('rr').name == 'rr'


def test_an_op_constructor_names_both_and_neither_can_be_renamed(capsys):
    a, b = _operands()
    f = C.plus(a, b, name='pp')
    assert (f.name, f.root_function.name) == ('pp', 'pp')
    with pytest.raises(ValueError, match="Illegal to set name of a Function 'Plus: .*' with an existing name 'pp'"):
        f.root_function.name = 'qq'
    with pytest.raises(ValueError, match=r"Illegal to set name of a Function 'Composite\(Plus\): .*' with an existing"
                                         " name 'pp'"):
        f.name = 'qq'
    assert "About to throw exception 'Illegal to set name" in capsys.readouterr().err
    g = C.plus(a, b)
    g.name = ''
    g.name = 'x'   # an empty name is no name
    assert g.name == 'x'


def test_clone_and_calls_keep_the_composite_name():
    a, b = _operands()
    f = C.plus(a, b)
    f.name = 'ff'
    h = f.clone(C.CloneMethod.share)
    assert (h.name, h.root_function.name) == ('ff', '')
    assert f(a, b).name == 'ff'
    k = C.combine([f, a * 2])
    k.name = 'k2'
    k3 = k.clone(C.CloneMethod.clone)
    assert (k3.name, k3.root_function.name, k3.root_function.op_name) == ('k2', '', 'Combine')


def test_a_primitive_clones_into_an_unnamed_combine():
    a, b = _operands()
    p = C.plus(a, b, name='pp')
    for r in (p.root_function.clone(C.CloneMethod.share), p.root_function.clone(C.CloneMethod.clone, {a: b}),
              C.combine([p, a * 2], name='kk').root_function.clone(C.CloneMethod.share)):
        assert r.is_composite
        assert (r.name, r.root_function.name, r.root_function.op_name) == ('', '', 'Combine')


@pytest.mark.parametrize("fmt", [None, "compat"])
def test_save_and_load_keep_both_names(tmp_path, fmt):
    a, b = _operands()
    f = C.plus(a, b)
    f.name = 'ff'
    k = C.combine([C.plus(a, b, name='pp'), a * 2])
    k.name = 'k2'
    for model, names in ((f, ('ff', '', 'Plus')), (k, ('k2', '', 'Combine'))):
        path = str(tmp_path / ("%s.model" % model.name))
        if fmt is None:
            model.save(path)
        else:
            from cntk_compat.core.serialization import model_bytes
            with open(path, 'wb') as out:
                out.write(model_bytes(model))
        loaded = C.load_model(path)
        assert (loaded.name, loaded.root_function.name, loaded.root_function.op_name) == names
        assert os.path.exists(path)
    loaded = C.load_model(str(tmp_path / "k2.model"))
    assert loaded.find_by_name('pp').name == 'pp' and loaded.find_by_name('k2') is None
