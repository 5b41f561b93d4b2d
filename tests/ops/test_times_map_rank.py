"""times' infer_input_rank_to_map must be below the left operand's rank, whatever the right operand (CNTK 2.7's
ValueError, also for a Dense layer's map_rank); shapes from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("right", [lambda: C.constant(np.ones((5, 4), np.float32)),
                                   lambda: C.parameter((C.InferredDimension, 4))])
@pytest.mark.parametrize("rank", [1, 2])
def test_a_map_rank_not_below_the_operands_rank_is_refused(right, rank, capfd):
    x = C.input_variable(5)
    with pytest.raises(ValueError, match=r"Times: Input map rank \(%d\) must be < rank \(1\) of the left operand "
                                         r"'Input\('Input\d+', \[#\], \[5\]\)'" % rank):
        C.times(x, right(), infer_input_rank_to_map=rank)
    assert "About to throw exception 'Times: Input map rank" in capfd.readouterr().err


def test_map_ranks_below_the_operands_rank():
    x = C.input_variable((2, 3))
    assert C.times(x, C.parameter((C.InferredDimension, 4)), infer_input_rank_to_map=0).shape == (4,)
    assert C.times(x, C.parameter((C.InferredDimension, 4)), infer_input_rank_to_map=1).shape == (2, 4)
    with pytest.raises(ValueError, match=r"Input map rank \(2\) must be < rank \(2\)"):
        C.times(x, C.parameter((C.InferredDimension, 4)), infer_input_rank_to_map=2)


@pytest.mark.parametrize("seq", [False, True])
def test_dense_map_rank_over_an_input_of_that_rank(seq):
    x = C.sequence.input_variable(5) if seq else C.input_variable(5)
    with pytest.raises(ValueError, match=r"Input map rank \(1\) must be < rank \(1\)"):
        C.layers.Dense(4, map_rank=1)(x)
    assert C.layers.Dense((2, 3), map_rank=1)(C.input_variable((3, 4))).shape == (3, 2, 3)


def test_reducing_more_axes_than_the_operand_has_is_announced(capfd):
    with pytest.raises(RuntimeError, match=r"rank \(1\) must be >= #axes \(2\) being reduced over"):
        C.layers.Dense(4, input_rank=2)(C.input_variable(5))
    assert "About to throw exception 'Times: The left operand" in capfd.readouterr().err
