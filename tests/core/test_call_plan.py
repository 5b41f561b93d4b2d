"""The per-call cache: what a computation needs is worked out once per graph version, and redone when the graph
changes in place."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk_compat.core import graph_version
from cntk_compat.core.engine import call_plan, normalize_arguments
from cntk_compat.core.feeding import to_value


def test_plan_is_reused_per_outputs_and_rebuilt_after_replace_placeholders():
    x = C.input_variable(3, name="x")
    ph = C.placeholder(name="ph")
    f = C.plus(x, ph)
    plan = call_plan(f.outputs)
    assert call_plan(f.outputs) is plan
    assert plan.unbound == [ph]
    with pytest.raises(RuntimeError, match="unbound placeholders"):
        f.eval({x: np.ones((1, 3), np.float32), ph: np.ones((1, 3), np.float32)})
    y = C.input_variable(3, name="y")
    version = graph_version.current()
    f.replace_placeholders({ph: y})
    assert graph_version.current() > version
    rebuilt = call_plan(f.outputs)
    assert rebuilt is not plan and rebuilt.needed == [x, y] and not rebuilt.unbound
    assert [a.name for a in f.arguments] == ["x", "y"]
    out = f.eval({x: np.ones((1, 3), np.float32), y: np.full((1, 3), 2, np.float32)})
    np.testing.assert_array_equal(out, np.full((1, 3), 3, np.float32))


def test_lowered_module_is_cached_per_argument_order_and_mode():
    x = C.input_variable(2)
    f = C.dropout(C.times(x, C.parameter(init=np.eye(2, dtype=np.float32))), 0.5)
    plan = call_plan(f.outputs)
    f.eval({x: np.ones((1, 2), np.float32)})
    f.eval({x: np.ones((4, 2), np.float32)})
    assert list(plan.modules) == [((x,), False, True)]
    module = plan.modules[((x,), False, True)]
    assert not module.training and plan.module([x], True).training


def test_float32_contiguous_array_is_fed_without_a_copy():
    x = C.input_variable((2, 3))
    data = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    value = to_value(x, data, torch.device("cpu"))
    assert value.tensor.data_ptr() == data.ctypes.data


def test_converters_cover_each_kind_of_data():
    x = C.input_variable(2)
    s = C.sequence.input_variable(2)
    dev = torch.device("cpu")
    assert to_value(x, np.ones(2, np.float32), dev).tensor.shape == (1, 2)
    assert to_value(x, [np.ones(2, np.float32)] * 3, dev).tensor.shape == (3, 2)
    assert to_value(x, torch.ones(5, 2), dev).tensor.shape == (5, 2)
    seqs = to_value(s, [np.ones((3, 2), np.float32), np.ones((1, 2), np.float32)], dev)
    assert seqs.tensor.shape == (2, 3, 2) and seqs.lengths == [3, 1]
    # data of any other kind is refused with CNTK 2.7's message (CNTK_206 fed CNTK 2.0 beta's C.one_hot result,
    # a Function)
    for data in [{}, "abc", None, object(), C.one_hot(np.array([[1, 2]]), 2), C.constant(np.ones(2, np.float32))]:
        with pytest.raises(ValueError) as info:
            to_value(x, data, dev)
        assert str(info.value) == "batch must be a list of NumPy arrays or SciPy CSR matrices"
    with pytest.raises(ValueError, match="^batch must be a list of NumPy arrays or SciPy CSR matrices$"):
        (x * 2).eval({x: set([1])})


def test_one_normalizer_for_names_bare_data_and_sequence_starts():
    a, b = C.input_variable(1, name="a"), C.sequence.input_variable(1, name="b")
    args, starts = normalize_arguments([a, b], {"a": 1, b: ([np.ones((2, 1))], [False])})
    assert args[a] == 1 and starts == {b: [False]}
    with pytest.raises(ValueError, match=r"the criterion has 2 arguments \(a, b\)"):
        normalize_arguments([a, b], np.ones(1), "the criterion")
    with pytest.raises(ValueError, match="no argument named 'c'"):
        normalize_arguments([a, b], {"c": 1})
    z = C.times(a, C.parameter(init=np.ones((1, 1), np.float32)))
    trainer = C.Trainer(z, C.squared_error(z, C.input_variable(1, name="t")),
                        [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    with pytest.raises(ValueError, match="no argument named 'q'"):
        trainer.train_minibatch({"q": np.ones((1, 1), np.float32)})
    assert trainer.train_minibatch({"a": np.ones((1, 1), np.float32), "t": np.zeros((1, 1), np.float32)})
    np.testing.assert_allclose(z.parameters[0].value, [[0.8]], rtol=1e-6)


def test_plain_arrays_are_fed_as_they_are_and_anything_else_takes_the_checked_path():
    from cntk_compat.core.engine import _plain_inputs, prepare_inputs
    x = C.input_variable((2, 3), name="x")
    y = C.input_variable(4, name="y")
    f = C.reduce_sum(x) + C.reduce_sum(y)
    plan = call_plan(f.outputs)
    assert plan.plain == [(np.dtype(np.float32), (2, 3), 3), (np.dtype(np.float32), (4,), 2)]
    dev = torch.device("cpu")
    xs, ys = np.arange(30, dtype=np.float32).reshape(5, 2, 3), np.ones((5, 4), np.float32)
    tensors, info = _plain_inputs(plan, {x: xs, y: ys}, dev)
    assert tensors[0].data_ptr() == xs.ctypes.data and (info.num_samples, info.num_sequences) == (5, 5)
    expected = xs.reshape(5, -1).sum(1) + 4
    # (data, whether it is plain): what is not plain is converted and checked by feeding.to_value
    # (CNTK's warnings: another dtype, a list for a batch input, an array that is not C-contiguous)
    for data, plain, warning in (({x: xs, y: ys}, True, None),
                                 ({x: np.asfortranarray(xs), y: ys}, False, RuntimeWarning),  # not C-contiguous
                                 ({x: xs.astype(np.float64), y: ys}, False, UserWarning),     # another dtype
                                 ({x: xs[0], y: ys[:1]}, False, None),     # one sample without its batch axis
                                 ({x: list(xs), y: ys}, False, UserWarning)):                 # a list of samples
        assert (_plain_inputs(plan, data, dev) is not None) == plain
        with pytest.warns(warning) if warning else _no_warning():
            np.testing.assert_array_equal(f.eval(data), expected[:len(data[y])])
    with pytest.raises(ValueError, match="Different minibatch layouts detected"):
        f.eval({x: xs, y: ys[:3]})
    assert _plain_inputs(plan, {x: xs, y: ys[:3]}, dev) is None
    _, order, tensors, info, lengths = prepare_inputs(f.outputs, {x: xs, y: ys})
    assert order == [x, y] and lengths == {} and info.num_samples == 5


def test_sequences_sparse_and_free_dimensions_are_not_plain():
    assert call_plan([C.reduce_sum(C.sequence.input_variable(3))]).plain is None
    assert call_plan([C.reduce_sum(C.input_variable(3, is_sparse=True))]).plain is None
    assert call_plan([C.reduce_sum(C.input_variable(C.FreeDimension))]).plain is None


class _no_warning(object):
    def __enter__(self):
        import warnings
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)
