"""as_composite of a Function that is already a composite returns it itself (same uid, its name kept, a name
given ignored), as CNTK 2.7 does; of a primitive, a new composite named by the name given."""
import cntk as C


def test_as_composite_of_a_composite_is_itself():
    x = C.input_variable(3, name='x')
    f = C.exp(x, name='nm')
    g = C.as_composite(f, name='zz')
    assert g.uid == f.uid and g.name == 'nm'
    c = C.combine([f, C.sin(x)], name='cc')
    assert C.as_composite(c).uid == c.uid and C.as_composite(c).name == 'cc'
    d = C.combine([f, C.sin(x)])
    assert C.as_composite(d, name='q').name == ''


def test_as_composite_of_a_primitive_is_a_new_composite():
    x = C.input_variable(3, name='x')
    f = C.exp(x, name='nm')
    h = C.as_composite(f.root_function, name='zz')
    assert h.name == 'zz' and h.uid != f.uid and h.root_function.uid == f.root_function.uid
    assert h.root_function.name == 'nm'
    c = C.combine([f, C.sin(x)], name='cc')
    assert C.as_composite(c.root_function).name == '' and C.as_composite(c.root_function, 'r').name == 'r'
