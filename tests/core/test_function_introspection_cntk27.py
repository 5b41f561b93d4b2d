"""Function introspection as CNTK 2.7 answers it (session 20 differential sweep, values read from CNTK 2.7):
a primitive's or block's placeholders are its own placeholder inputs, ``Function.type`` is its output's
(a RuntimeError for several outputs), the errors of block_root / block_arguments_mapping on a non-block and of
find_by_name with several matches carry CNTK's words."""
import pytest

import cntk as C


def _dense_mlp():
    x = C.input_variable(4, name='features')
    return C.layers.Sequential([C.layers.Dense(5, activation=C.relu, name='h1'),
                                C.layers.Dense(3, name='out')], name='mlp')(x)


def test_a_block_roots_placeholders_are_its_own_placeholder_inputs():
    m = _dense_mlp()
    dense = m.find_by_name('h1')
    assert dense.is_block
    # CNTK 2.7: the Dense block's root (ReLU of the body) has no placeholder input of its own
    assert dense.block_root.placeholders == ()
    p = C.placeholder(name='p')
    f = C.plus(p, 1)
    assert [v.name for v in f.root_function.placeholders] == ['p']
    assert [v.name for v in f.placeholders] == ['p']
    # a composite still lists every placeholder leaf
    g = C.tanh(C.times(C.placeholder(name='q'), C.parameter((2, 2))))
    assert [v.name for v in g.placeholders] == ['q']
    assert g.root_function.placeholders == ()


def test_function_type_is_its_outputs():
    m = _dense_mlp()
    with pytest.raises(AttributeError, match="'Variable' object has no attribute 'type'"):
        m.type
    x = C.input_variable(3, name='xc')
    comb = C.combine([C.sigmoid(x, name='sig'), C.tanh(x, name='th')])
    with pytest.raises(RuntimeError, match="with more than one output cannot be implicitly converted"):
        comb.type


def test_block_root_of_a_non_block_names_the_function():
    m = _dense_mlp()
    with pytest.raises(ValueError) as e:
        m.root_function.block_root
    assert str(e.value) == ("Function::BlockRoot() called for a Function 'NoOp: Output('out', [#], [3]) -> "
                            "Output('mlp', [#], [3])' which is not a block.")
    with pytest.raises(ValueError) as e:
        m.root_function.block_arguments_mapping
    assert str(e.value) == ("Function::BlockArgumentsMapping() called for a Function 'NoOp: Output('out', [#], "
                            "[3]) -> Output('mlp', [#], [3])' which is not a block.")


def test_find_by_name_with_several_matches():
    m = _dense_mlp()
    expected = 'found multiple functions matching "W". If that was expected call find_all_with_name'
    for find in (lambda: m.find_by_name('W'), lambda: C.logging.graph.find_by_name(m, 'W', depth=-1),
                 lambda: m.W):
        with pytest.raises(ValueError) as e:
            find()
        assert str(e.value) == expected
