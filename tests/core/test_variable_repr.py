"""Variables print as CNTK prints them: kind, name (else uid), dynamic axes, static shape."""
import cntk as C


def test_inputs_parameters_constants_and_outputs_print_as_in_cntk():
    x = C.sequence.input_variable((2, 3), name='x')
    assert repr(x) == "Input('x', [#, *], [2 x 3])"
    assert str(C.input_variable(4, name='features')) == "Input('features', [#], [4])"
    assert repr(C.parameter((2,), name='p')) == "Parameter('p', [], [2])"
    assert repr(C.constant(3.0, name='c')) == "Constant('c', [], [])"
    assert repr(C.parameter((C.InferredDimension, 3), name='w')) == "Parameter('w', [], [? x 3])"
    assert repr(C.placeholder(name='ph')) == "Placeholder('ph', [???], [???])"
    y = C.sequence.input_variable(2, sequence_axis=C.Axis('words'), name='y')
    assert repr(y) == "Input('y', [#, words], [2])"
    z = C.times(x, C.parameter((3, 5)), name='z')
    assert repr(z.output) == "Output('z', [#, *], [2 x 5])"
    unnamed = C.input_variable(1)
    assert repr(unnamed) == "Input('%s', [#], [1])" % unnamed.uid
