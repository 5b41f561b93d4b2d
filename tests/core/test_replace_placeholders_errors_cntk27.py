"""replace_placeholders refuses what CNTK 2.7 refuses (session 20 sweep, CNTK 2.7's words): a substitution map
that is not a dict (TypeError), a placeholder that is not in the Function (ValueError naming both)."""
import pytest

import cntk as C


def test_a_substitution_map_must_be_a_dict():
    p = C.placeholder(name='p3')
    f = p * 3
    with pytest.raises(TypeError, match="^Variable substitution map must be a dictionary$"):
        f.replace_placeholders([C.input_variable(1)])


def test_a_placeholder_not_in_the_function_is_refused():
    p = C.placeholder(name='p3')
    f = p * 3
    stranger = C.placeholder(name='other')
    with pytest.raises(ValueError, match=r"^Placeholder 'Placeholder\('other', \[\?\?\?\], \[\?\?\?\]\)' specified for "
                                         r"replacement not found in the Function 'Composite\(ElementTimes\)"):
        f.replace_placeholders({stranger: C.input_variable(1)})
    assert f.placeholders == (p,)   # nothing was replaced
    x = C.input_variable(2, name='x')
    f.replace_placeholders({p: x})
    assert f.arguments == (x,)


def test_a_placeholder_below_a_primitive_is_found():
    """Layers close their recurrences through an output's owner (a primitive): its placeholder lies below it."""
    p = C.placeholder(name='deep')
    g = C.tanh(C.plus(p, 1))
    owner = g.output.owner
    x = C.input_variable(2, name='x')
    owner.replace_placeholders({p: x})
    assert g.arguments == (x,)
