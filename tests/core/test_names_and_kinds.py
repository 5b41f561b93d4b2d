"""Names CNTK 2.7 gives: as_composite's composite name, new_unique_dynamic_axis, the placeholders of a cloned
block; Variable.kind() (expected values from CNTK 2.7)."""
import cntk as C


def test_as_composite_names_the_composite_not_its_root():
    x = C.input_variable(3, name='x')
    f = C.relu(x, name='r1')
    g = C.as_composite(f.root_function, 'comp')
    assert (g.name, g.root_function.name, f.name) == ('comp', 'r1', 'r1')
    assert g.root_function.uid == f.root_function.uid
    assert g.clone(C.CloneMethod.share).name == 'comp'
    assert C.as_composite(f.root_function).name == ''


def test_new_unique_dynamic_axis_names():
    C.Axis('zzq')
    names = [C.Axis.new_unique_dynamic_axis(n).name for n in ('zzq', 'defaultDynamicAxis', 'qq', 'qq', 'qq1', 'qq')]
    assert names == ['zzq1', 'defaultDynamicAxis1', 'qq', 'qq1', 'qq11', 'qq2']
    C.sequence.input_variable(2, sequence_axis=C.Axis('ss2'))
    assert C.Axis.new_unique_dynamic_axis('ss2').name == 'ss21'


def test_cloned_block_placeholders_take_the_argument_names():
    x = C.input_variable(3, name='x')
    d = C.layers.Dense(4, activation=C.relu, name='hidden')
    assert [(k.name, v.name) for k, v in d.root_function.block_arguments_mapping] == [('x', 'x')]
    h = d(x)
    z = C.layers.Dense(2, name='out')(h)
    assert [(k.name, v.name) for k, v in z.root_function.block_arguments_mapping] == [('hidden', 'hidden')]
    u = C.layers.Dense(2, name='out')(C.relu(x))
    assert [(k.name, v.name) for k, v in u.root_function.block_arguments_mapping] == [('', '')]
    assert [a.name for a in u.root_function.block_root.arguments] == ['']
    a = C.placeholder(shape=(3,), name='pa')
    blk = C.as_block(C.relu(a) + 1, [(a, x)], 'MyBlock', 'myblk')
    assert [(k.name, v.name) for k, v in blk.root_function.block_arguments_mapping] == [('x', 'x')]  # CNTK 2.7 renames it
    b2 = blk.clone(C.CloneMethod.share, {x: C.input_variable(3, name='yy')})
    assert [(k.name, v.name) for k, v in b2.root_function.block_arguments_mapping] == [('yy', 'yy')]


def test_variable_kind_is_cntks_int():
    x = C.input_variable(2)
    f = C.relu(x)
    assert (x.kind(), f.output.kind(), C.parameter(2).kind(), C.constant(1).kind(), C.placeholder().kind()) == \
        (0, 1, 2, 3, 4)
    assert (C.cntk_py.VariableKind_Input, C.cntk_py.VariableKind_Output, C.cntk_py.VariableKind_Parameter,
            C.cntk_py.VariableKind_Constant, C.cntk_py.VariableKind_Placeholder) == (0, 1, 2, 3, 4)


def test_uids_count_from_where_cntk_starts():
    # CNTK 2.7 in a fresh process prints 'Input3 Plus4 CompositeFunction5': its import makes cntk.layers.identity
    # with uids 0-2, and an @Function whose body returns a Function is that Function (no further Combine)
    import subprocess
    import sys
    code = ("import cntk as C\n"
            "x = C.input_variable(2)\n"
            "f = x + x\n"
            "print(x.uid, f.root_function.uid, f.uid)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[0] == "Input3 Plus4 CompositeFunction5"
    body = []
    g = C.Function(lambda a: body.append(C.plus(a, a)) or body[0])
    assert g.uid == body[0].uid and g.root_function is body[0].root_function
