"""dump_signature / dump_function print the signature and one line per node."""
import cntk as C
from cntk.debugging import dump_function, dump_signature


def test_dump_signature_prints_str_of_the_function(capsys):
    f = C.plus(C.input_variable(2, name='x'), 1.0, name='out')
    dump_signature(f)
    assert capsys.readouterr().out == str(f) + "\n"


def test_dump_function_lists_every_node_with_types(capsys):
    # CNTK 2.7's dump of this graph, character for character (the input's uid aside): a Function's outputs are
    # lettered before its inputs, the first invented axis letter counts the batch axis named before it ('n*'),
    # and a leaf's type stands after CNTK's empty inputs column
    x = C.sequence.input_variable(2, name='x')
    w = C.parameter((2, 3), init=1.0, name='W')
    f = C.times(x, w, name='prod')
    f = C.plus(f, C.constant(0.5, shape=(3,)))
    dump_function(f)
    assert capsys.readouterr().out == (
        'Composite(x: Sequence[Tensor[2]]) -> Sequence[Tensor[3]]\n'
        '  Axis defaultDynamicAxis == n*\n'
        '  Plus                 a                              (prod:[b*,n*](3,), c:(3,)) -> (b:[b*,n*](3,))\n'
        '  Times                prod                           (x:[b*,n*](2,), W:(2, 3)) -> (prod:[b*,n*](3,))\n'
        '  Input                ' + '{:30}'.format('x ' + x.uid) + '  [b*,n*](2,)\n'
        '  Parameter            W                               (2, 3)\n'
        '  Constant             c                               (3,)\n')


def test_dump_function_names_the_unknown_axes_before_inventing_letters(capsys):
    # CNTK 2.7 (its end-to-end layers_test): the placeholder's unknown axes '?' count too
    r = C.layers.Recurrence(C.plus)
    dump_function(r)
    out = capsys.readouterr().out
    placeholder = [line for line in out.splitlines() if line.startswith("  Placeholder")][0]
    assert placeholder == "  Placeholder          " + "{:30}".format("x " + placeholder.split()[2]) + "  [?](-2,)"
    assert "  Constant             f                               (1,)" in out.splitlines()


def test_dump_function_looks_into_blocks(capsys):
    x = C.input_variable(3, name='x')
    model = C.layers.Dense(2, activation=C.relu, name='dense')(x)
    dump_function(model)
    ops = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert ops[0] == "Dense" and "ReLU" in ops and "Times" in ops and ops.count("Parameter") == 2
