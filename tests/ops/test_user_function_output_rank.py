"""What a UserFunction's forward may return for an output with a batch axis (found with CNTK's Faster R-CNN
example, whose anchor target layer declares outputs of shape (1, A, H, W) and returns arrays of exactly that
shape). Checked against CNTK 2.7: data of the output's static rank is one sample (a batch axis of 1 is put in
front, whatever the input's batch size); data of a smaller rank is refused with CNTK's ValueError."""
import numpy as np
import pytest

import cntk as C
from cntk.ops.functions import UserFunction


class _Fixed(UserFunction):
    def __init__(self, arg, mode, name='Fixed'):
        super(_Fixed, self).__init__([arg], name=name)
        self.mode = mode

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable((1, 2, 3), x.dtype, x.dynamic_axes, needs_gradient=False)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        n = argument.shape[0]
        if self.mode == 'static':
            return None, np.arange(6, dtype=np.float32).reshape(1, 2, 3)
        if self.mode == 'batch':
            return None, np.arange(6 * n, dtype=np.float32).reshape(n, 1, 2, 3)
        return None, np.arange(6 * n, dtype=np.float32).reshape(n, 6)

    def backward(self, state, root_gradients):
        return None


def _run(mode, n):
    x = C.input_variable(4)
    u = C.user_function(_Fixed(x, mode))
    data = np.ones((n, 4), np.float32)
    return C.reduce_sum(u).eval({x: data}), u.eval({x: data})


@pytest.mark.parametrize("n", [1, 2])
def test_an_output_of_the_static_rank_is_one_sample(n):
    total, out = _run('static', n)
    assert total.shape == (1,) and total[0] == 15.0
    assert out.shape == (1, 1, 2, 3)


def test_an_output_with_the_batch_axis_is_taken_as_it_is():
    total, out = _run('batch', 2)
    np.testing.assert_array_equal(total, [15.0, 51.0])
    assert out.shape == (2, 1, 2, 3)


def test_an_output_of_a_smaller_rank_is_refused():
    with pytest.raises(ValueError, match=r"^Value's rank \(2\) should be >= the Variable's rank \(3\); "
                                         r"Variable = 'Output\('.*', \[#\], \[1 x 2 x 3\]\)', Value shape = "
                                         r"'\[2 x 6\]'\.$"):
        _run('flat', 2)


class _SequenceOut(UserFunction):
    def __init__(self, arg, mode, name='SequenceOut'):
        super(_SequenceOut, self).__init__([arg], name=name)
        self.mode = mode

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable((2,), x.dtype, x.dynamic_axes, needs_gradient=False)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        if self.mode == 'static':
            return None, np.arange(2, dtype=np.float32)
        return None, np.arange(6, dtype=np.float32).reshape(3, 2)

    def backward(self, state, root_gradients):
        return None


@pytest.mark.parametrize("mode, shapes", [('static', [(1, 2)]), ('steps', [(3, 2)])])
def test_a_sequence_output_without_its_batch_axis_is_one_sequence(mode, shapes):
    # CNTK 2.7: (2,) is one sequence of one step, (3, 2) one sequence of three steps
    x = C.sequence.input_variable(4)
    out = C.user_function(_SequenceOut(x, mode)).eval({x: [np.ones((3, 4), np.float32)]})
    assert [np.shape(a) for a in out] == shapes
