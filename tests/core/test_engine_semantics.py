"""Engine contracts: constants copy their value, assign's deferred write, eval/grad return forms."""
import numpy as np
import scipy.sparse

import cntk as C


def test_constant_and_parameter_copy_their_initial_array():
    data = np.ones((3, 2), np.float32)
    c, p = C.constant(data), C.parameter(init=data)
    data.shape = (1, 3, 2)
    data[...] = 5
    np.testing.assert_array_equal(c.asarray(), np.ones((3, 2)))
    np.testing.assert_array_equal(p.asarray(), np.ones((3, 2)))


def test_assign_writes_on_eval_and_on_backward_after_a_training_forward():
    data = np.array([[1.0, 2.0]], np.float32)
    dest = C.parameter(shape=(1, 2))
    op = C.assign(dest, C.parameter(init=data))
    state, fwd = op.forward({}, [op.output], set([op.output]))
    np.testing.assert_array_equal(dest.asarray(), np.zeros((1, 2)))
    grads = op.backward(state, {op.output: np.ones((1, 2), np.float32)}, set([dest]))
    np.testing.assert_array_equal(dest.asarray(), data)
    np.testing.assert_array_equal(grads[dest], np.zeros((1, 2)))


def test_eval_with_one_requested_output_returns_its_value():
    x, y = C.input_variable(1), C.input_variable(1)
    plus = x + 1
    f = C.combine([plus, y - 1])
    np.testing.assert_array_equal(f.eval({x: [np.array([3.0], np.float32)]}, [plus]), [[4.0]])


def test_grad_with_one_output_returns_its_value():
    x = C.input_variable(2, dynamic_axes=[], needs_gradient=True)
    op = x * .01 + 3.0
    g, value = op.grad({x: np.array([.6, -.8], np.float32)}, outputs=[op], wrt=[x])
    np.testing.assert_allclose(value, [3.006, 2.992])
    np.testing.assert_allclose(g, [.01, .01])


def test_sparse_outputs_come_back_as_csr():
    y = C.eye_like(np.zeros((2, 3), np.float32), sparse_output=True).eval()
    assert scipy.sparse.issparse(y)
    np.testing.assert_array_equal(y.todense(), np.eye(2, 3))


def test_backward_accepts_ragged_per_sequence_root_gradients():
    q = C.sequence.input_variable(2, needs_gradient=True)
    y = q * 3
    data = [np.ones((3, 2), np.float32), np.ones((1, 2), np.float32)]
    state, out = y.forward({q: data}, y.outputs, set(y.outputs))
    grads = y.backward(state, {y.output: [np.ones((3, 2)), np.ones((1, 2))]}, set([q]))[q]
    assert [g.shape for g in grads] == [(3, 2), (1, 2)]
    np.testing.assert_array_equal(grads[1], [[3, 3]])


def test_backward_takes_a_bare_array_for_a_single_output():
    param = C.parameter(init=np.ones((4, 2), np.float32))
    r = C.reshape(param, (8, 1))
    state, _ = r.forward({}, [r.output], [r.output])
    np.testing.assert_array_equal(r.backward(state, np.ones((8, 1)), [param])[param], np.ones((4, 2)))


def test_try_set_default_device_says_whether_it_could():
    import torch
    from cntk_compat.core.device import DeviceDescriptor, DeviceKind
    before = C.device.use_default_device()
    missing = DeviceDescriptor(DeviceKind.GPU, torch.cuda.device_count() if torch.cuda.is_available() else 0)
    assert C.device.try_set_default_device(missing) is False
    assert C.device.use_default_device() == before
    assert C.device.try_set_default_device(C.device.cpu()) is True
    assert C.device.use_default_device() == C.device.cpu()
    C.device.try_set_default_device(before)


def test_sequence_outputs_are_lists_of_sequences_even_of_equal_length():
    # CNTK 2.7 returns one array per sequence for a sequence output, whatever the lengths (and for dense input)
    x = C.sequence.input_variable(2, needs_gradient=True)
    y = x * 2
    out = y.eval({x: np.ones((2, 3, 2), np.float32)})
    assert isinstance(out, list) and [o.shape for o in out] == [(3, 2), (3, 2)]
    assert np.array_equal(out[1], np.full((3, 2), 2.))
    grad = y.grad({x: [np.ones((3, 2), np.float32)] * 2}, wrt=[x])
    assert isinstance(grad, list) and len(grad) == 2
    last = C.sequence.last(y).eval({x: np.ones((2, 3, 2), np.float32)})
    assert isinstance(last, np.ndarray) and last.shape == (2, 2)


def test_forward_keeps_extra_outputs_for_backward():
    x = C.input_variable(2, needs_gradient=True)
    h = x * 3
    y = h + 1
    state, out = y.forward({x: np.ones((1, 2), np.float32)}, keep_for_backward=[h.output])
    assert np.array_equal(out[y.output], [[4., 4.]])
    assert np.array_equal(y.backward(state, {y.output: np.ones((1, 2), np.float32)}, [x])[x], [[3., 3.]])
