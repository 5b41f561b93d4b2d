"""crop_manual refuses what CNTK 2.7 refuses, of the same type and at the same moment: offsets that are not size_t
(SWIG's NotImplementedError, at once), operands of different ranks or of rank 1 and operands on different dynamic
axes (RuntimeError, at once), and a window reaching past the input (RuntimeError when the graph is evaluated: CNTK
builds it, and validates it then; with free dimensions, on the data's sizes)."""
import numpy as np
import pytest

import cntk as C


def _feed(*pairs):
    return {v: np.zeros((1,) + shape, np.float32) for v, shape in pairs}


@pytest.mark.parametrize("offset", [-1, 1.5, np.int64(1), "1"])
def test_offsets_that_are_not_size_t_are_refused_by_the_overload(offset):
    x, ref = C.input_variable((1, 4, 4)), C.input_variable((1, 2, 2))
    with pytest.raises(NotImplementedError, match="offset_x"):
        C.crop_manual(x, ref, offset, 0)
    with pytest.raises(NotImplementedError, match="offset_y"):
        C.crop_manual(x, ref, 0, offset)
    assert C.crop_manual(x, ref, True, 0).shape == (1, 2, 2)    # a bool is an int to SWIG


@pytest.mark.parametrize("offsets, axis", [((3, 3), "x"), ((0, 5), "y"), ((5, 0), "x"), ((3, 0), "x"),
                                           ((0, 3), "y")])
def test_a_window_past_the_input_is_built_and_refused_at_evaluation(offsets, axis, capfd):
    x, ref = C.input_variable((1, 4, 4)), C.input_variable((1, 2, 2))
    f = C.crop_manual(x, ref, *offsets)
    assert f.shape == (1, 2, 2)
    g = f + 1   # composing on it, saving and cloning it work too
    assert g.clone(C.CloneMethod.share).shape == (1, 2, 2)
    with pytest.raises(RuntimeError, match="Input is small to be cropped along %s dimension in crop node" % axis) \
            as e:
        g.eval(_feed((x, (1, 4, 4)), (ref, (1, 2, 2))))
    assert type(e.value) is RuntimeError and "crop '%s'" % f.root_function.uid in str(e.value)
    assert "About to throw exception 'Input is small to be cropped along %s dimension" % axis in capfd.readouterr().err


def test_a_referent_larger_than_the_input_is_refused_at_evaluation():
    x, ref = C.input_variable((1, 4, 4)), C.input_variable((1, 5, 5), name="big")
    f = C.crop_manual(x, ref, 0, 0, name="c")
    assert f.shape == (1, 5, 5)
    with pytest.raises(RuntimeError, match="along x dimension(.|\n)*crop 'c' takes 5 elements from offset 0"):
        f.eval(_feed((x, (1, 4, 4)), (ref, (1, 5, 5))))


def test_free_dimensions_are_checked_on_the_data():
    x, ref = C.input_variable((1, C.FreeDimension, C.FreeDimension)), C.input_variable((1, 2, 2))
    data = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    assert C.crop_manual(x, ref, 1, 1).eval({x: data, ref: np.zeros((1, 1, 2, 2), np.float32)}).tolist() == \
        [[[[5.0, 6.0], [9.0, 10.0]]]]
    with pytest.raises(RuntimeError, match="along x dimension"):
        C.crop_manual(x, ref, 3, 3).eval({x: data, ref: np.zeros((1, 1, 2, 2), np.float32)})


def test_rank_two_inputs_crop_their_two_axes():
    x, ref = C.input_variable((4, 5)), C.input_variable((2, 3))
    data = np.arange(20, dtype=np.float32).reshape(1, 4, 5)
    assert C.crop_manual(x, ref, 1, 2).eval({x: data, ref: np.zeros((1, 2, 3), np.float32)}).tolist() == \
        [[[11.0, 12.0, 13.0], [16.0, 17.0, 18.0]]]
    with pytest.raises(RuntimeError, match="along x dimension"):
        C.crop_manual(x, ref, 3, 2).eval({x: data, ref: np.zeros((1, 2, 3), np.float32)})


@pytest.mark.parametrize("in_shape, ref_shape, message", [
    ((1, 4, 4), (2,), "and reference input 'Input\\('r', \\[#\\], \\[2\\]\\)' have different ranks"),
    ((4,), (1, 2, 2), "have different ranks"),
    ((4, 4), (1, 2, 2), "have different ranks"),
    ((4,), (2,), "cropped input 'Input\\('x', \\[#\\], \\[4\\]\\)' must have rank at least 2"),
])
def test_ranks_are_refused_while_building(in_shape, ref_shape, message):
    x, ref = C.input_variable(in_shape, name="x"), C.input_variable(ref_shape, name="r")
    with pytest.raises(RuntimeError, match="Function 'Crop: Input\\('x'.*-> Unknown': .*" + message) as e:
        C.crop_manual(x, ref, 0, 0)
    assert type(e.value) is RuntimeError


def test_operands_on_different_dynamic_axes_are_refused_while_building():
    x, ref = C.sequence.input_variable((1, 4, 4)), C.input_variable((1, 2, 2), name="r")
    with pytest.raises(RuntimeError, match="Operation 'Crop': Operand 'Input\\('r', \\[#\\], \\[1 x 2 x 2\\]\\)' "
                                           "has dynamic axes, that do not match the dynamic axes '\\[#, \\*\\]'"):
        C.crop_manual(x, ref, 0, 0)
