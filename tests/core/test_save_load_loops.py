"""Function.save / load_model of graphs with recurrent loops (past_value/future_value cycles closed in place)."""
import io
import json
import zipfile

import numpy as np
import pytest

import cntk as C
from cntk_compat.core import serialization
from cntk.layers import GRU, LSTM, Dense, Fold, Recurrence, RecurrenceFrom, Sequential, UnfoldFrom
from cntk.layers.typing import Sequence, Signature, Tensor

SEQS = [np.array([[1, 2], [3, 4], [5, 6], [-1, 0.5]], np.float32), np.array([[1, 1], [0, 2]], np.float32),
        np.array([[0.25, -3]], np.float32)]


def _round_trip(f, tmp_path, name="loop.model"):
    path = str(tmp_path / name)
    f.save(path)
    return C.load_model(path)


def _assert_same_sequences(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def _assert_same_parameters(loaded, model):
    assert [p.name for p in loaded.parameters] == [p.name for p in model.parameters]
    assert [p.shape for p in loaded.parameters] == [p.shape for p in model.parameters]
    for mine, theirs in zip(loaded.parameters, model.parameters):
        assert mine is not theirs
        np.testing.assert_array_equal(mine.value, theirs.value)


def _delay_nodes(f):
    return [n for n in C.logging.graph.depth_first_search(f, lambda n: isinstance(n, C.Function) and
                                                          n.op_name in ("PastValue", "FutureValue"), depth=-1)]


def _reads_its_own_result(delay):
    """True when the delayed value depends on the delay's own output: the loop is a real cycle, not unrolled."""
    seen, pending = set(), [delay.inputs[0]]
    while pending:
        v = pending.pop()
        if v is delay.output:
            return True
        if not v.is_output or v.owner.uid in seen:
            continue
        node = v.owner
        seen.add(node.uid)
        pending.extend(node.inputs)
        if node.is_block:
            pending.extend(node.block_root.outputs)
            pending.extend(outer for _, outer in node.block_arguments_mapping)
    return False


@pytest.mark.parametrize("cell", [LSTM, GRU], ids=["LSTM", "GRU"])
def test_recurrence_of_a_cell_round_trips_bit_identically(tmp_path, cell):
    x = C.sequence.input_variable(2, name="x")
    model = Recurrence(cell(5, name="cell"), name="rnn")(x)
    loaded = _round_trip(model, tmp_path)
    _assert_same_sequences(loaded.eval({loaded.arguments[0]: SEQS}), model.eval({x: SEQS}))
    _assert_same_parameters(loaded, model)
    assert [a.name for a in loaded.arguments] == ["x"]
    delays = _delay_nodes(loaded)
    assert len(delays) == len(_delay_nodes(model)) > 0
    assert all(_reads_its_own_result(d) for d in delays)
    # the cell stays one block around the step, with the loop outside it
    cells = loaded.find_all_with_name("cell")
    assert len(cells) == 1 and cells[0].is_block and cells[0].op_name == cell.__name__


def test_hand_made_running_sum_loads_as_a_closed_cycle(tmp_path):
    x = C.sequence.input_variable(2)
    ph = C.placeholder()
    h = C.plus(x, C.sequence.past_value(ph))
    h.replace_placeholders({ph: h.output})
    loaded = _round_trip(h, tmp_path)
    out = loaded.eval({loaded.arguments[0]: SEQS})
    _assert_same_sequences(out, h.eval({x: SEQS}))
    np.testing.assert_array_equal(out[0], np.cumsum(SEQS[0], 0))
    (delay,) = _delay_nodes(loaded)
    assert delay.inputs[0] is loaded.output  # past_value reads the plus it feeds
    assert loaded.placeholders == ()


def test_future_value_loop_runs_backwards_after_loading(tmp_path):
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    h = C.plus(x, C.sequence.future_value(ph, initial_state=3) * 0.5)
    h.replace_placeholders({ph: h.output})
    loaded = _round_trip(h, tmp_path)
    data = [np.array([[1], [2], [4]], np.float32), np.array([[2], [6]], np.float32)]
    out = loaded.eval({loaded.arguments[0]: data})
    _assert_same_sequences(out, h.eval({x: data}))
    # h_t = x_t + h_{t+1} / 2 from the end, with h_T+1 = 3
    np.testing.assert_allclose(out[0].ravel(), [1 + 0.5 * (2 + 0.5 * 5.5), 2 + 0.5 * 5.5, 5.5])


def test_fold_round_trips(tmp_path):
    x = C.sequence.input_variable(2)
    model = Fold(GRU(3))(x)
    loaded = _round_trip(model, tmp_path)
    got, expected = loaded.eval({loaded.arguments[0]: SEQS}), model.eval({x: SEQS})
    np.testing.assert_array_equal(got, expected)
    _assert_same_parameters(loaded, model)


def test_recurrence_from_with_initial_states_as_inputs(tmp_path):
    x = C.sequence.input_variable(2, name="x")
    h0, c0 = C.input_variable(3, name="h0"), C.input_variable(3, name="c0")
    model = RecurrenceFrom(LSTM(3), return_full_state=True)(h0, c0, x)
    loaded = _round_trip(model, tmp_path)
    assert [a.name for a in loaded.arguments] == ["h0", "c0", "x"]
    init = np.random.RandomState(1).randn(3, 3).astype(np.float32)
    feed = [init, init[::-1].copy(), SEQS]
    got = loaded.eval(dict(zip(loaded.arguments, feed)))
    expected = model.eval(dict(zip(model.arguments, feed)))
    assert len(loaded.outputs) == 2
    for mine, theirs in zip(loaded.outputs, model.outputs):
        _assert_same_sequences(got[mine], expected[theirs])


def test_unfold_from_with_until_predicate(tmp_path):
    scale = C.Parameter((1,), init=2.0, name="scale")
    until = UnfoldFrom(lambda s: s * scale, until_predicate=lambda v: C.greater(v, 63), length_increase=1.6)

    @C.Function
    @Signature(Sequence[Tensor[1]])
    def generate(x):
        return until(C.Constant(1), x)
    loaded = _round_trip(generate, tmp_path)
    lengths_like = [np.zeros((3, 1), np.float32), np.zeros((5, 1), np.float32)]
    out = loaded(lengths_like)
    _assert_same_sequences(out, generate(lengths_like))
    np.testing.assert_array_equal(out[1].ravel(), [2, 4, 8, 16, 32, 64])
    assert [p.name for p in loaded.parameters] == ["scale"]


def test_model_with_two_loops_in_both_directions(tmp_path):
    x = C.sequence.input_variable(2)
    model = Sequential([Recurrence(LSTM(4)), Recurrence(GRU(3), go_backwards=True), Dense(2)])(x)
    loaded = _round_trip(model, tmp_path)
    _assert_same_sequences(loaded.eval({loaded.arguments[0]: SEQS}), model.eval({x: SEQS}))
    _assert_same_parameters(loaded, model)
    assert sorted(d.op_name for d in _delay_nodes(loaded)) == ["FutureValue", "PastValue", "PastValue"]


def test_loop_inside_a_block_keeps_the_block(tmp_path):
    @C.BlockFunction("Encoder", "enc")
    def encoder(z):
        return Recurrence(GRU(3))(z)
    x = C.sequence.input_variable(2)
    model = encoder(x)
    loaded = _round_trip(model, tmp_path)
    assert loaded.root_function.is_block and loaded.root_function.op_name == "Encoder"
    assert loaded.name == "enc"
    _assert_same_sequences(loaded.eval({loaded.arguments[0]: SEQS}), model.eval({x: SEQS}))
    _assert_same_parameters(loaded, model)


def test_a_loaded_loop_model_saves_again_and_restores(tmp_path):
    x = C.sequence.input_variable(2)
    model = Recurrence(LSTM(3))(x)
    again = _round_trip(_round_trip(model, tmp_path), tmp_path, "again.model")
    _assert_same_sequences(again.eval({again.arguments[0]: SEQS}), model.eval({x: SEQS}))
    path = str(tmp_path / "loop.model")
    saved = [p.value for p in model.parameters]
    for p in model.parameters:
        p.value = np.zeros(p.shape, np.float32)
    model.restore(path)
    for p, v in zip(model.parameters, saved):
        np.testing.assert_array_equal(p.value, v)


def _train_steps(model, steps=3):
    x = model.arguments[0]
    y = C.sequence.input_variable(2)
    loss = C.squared_error(model, y)
    trainer = C.Trainer(model, (loss, loss), [C.sgd(model.parameters, C.learning_parameter_schedule(0.05))])
    rng = np.random.RandomState(0)
    xs = [rng.randn(n, 2).astype(np.float32) for n in (4, 2)]
    losses = []
    for _ in range(steps):      # the same minibatch: small gradient steps must lower its loss
        trainer.train_minibatch({x: xs, y: [s[:, ::-1].copy() for s in xs]})
        losses.append(trainer.previous_minibatch_loss_average)
    return losses


def test_training_continues_from_a_loaded_loop_model(tmp_path):
    x = C.sequence.input_variable(2)
    model = Sequential([Recurrence(LSTM(4)), Dense(2)])(x)
    loaded = _round_trip(model, tmp_path)
    before = [p.value for p in loaded.parameters]
    losses_loaded = _train_steps(loaded)
    assert losses_loaded == _train_steps(model)  # the same model, data and learner: the same steps
    assert losses_loaded[-1] < losses_loaded[0]
    assert any(not np.array_equal(p.value, b) for p, b in zip(loaded.parameters, before))
    for mine, theirs in zip(loaded.parameters, model.parameters):
        np.testing.assert_array_equal(mine.value, theirs.value)


def _save_archive(f, path):
    """This package's archive format (save() writes CNTK's format where it can express the graph)."""
    with open(path, "wb") as out:
        out.write(serialization.model_bytes(f))


def _rewrite_graph(path, change):
    with zipfile.ZipFile(path) as archive:
        graph = json.loads(archive.read("graph.json"))
        tensors = archive.read("tensors.pt")
    change(graph)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("graph.json", json.dumps(graph))
        archive.writestr("tensors.pt", tensors)
    return buffer.getvalue()


def test_the_file_records_loop_references_since_format_version_2(tmp_path):
    x = C.sequence.input_variable(2)
    path = str(tmp_path / "m")
    _save_archive(Recurrence(LSTM(3))(x), path)
    with zipfile.ZipFile(path) as archive:
        graph = json.loads(archive.read("graph.json"))
    assert graph["version"] == 3
    # the LSTM's two outputs (h and c) are each read once by a past_value before the block is defined
    assert len(graph["loop_references"]) == 2
    defined = {uid for node in graph["nodes"] for uid in node["outputs"]}
    assert {r["uid"] for r in graph["loop_references"]} <= defined


def test_version_1_files_without_loop_references_still_load(tmp_path):
    x = C.input_variable(2)
    path = str(tmp_path / "plain")
    _save_archive(x * 3 + 1, path)

    def as_version_1(graph):
        graph["version"] = 1
        del graph["loop_references"]
    loaded = C.Function.load(_rewrite_graph(path, as_version_1))
    np.testing.assert_array_equal(loaded.eval({loaded.arguments[0]: np.array([[1, 2]], np.float32)}), [[4, 7]])


def test_broken_loop_files_give_clear_errors(tmp_path):
    x = C.sequence.input_variable(2)
    path = tmp_path / "m"
    _save_archive(Recurrence(GRU(3))(x), str(path))
    truncated = tmp_path / "truncated"
    truncated.write_bytes(path.read_bytes()[:200])
    with pytest.raises(RuntimeError, match="not a model saved by cntk-compat"):
        C.load_model(str(truncated))

    def drop_the_defining_node(graph):
        referenced = {r["uid"] for r in graph["loop_references"]}
        graph["nodes"] = [n for n in graph["nodes"] if not referenced & set(n["outputs"])]
    with pytest.raises(ValueError, match="inconsistent"):
        C.Function.load(_rewrite_graph(str(path), drop_the_defining_node))

    def future_version(graph):
        graph["version"] = 99
    with pytest.raises(ValueError, match="format version 99"):
        C.Function.load(_rewrite_graph(str(path), future_version))
