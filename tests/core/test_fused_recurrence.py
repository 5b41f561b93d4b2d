"""Recurrences that are an LSTM run on torch's fused kernel, and those that are CNTK's GRU on core.fused_gru; they
must give the step loop's values and gradients, and everything the fused forms cannot express must fall back to
the step loop with the same results."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk_compat.core.engine import call_plan, evaluate_tensors
from cntk_compat.core.fused_gru import FusedGRU
from cntk_compat.core.fused_recurrence import FusedRNN, FusedStack, use_fused_kernels
from tests._tolerance import float32_tolerance


def _fused_modules(f, kinds=(FusedRNN, FusedGRU)):
    plan = call_plan(f.outputs)
    return [m for module in plan.modules.values() for m in module.modules() if isinstance(m, kinds)]


def _run(f, x, data, params, weights):
    """(output over the valid steps, gradients of a weighted sum of it wrt params and the input)."""
    for p in params:
        p.tensor.grad = None
    (out,), info = evaluate_tensors(f.outputs, {x: data}, requires_grad=True, training=True)
    lengths = info.lengths_by_axis[x._sequence_axis.name]
    valid = torch.arange(out.shape[1], device=out.device)[None, :] < torch.as_tensor(lengths, device=out.device)[:, None]
    picked = out[valid]
    grads = torch.autograd.grad((picked * weights[:picked.shape[0]].to(out.device)).sum(), [p.tensor for p in params])
    return picked.detach().cpu().numpy(), [g.cpu().numpy() for g in grads]


def _compare(f, x, data, dtype, expect_fused):
    params = f.parameters
    rng = np.random.default_rng(1)
    weights = torch.as_tensor(rng.standard_normal((400, f.output.shape[-1])), dtype=torch.float64 if
                              dtype == np.float64 else torch.float32)
    fused_out, fused_grads = _run(f, x, data, params, weights)
    assert bool(_fused_modules(f)) == expect_fused
    with use_fused_kernels(False):
        loop_out, loop_grads = _run(f, x, data, params, weights)
    tol = 1e-10 if dtype == np.float64 else float32_tolerance(1e-5)
    np.testing.assert_allclose(fused_out, loop_out, rtol=tol, atol=tol)
    for a, b in zip(fused_grads, loop_grads):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _assert_float32_close(got, expected):
    """(values, gradients) pairs of two float32 runs agree to 1e-5 (cuDNN's tolerance on a GPU)."""
    tol = float32_tolerance(1e-5), float32_tolerance(1e-6)
    np.testing.assert_allclose(got[0], expected[0], rtol=tol[0], atol=tol[1])
    for a, b in zip(got[1], expected[1]):
        np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1])


def _eval_fused_equals_step_loop(f, feed):
    out = f.eval(feed)
    assert _fused_modules(f)
    with use_fused_kernels(False):
        ref = f.eval(feed)
    tol = float32_tolerance(1e-5), float32_tolerance(1e-6)
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1])


def _data(rng, lengths, dim, dtype):
    return [rng.standard_normal((n, dim)).astype(dtype) for n in lengths]


@pytest.mark.parametrize("go_backwards", [False, True])
def test_lstm_layer_fused_equals_step_loop(go_backwards):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Recurrence(C.layers.LSTM(4), go_backwards=go_backwards, initial_state=0.5)(x)
    _compare(f, x, _data(rng, [1, 7, 3, 7, 2], 3, np.float32), np.float32, True)
    _compare(f, x, _data(rng, [4, 4, 4], 3, np.float32), np.float32, True)  # equal lengths: the unpacked path


def _hand_written_lstm(x, d, dtype, go_backwards):
    """CNTK's LSTM cell written with the graph API (no layer, no block), terms in another order."""
    W = C.parameter((x.shape[0], 4 * d), init=C.glorot_uniform(), dtype=dtype)
    H = C.parameter((d, 4 * d), init=C.glorot_uniform(), dtype=dtype)
    b = C.parameter(4 * d, init=0.1, dtype=dtype)
    delay = C.sequence.future_value if go_backwards else C.sequence.past_value
    h_fwd, c_fwd = C.placeholder(), C.placeholder()
    h_prev, c_prev = delay(h_fwd), delay(c_fwd)
    gates = C.times(h_prev, H) + b + C.times(x, W)
    i, g, f_, o = (C.slice(gates, 0, k * d, (k + 1) * d) for k in range(4))
    c = C.sigmoid(i) * C.tanh(g) + c_prev * C.sigmoid(f_)
    h = C.tanh(c) * C.sigmoid(o)
    h.replace_placeholders({h_fwd: h.output, c_fwd: c.output})
    return C.combine([h])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_hand_written_lstm_cell_is_recognized_by_its_math(dtype, go_backwards):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3, dtype=dtype)
    f = _hand_written_lstm(x, 5, dtype, go_backwards)
    _compare(f, x, _data(rng, [2, 6, 1, 6], 3, dtype), dtype, True)
    _compare(f, x, _data(rng, [3, 3], 3, dtype), dtype, True)


def test_stacked_layers_fuse_layer_by_layer_and_per_sequence_initial_state():
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(4)), C.layers.Recurrence(C.layers.LSTM(6))])(x)
    _compare(f, x, _data(rng, [3, 5], 3, np.float32), np.float32, True)
    assert len(_fused_modules(f)) == 2
    init = C.input_variable(4)
    g = C.layers.RecurrenceFrom(C.layers.LSTM(4))(init, init, x)
    data = _data(rng, [3, 5], 3, np.float32)
    starts = rng.standard_normal((2, 4)).astype(np.float32)
    _eval_fused_equals_step_loop(g, {x: data, init: starts})


@pytest.mark.parametrize("make", [
    lambda: C.layers.Recurrence(C.layers.LSTM(4, use_peepholes=True)),             # peepholes
    lambda: C.layers.Recurrence(C.layers.RNNStep(4)),                              # not an LSTM
    lambda: C.layers.Recurrence(C.layers.LSTM(4, cell_shape=6)),                   # a projection
    lambda: C.layers.Recurrence(C.layers.LSTM(4, activation=C.relu)),              # another activation
    lambda: C.layers.Recurrence(C.layers.GRU(4, activation=C.relu)),               # GRU, another activation
    lambda: C.layers.Recurrence(C.layers.GRU(4, enable_self_stabilization=True)),  # GRU, stabilized
])
def test_what_the_kernel_cannot_express_falls_back_with_equal_results(make):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    _compare(make()(x), x, _data(rng, [2, 5, 1], 3, np.float32), np.float32, False)


def test_return_full_state_falls_back_because_c_is_read_outside_the_loop():
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Recurrence(C.layers.LSTM(4), return_full_state=True)(x)
    data = _data(rng, [2, 5], 3, np.float32)
    h, c = f.eval({x: data}).values()
    assert not _fused_modules(f)
    assert len(h) == 2 and len(c) == 2


@pytest.mark.parametrize("go_backwards", [False, True])
def test_fold_over_an_lstm_is_fused(go_backwards):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Fold(C.layers.LSTM(4), go_backwards=go_backwards)(x)
    data = _data(rng, [3, 1, 6], 3, np.float32)
    out = f.eval({x: data})
    assert _fused_modules(f)
    with use_fused_kernels(False):
        ref = f.eval({x: data})
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("go_backwards", [False, True])
def test_gru_layer_fused_equals_step_loop(go_backwards):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Recurrence(C.layers.GRU(5), go_backwards=go_backwards, initial_state=0.3)(x)
    _compare(f, x, _data(rng, [1, 7, 3, 7, 2, 5], 3, np.float32), np.float32, True)
    assert _fused_modules(f, FusedGRU)
    _compare(f, x, _data(rng, [4, 4, 4], 3, np.float32), np.float32, True)


def _hand_written_gru(x, d, dtype, go_backwards):
    """CNTK's GRU written with the graph API, sums and products in another order than layers.GRU, the input
    projection x·W + b computed outside the loop (layers.GRU computes it inside its block)."""
    W = C.parameter((x.shape[0], 3 * d), init=C.glorot_uniform(), dtype=dtype)
    b = C.parameter(3 * d, init=0.1, dtype=dtype)
    H = C.parameter((d, 2 * d), init=C.glorot_uniform(), dtype=dtype)
    H1 = C.parameter((d, d), init=C.glorot_uniform(), dtype=dtype)
    delay = C.sequence.future_value if go_backwards else C.sequence.past_value
    h_fwd = C.placeholder()
    h_prev = delay(h_fwd)
    X = C.times(x, W) + b
    Y = C.times(h_prev, H)
    z = C.sigmoid(C.slice(Y, 0, 0, d) + C.slice(X, 0, 0, d))
    r = C.sigmoid(C.slice(X, 0, d, 2 * d) + C.slice(Y, 0, d, 2 * d))
    candidate = C.tanh(C.times(r * h_prev, H1) + C.slice(X, 0, 2 * d, 3 * d))
    h = h_prev * z + candidate * (1 - z)
    h.replace_placeholders({h_fwd: h.output})
    return C.combine([h])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_hand_written_gru_cell_is_recognized_by_its_math(dtype, go_backwards):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3, dtype=dtype)
    f = _hand_written_gru(x, 4, dtype, go_backwards)
    _compare(f, x, _data(rng, list(range(1, 9)), 3, dtype), dtype, True)
    _compare(f, x, _data(rng, [3, 3], 3, dtype), dtype, True)


def test_stacked_grus_fuse_layer_by_layer_and_per_sequence_initial_state():
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Sequential([C.layers.Recurrence(C.layers.GRU(4)),
                             C.layers.Recurrence(C.layers.GRU(6), go_backwards=True)])(x)
    _compare(f, x, _data(rng, [3, 5, 1], 3, np.float32), np.float32, True)
    assert len(_fused_modules(f, FusedGRU)) == 2
    init = C.input_variable(4, needs_gradient=True)
    g = C.layers.RecurrenceFrom(C.layers.GRU(4))(init, x)
    data = _data(rng, [3, 5], 3, np.float32)
    starts = rng.standard_normal((2, 4)).astype(np.float32)
    for p in g.parameters:
        p.tensor.grad = None
    out = g.grad({x: data, init: starts}, wrt=[init] + list(g.parameters), outputs=[g.output])
    g.eval({x: data, init: starts})
    assert _fused_modules(g, FusedGRU)
    with use_fused_kernels(False):
        ref = g.grad({x: data, init: starts}, wrt=[init] + list(g.parameters), outputs=[g.output])
    for k in out[0]:
        np.testing.assert_allclose(out[0][k], ref[0][k], rtol=1e-5, atol=1e-6)
    for a, b in zip(out[1], ref[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("activation", [C.tanh, C.relu])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_rnn_step_with_tanh_or_relu_runs_on_torchs_rnn_kernel(dtype, activation, go_backwards):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3, dtype=dtype)
    with C.default_options(dtype=dtype):
        f = C.layers.Recurrence(C.layers.RNNStep(5, activation=activation, init_bias=0.1),
                                go_backwards=go_backwards, initial_state=0.2)(x)
    _compare(f, x, _data(rng, [1, 6, 3, 6, 2], 3, dtype), dtype, True)
    assert [m.mode for m in _fused_modules(f)] == ["rnn_" + activation.__name__]
    _compare(f, x, _data(rng, [4, 4], 3, dtype), dtype, True)


def _assert_sequences_close(a, b, tol):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, rtol=tol, atol=tol)


def test_inference_reuses_the_relaid_out_weights_only_while_the_parameters_are_unchanged():
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    y = C.sequence.input_variable(4)
    f = C.layers.Recurrence(C.layers.LSTM(4))(x)
    data = _data(rng, [2, 5, 3], 3, np.float32)
    first = f.eval({x: data})
    (module,) = _fused_modules(f)
    assert len(module._layout_cache) == 2  # W and H, kept for the next call without gradients
    held = [entry[2] for entry in module._layout_cache.values()]
    _assert_sequences_close(f.eval({x: data}), first, 0)
    assert all(a is b for a, b in zip([entry[2] for entry in module._layout_cache.values()], held))  # reused
    # a new value (set_value) and a learner's in-place update must both be seen by the next eval
    W = [p for p in f.parameters if p.name == "W"][0]
    W.value = W.value * 0.5
    changed = f.eval({x: data})
    with use_fused_kernels(False):
        _assert_sequences_close(changed, f.eval({x: data}), 1e-5)
    assert not np.allclose(changed[1], first[1])
    loss = C.squared_error(f, y)
    trainer = C.Trainer(f, (loss, None), [C.sgd(f.parameters, C.learning_parameter_schedule(0.5))])
    trainer.train_minibatch({x: data, y: _data(rng, [2, 5, 3], 4, np.float32)})
    trained = f.eval({x: data})
    with use_fused_kernels(False):
        _assert_sequences_close(trained, f.eval({x: data}), 1e-5)
    assert not np.allclose(trained[1], changed[1])


def _lstm_classifier_trainer(seed_values=None):
    x = C.sequence.input_variable(3)
    y = C.input_variable(2)
    z = C.layers.Dense(2)(C.sequence.last(C.layers.Recurrence(C.layers.LSTM(4))(x)))
    if seed_values is not None:
        for p, v in zip(z.parameters, seed_values):
            p.value = v
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)),
                        [C.adam(z.parameters, C.learning_parameter_schedule(0.05), C.momentum_schedule(0.9))])
    return x, y, z, trainer


def test_weights_a_fused_loop_reads_are_stored_transposed_and_train_as_on_the_step_loop():
    rng = np.random.default_rng(0)
    x, y, z, fused_trainer = _lstm_classifier_trainer()
    start = [p.value for p in z.parameters]
    x2, y2, z2, loop_trainer = _lstm_classifier_trainer(start)
    batches = [(_data(rng, [3, 6, 1], 3, np.float32), np.eye(2, dtype=np.float32)[rng.integers(0, 2, 3)])
               for _ in range(3)]
    for data, labels in batches:
        fused_trainer.train_minibatch({x: data, y: labels})
        with use_fused_kernels(False):
            loop_trainer.train_minibatch({x2: data, y2: labels})
    by_name = {p.name: p for p in z.parameters if p.shape == (3, 16) or p.shape == (4, 16)}
    for p in by_name.values():  # W (3, 16) and H (4, 16): the kernel's rows in memory, same shape and values
        assert p.tensor.stride() == (1, p.shape[0]) and tuple(p.tensor.shape) == p.shape
    for p, q in zip(z.parameters, z2.parameters):
        assert q.tensor.is_contiguous()
        np.testing.assert_allclose(p.value, q.value, rtol=1e-5, atol=1e-6)
        assert p.value.flags["C_CONTIGUOUS"]


def _final_state_calls(f):
    plan = call_plan(f.outputs)
    return [n for module in plan.modules.values() for n in module.graph.nodes
            if n.op == "call_module" and n.kwargs.get("final_state")]


def _values_and_gradients(f, x, data):
    params = f.parameters
    (out,), _ = evaluate_tensors(f.outputs, {x: data}, requires_grad=True, training=True)
    weights = torch.linspace(-1, 1, out.numel(), dtype=out.dtype, device=out.device).reshape(out.shape)
    grads = torch.autograd.grad((out * weights).sum(), [p.tensor for p in params])
    return out.detach().cpu().numpy(), [g.cpu().numpy() for g in grads]


@pytest.mark.parametrize("cell", [lambda: C.layers.LSTM(5), lambda: C.layers.RNNStep(5, activation=C.tanh)])
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("lengths", [[1, 6, 3, 6, 2], [4, 4]])
def test_last_state_of_a_fused_loop_comes_from_the_kernel_with_the_step_loops_values(cell, go_backwards, lengths):
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    picks = [C.layers.Fold(cell(), go_backwards=go_backwards)(x),
             (C.sequence.first if go_backwards else C.sequence.last)(
                 C.layers.Recurrence(cell(), go_backwards=go_backwards, initial_state=0.25)(x))]
    data = _data(rng, lengths, 3, np.float32)
    for f in picks:
        fused_out, fused_grads = _values_and_gradients(f, x, data)
        assert len(_final_state_calls(f)) == 1
        with use_fused_kernels(False):
            loop_out, loop_grads = _values_and_gradients(f, x, data)
        _assert_float32_close((fused_out, fused_grads), (loop_out, loop_grads))


def test_a_step_other_than_the_final_state_or_a_sequence_read_twice_keeps_the_sequence():
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    h = C.layers.Recurrence(C.layers.LSTM(4))(x)
    h_back = C.layers.Recurrence(C.layers.LSTM(4), go_backwards=True)(x)
    for f in (C.sequence.first(h), C.sequence.last(h_back), C.splice(C.sequence.last(h), C.sequence.first(h))):
        data = _data(rng, [2, 5, 1], 3, np.float32)
        out = f.eval({x: data})
        assert not _final_state_calls(f)
        with use_fused_kernels(False):
            np.testing.assert_allclose(out, f.eval({x: data}), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("padding_limit", [0.0, 100.0])  # always the packed kernel / always the padded batch
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("cell", [lambda: C.layers.LSTM(4), lambda: C.layers.RNNStep(4, activation=C.tanh)])
def test_sequences_of_different_lengths_packed_or_padded_equal_the_step_loop(monkeypatch, padding_limit,
                                                                              go_backwards, cell):
    from cntk_compat.core import fused_recurrence
    for mode in list(fused_recurrence._PADDING_LIMIT):
        monkeypatch.setitem(fused_recurrence._PADDING_LIMIT, mode, padding_limit)
    monkeypatch.setattr(fused_recurrence, "_SMALL_RNN", (256, padding_limit))
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    h = C.layers.Recurrence(cell(), go_backwards=go_backwards, initial_state=0.5)(x)
    data = _data(rng, [1, 9, 3, 9, 2, 1], 3, np.float32)
    _compare(h, x, data, np.float32, True)
    last = (C.sequence.first if go_backwards else C.sequence.last)(h)
    fused_out, fused_grads = _values_and_gradients(last, x, data)
    assert _final_state_calls(last)
    with use_fused_kernels(False):
        loop_out, loop_grads = _values_and_gradients(last, x, data)
    np.testing.assert_allclose(fused_out, loop_out, rtol=1e-5, atol=1e-6)
    for a, b in zip(fused_grads, loop_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_constant_initial_state_is_laid_out_once_and_follows_its_value_and_the_batch_size():
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    start = C.constant(np.full(4, 0.3, np.float32))
    f = C.layers.Recurrence(C.layers.LSTM(4), initial_state=start)(x)
    for lengths, value in (([2, 5, 1], 0.3), ([4, 4], 0.3), ([3, 1, 2, 6], -0.7), ([3, 1, 2, 6], -0.7)):
        if value != float(start.value[0]):
            start.value = np.full(4, value, np.float32)
        _compare(f, x, _data(rng, lengths, 3, np.float32), np.float32, True)
        (module,) = _fused_modules(f)
        held = module._init_cache[0][2]  # h's initial state as the kernel took it at the last call
        assert tuple(held.shape) == (1, len(lengths), 4) and held.is_contiguous()
        np.testing.assert_array_equal(held.cpu().numpy(), np.full((1, len(lengths), 4), value, np.float32))


@pytest.mark.parametrize("go_backwards", [False, True])
def test_per_sequence_initial_states_are_sorted_with_their_sequences_on_the_packed_kernel(monkeypatch, go_backwards):
    from cntk_compat.core import fused_recurrence
    monkeypatch.setitem(fused_recurrence._PADDING_LIMIT, "lstm", 0.0)  # always the packed kernel
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    init = C.input_variable(4)
    g = C.layers.RecurrenceFrom(C.layers.LSTM(4), go_backwards=go_backwards)(init, init, x)
    data = _data(rng, [3, 7, 1, 7, 2], 3, np.float32)
    starts = rng.standard_normal((5, 4)).astype(np.float32)
    _eval_fused_equals_step_loop(g, {x: data, init: starts})


def _stacks(f):
    plan = call_plan(f.outputs)
    return [m for module in plan.modules.values() for m in module.modules() if isinstance(m, FusedStack)]


@pytest.mark.parametrize("padding_limit", [0.0, 100.0])  # sequences of different lengths: packed / padded
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("last", [False, True])
def test_two_stacked_lstm_loops_run_as_one_two_layer_call_with_the_two_calls_values(monkeypatch, padding_limit,
                                                                                      go_backwards, last):
    from cntk_compat.core import fused_recurrence, lowering
    monkeypatch.setitem(fused_recurrence._PADDING_LIMIT, "lstm", padding_limit)
    monkeypatch.setattr(fused_recurrence, "_STACKED_DEVICES", ("cuda", "cpu"))  # the GPU's one call, on the CPU
    layers, run = [], FusedRNN._run

    def counted(self, mask, x, hx, shared, weights, n, final_state):
        layers.append(n)
        return run(self, mask, x, hx, shared, weights, n, final_state)
    monkeypatch.setattr(FusedRNN, "_run", counted)
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    h = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(5), go_backwards=go_backwards),
                             C.layers.Recurrence(C.layers.LSTM(5), go_backwards=go_backwards, initial_state=0.25)])(x)
    f = (C.sequence.first if go_backwards else C.sequence.last)(h) if last else h
    separate = f.clone(C.CloneMethod.share)  # the same parameters, lowered without the rewrite below
    for lengths in ([1, 6, 3, 6, 2], [4, 4, 4]):
        data = _data(rng, lengths, 3, np.float32)
        if not last:
            _compare(f, x, data, np.float32, True)  # against the step loop
        del layers[:]
        stacked_out, stacked_grads = _values_and_gradients(f, x, data)
        assert len(_stacks(f)) == 1 and layers == [2]  # one call of the kernel, with two layers
        with monkeypatch.context() as m:
            m.setattr(lowering, "stack_layers", lambda graph, root: False)
            x2 = separate.arguments[0]
            separate_out, separate_grads = _values_and_gradients(separate, x2, data)
        assert not _stacks(separate)
        _assert_float32_close((stacked_out, stacked_grads), (separate_out, separate_grads))


def test_stacking_keeps_three_layers_and_other_sizes_apart():
    x = C.sequence.input_variable(3)
    three = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(4)) for _ in range(3)])(x)
    sizes = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(4)), C.layers.Recurrence(C.layers.LSTM(6))])(x)
    both_ways = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(4)),
                                     C.layers.Recurrence(C.layers.LSTM(4), go_backwards=True)])(x)
    data = _data(np.random.default_rng(0), [2, 5], 3, np.float32)
    for f, stacks in ((three, 1), (sizes, 0), (both_ways, 0)):
        out = f.eval({x: data})
        assert len(_stacks(f)) == stacks
        with use_fused_kernels(False):
            ref = f.eval({x: data})
        for a, b in zip(out, ref):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_weights_keep_their_layout_while_a_process_group_runs(monkeypatch):
    # DistributedDataParallel lays its gradient buckets out by the parameters' strides
    monkeypatch.setattr(torch.distributed, "is_initialized", lambda: True)
    rng = np.random.default_rng(0)
    x = C.sequence.input_variable(3)
    f = C.layers.Recurrence(C.layers.LSTM(4))(x)
    _compare(f, x, _data(rng, [2, 5, 1], 3, np.float32), np.float32, True)
    assert all(p.tensor.is_contiguous() for p in f.parameters)


@pytest.mark.parametrize("distributed", [False, True])
def test_weight_gradients_have_their_parameters_layout_and_the_step_loops_values(monkeypatch, distributed):
    # stored for the kernel, the gate exchange is native autograd ops and the gradient is the transposed view of
    # the kernel's; kept plain (a process group runs), the exchange is _KernelLayout with a contiguous gradient
    if distributed:
        monkeypatch.setattr(torch.distributed, "is_initialized", lambda: True)
    rng = np.random.default_rng(4)
    x = C.sequence.input_variable(3, dtype=np.float64)
    with C.default_options(dtype=np.float64):
        f = C.layers.Recurrence(C.layers.LSTM(4))(x)
    data = _data(rng, [5, 5], 3, np.float64)
    (out,), _ = evaluate_tensors(f.outputs, {x: data}, requires_grad=True, training=True)
    assert _fused_modules(f)
    params = f.parameters
    grads = torch.autograd.grad(out.sum(), [p.tensor for p in params])
    for p, g in zip(params, grads):
        assert g.stride() == p.tensor.stride()
    assert any(not p.tensor.is_contiguous() for p in params) != distributed
    with use_fused_kernels(False):
        (loop_out,), _ = evaluate_tensors(f.outputs, {x: data}, requires_grad=True, training=True)
        loop_grads = torch.autograd.grad(loop_out.sum(), [p.tensor for p in params])
    for g, h in zip(grads, loop_grads):
        np.testing.assert_allclose(g.cpu().numpy(), h.cpu().numpy(), rtol=1e-10, atol=1e-12)
