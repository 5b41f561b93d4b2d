"""dump_signature / dump_function print the signature and one line per node."""
import cntk as C
from cntk.debugging import dump_function, dump_signature


def test_dump_signature_prints_str_of_the_function(capsys):
    f = C.plus(C.input_variable(2, name='x'), 1.0, name='out')
    dump_signature(f)
    assert capsys.readouterr().out == str(f) + "\n"


def test_dump_function_lists_every_node_with_types(capsys):
    x = C.sequence.input_variable(2, name='x')
    w = C.parameter((2, 3), init=1.0, name='W')
    f = C.times(x, w, name='prod')
    f = C.plus(f, C.constant(0.5, shape=(3,)))
    dump_function(f)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == str(f)
    assert lines[1] == "  Axis defaultDynamicAxis == m*"
    rows = [line.split() for line in lines[2:]]
    by_op = {r[0]: r for r in rows}
    assert set(by_op) == {"Plus", "Times", "Input", "Parameter", "Constant"}
    # unnamed nodes are lettered in the order met: Plus 'a', its inputs 'prod', 'b', output 'c'
    assert lines[2].split()[:2] == ["Plus", "a"]
    assert "(prod:[b*,m*](3,), b:(3,)) -> (c:[b*,m*](3,))" in lines[2]
    assert "(x:[b*,m*](2,), W:(2, 3)) -> (prod:[b*,m*](3,))" in lines[3]
    assert by_op["Input"][1:] == ["x", x.uid, "[b*,m*](2,)"]
    assert by_op["Parameter"][1:] == ["W", "(2,", "3)"]
    assert lines[2].startswith("  Plus" + " " * 16 + " a" + " " * 29 + " (")


def test_dump_function_looks_into_blocks(capsys):
    x = C.input_variable(3, name='x')
    model = C.layers.Dense(2, activation=C.relu, name='dense')(x)
    dump_function(model)
    ops = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert ops[0] == "Dense" and "ReLU" in ops and "Times" in ops and ops.count("Parameter") == 2
