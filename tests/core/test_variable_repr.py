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


def test_functions_repr_as_cntk_function_as_string():
    # CNTK 2.7: repr() is Function::AsString, str() the signature
    x = C.input_variable(3, name='x')
    f = C.plus(x, x, name='p')
    assert repr(f) == "Composite(Plus): Input('x', [#], [3]) -> Output('p', [#], [3])"
    assert str(f) == "p: Plus(x: Tensor[3]) -> Tensor[3]"
    assert repr(f.root_function) == "Plus: Input('x', [#], [3]) -> Output('p', [#], [3])"
    d = C.layers.Dense(2, name='dd')(x)
    assert repr(d) == "Composite(Dense): Input('x', [#], [3]) -> Output('dd', [#], [2])"
    assert repr(d.root_function) == "Dense: Input('x', [#], [3]) -> Output('dd', [#], [2])"
    m = C.combine([f, C.times(x, C.parameter((3, 2)), name='t')])
    assert repr(m) == "Composite(Combine): Input('x', [#], [3]) -> Output('p', [#], [3]), Output('t', [#], [2])"
    u = C.layers.Dense(2, name='u')
    assert repr(u).startswith("Composite(Dense): Placeholder(") and repr(u).endswith(", [???], [???])")
    c = C.element_times(C.constant(2.0), 3, name='c')
    assert repr(c) == "Composite(ElementTimes):  -> Output('c', [], [])"


def test_a_placeholder_given_a_name_as_its_shape_has_one_inferred_dimension():
    # C.placeholder("state") passes the name as the shape; CNTK 2.7 makes an unnamed placeholder of shape [?]
    p = C.placeholder("state")
    assert p.shape == (C.InferredDimension,) and p.name == '' and repr(p).endswith("[???], [?])")
    z = C.abs(C.sequence.past_value(p))
    z = z.replace_placeholders({p: z.output})
    # a primitive's arguments are its own inputs that are not parameters or constants: here the loop's output
    assert [(a.name, a.is_output) for a in z.output.owner.arguments] == [('', True)]    # CNTK 2.7's
