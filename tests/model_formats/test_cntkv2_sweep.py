"""Behaviours found by loading a broad sweep of CNTK 2.7-written models (layers, ops, sequences, losses, dtypes)
and comparing with CNTK 2.7. The files here are hand-built Dictionaries laid out as CNTK 2.7 writes them, or
written by this package's own writer; the expected numbers are the ones CNTK 2.7 computed."""
import itertools
import re

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.core import uid as uid_module
from cntk_compat.model_formats import cntkv2_wire as wire
from cntk_compat.model_formats.cntkv2_values import Shape, SizeT, StoredAxis, dictionary_to_message

_DYNAMIC, _UNKNOWN = 2 ** 31 - 1, 2 ** 31 - 3
_BATCH = StoredAxis(_DYNAMIC, "defaultBatchAxis", False)


def _model_bytes(primitive_functions, inputs, root):
    top = {"version": SizeT(3), "type": "CompositeFunction", "uid": "CompositeFunction90", "root": root,
           "inputs": inputs, "primitive_functions": primitive_functions}
    return dictionary_to_message(top).SerializeToString()


def _variable(uid, shape, kind=0, axes=(_BATCH,), name="", data_type=1):
    return {"version": SizeT(1), "type": "Variable", "uid": uid, "kind": SizeT(kind), "data_type": SizeT(data_type),
            "is_sparse": False, "needs_gradient": False, "name": name, "shape": Shape(shape),
            "dynamic_axis": list(axes)}


def _function(uid, op, inputs, attributes=None, **extra):
    record = {"version": SizeT(1), "type": "PrimitiveFunction", "uid": uid, "op": SizeT(op), "inputs": inputs,
              "attributes": attributes or {}}
    record.update(extra)
    return record


def _block(uid, op_name, inputs, root, keys, attributes=None):
    # CNTK 2.7 lists a block's inner functions with the model's own; the block's composite names its root
    return _function(uid, 57, inputs, attributes, block_function_op_name=op_name,
                     block_function_composite={"version": SizeT(1), "type": "CompositeFunction",
                                               "uid": "CompositeFunction" + uid[5:], "root": root,
                                               "inputs": [], "primitive_functions": []},
                     block_function_composite_arguments_map_keys=keys,
                     block_function_composite_arguments_map_values=inputs)


def _all_uids(f):
    found = []
    for g in C.logging.graph.depth_first_search(f, lambda _: True, depth=-1):
        found.append(g.uid)
    return found


def test_the_files_uid_numbers_are_taken_before_the_graph_is_built():
    """Builders add functions of their own (reduce_sum_square is CNTK's small graph); they must not take a uid the
    file gives to another function. Loading several files in one process used to give such a function the uid of
    one of the file's, and the lowering (keyed by uid) then computed one output in place of another."""
    x = C.input_variable((2, 3, 4))
    model = C.combine([C.reduce_sum_square(x, 1), C.reduce_l2(x, 0), C.reduce_mean(x, (0, 2))])
    data = _saved_bytes(model)
    top = wire.parse_dictionary(data, "m")
    file_numbers = [int(re.search(r"(\d+)$", pf["uid"]).group(1)) for pf in top["primitive_functions"]]
    # the process's counter is behind the file's numbers (as after loading files of another process)
    saved = uid_module._counter, uid_module._next[0]
    uid_module._counter, uid_module._next[0] = itertools.count(min(file_numbers)), min(file_numbers)
    try:
        loaded = C.load_model(data)
        uids = _all_uids(loaded)
        assert len(uids) == len(set(uids))
        assert int(re.search(r"(\d+)$", C.Parameter((1,)).uid).group(1)) > max(file_numbers)
        d = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4) / 10
        got = loaded.eval({loaded.arguments[0]: d}, outputs=loaded.outputs)
        np.testing.assert_allclose(got[loaded.outputs[0]], (d ** 2).sum(axis=2, keepdims=True), rtol=1e-5)
        np.testing.assert_allclose(got[loaded.outputs[1]], np.sqrt((d ** 2).sum(axis=1, keepdims=True)), rtol=1e-5)
        np.testing.assert_allclose(got[loaded.outputs[2]], d.mean(axis=(1, 3), keepdims=True), rtol=1e-5)
    finally:
        if uid_module._next[0] < saved[1]:
            uid_module._counter, uid_module._next[0] = saved


def _saved_bytes(model):
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "m.model")
    model.save(path)
    with open(path, "rb") as f:
        return f.read()


def _dense_file():
    x = C.input_variable(2)
    return _saved_bytes(C.times(x, C.Parameter((2, 2), init=np.array([[1, 2], [3, 4]], np.float32))))


def test_two_loads_of_one_file_combined_are_refused_and_a_clone_is_not():
    """uids are kept from the file, so two loads of one file have the same uids: CNTK 2.7 refuses to compute them
    combined ("Duplicated name"); computing them here read one model's input/parameter for both."""
    data = _dense_file()
    a, b = C.load_model(data), C.load_model(data)
    both = C.combine([a.output, b.output])
    x = np.array([[1, 1]], np.float32)
    with pytest.raises(ValueError, match="two different variables with uid"):
        both.eval({both.arguments[0]: x, both.arguments[1]: 2 * x})
    c = C.load_model(data).clone(C.CloneMethod.clone)
    c.parameters[0].value = c.parameters[0].value * 10
    both = C.combine([a.output, c.output])
    got = both.eval({both.arguments[0]: x, both.arguments[1]: 2 * x}, outputs=both.outputs)
    np.testing.assert_allclose(got[both.outputs[0]], [[4, 6]])
    np.testing.assert_allclose(got[both.outputs[1]], [[80, 120]])


def test_a_reduction_over_the_batch_axis_as_cntk_writes_it():
    """reduce_mean(x, axis=Axis.default_batch_axis()): CNTK 2.7 writes a ReduceElements block holding a
    MultiAxisReduce block holding a ReduceElements '_batch_axes_subop' over the batch axis."""
    attrs = {"axisVec": [_BATCH], "reductionOpName": "Mean", "reductionKeepDimensions": True}
    functions = [
        _function("ReduceElements7", 39, ["Placeholder11"], attrs, name="_batch_axes_subop"),
        _block("Block8", "MultiAxisReduce", ["Placeholder10"], "ReduceElements7", ["Placeholder11"]),
        _block("Block9", "ReduceElements", ["Input3"], "Block8", ["Placeholder10"], attrs)]
    inputs = [_variable("Input3", (3,)), _variable("Placeholder10", (3,), kind=4),
              _variable("Placeholder11", (3,), kind=4)]
    model = C.load_model(_model_bytes(functions, inputs, "Block9"))
    assert model.root_function.op_name == "ReduceElements" and model.output.shape == (3,)
    assert model.output.dynamic_axes == ()
    got = model.eval({model.arguments[0]: np.array([[1, 2, 3], [3, 4, 8]], np.float32)})
    np.testing.assert_allclose(got, [2, 3, 5.5])  # CNTK 2.7's numbers


def test_a_combine_root_of_one_output_stays_the_root():
    """combine([f]), and CNTK's Recurrence and Fold layers, give a model whose root is a Combine of one output:
    loaded, its root_function is that Combine (op_name 'Combine'), as in CNTK 2.7."""
    functions = [_function("ReLU4", 3, ["Input3"]), _function("Combine5", 44, ["ReLU4_Output_0"])]
    model = C.load_model(_model_bytes(functions, [_variable("Input3", (2,))], "Combine5"))
    assert model.root_function.op_name == "Combine"
    assert model.root_function.uid == "Combine5"
    assert len(model.outputs) == 1
    np.testing.assert_allclose(model.eval({model.arguments[0]: np.array([[-1, 2]], np.float32)}), [[0, 2]])


def test_an_unbound_placeholder_with_unknown_shape_and_axes(tmp_path):
    """CNTK 2.7 writes an unbound C.placeholder() with NDShape::Unknown() (one dimension SIZE_MAX - 1) and the
    unknown dynamic axes (static_axis_idx 2**31 - 3, 'UnknownAxes'); it loads as an unbound placeholder of shape
    (-2,), and this package writes such placeholders the same way (CNTK 2.7 loads them: checked)."""
    ph = _variable("Placeholder5", ((1 << 64) - 2,), kind=4, axes=(StoredAxis(_UNKNOWN, "UnknownAxes", False),),
                   name="ph", data_type=0)
    functions = [_function("ReLU6", 3, ["Placeholder5"])]
    model = C.load_model(_model_bytes(functions, [ph], "ReLU6"))
    p = model.arguments[0]
    assert p.is_placeholder and p.name == "ph" and p.shape == (-2,)
    assert p.dynamic_axes == C.Axis.unknown_dynamic_axes()
    x = C.input_variable(2)
    model.replace_placeholders({p: x})
    np.testing.assert_allclose(model.eval({x: np.array([[-1, 3]], np.float32)}), [[0, 3]])
    # written in CNTK's format (not the archive), with the same records
    f = C.relu(C.placeholder(name="q")) * 2
    path = str(tmp_path / "ph.model")
    f.save(path)
    top = wire.read_file(path, "ph")
    record = [r for r in top["inputs"] if r["kind"] == 4][0]
    assert tuple(record["shape"]) == (-2,)  # the reader's view of SIZE_MAX - 1
    assert [(a.index, a.name) for a in record["dynamic_axis"]] == [(_UNKNOWN, "UnknownAxes")]
    again = C.load_model(path)
    assert again.arguments[0].shape == (-2,) and again.arguments[0].name == "q"


def test_clone_freeze_of_a_double_model_keeps_double_constants():
    x = C.input_variable(2, dtype=np.float64)
    w = C.Parameter((2, 2), init=np.array([[1, 2], [3, 4]], np.float64), dtype=np.float64)
    f = C.times(x, w)
    y = C.input_variable(2, dtype=np.float64)
    frozen = f.clone(C.CloneMethod.freeze, {x: y})
    assert [c.dtype for c in frozen.constants] == [np.float64]
    np.testing.assert_allclose(frozen.eval({y: np.array([[1.0, 1.0]])}), [[4, 6]])


def test_argument_order_of_a_function_survives_the_file(tmp_path):
    """A @Function whose graph meets its arguments out of their parameter order (UnfoldFrom(...)(h, x) reads x
    first): CNTK 2.7 puts a 'Tuple' block of the arguments ahead of them, so its file lists them in order. This
    package writes the same block, and reads such a block as what it is (its outputs are its inputs) with the
    arguments in its order -- without making each output depend on every argument."""
    x = C.sequence.input_variable(3, name="x")
    h = C.input_variable(2, name="h")
    dense = C.layers.Dense(2, activation=C.tanh)
    model = C.layers.UnfoldFrom(lambda s: dense(s), length_increase=2)(h, x)
    assert [a.name for a in model.arguments] == ["h", "x"]
    path = str(tmp_path / "unfold.model")
    model.save(path)
    top = wire.read_file(path, "unfold")
    assert [pf.get("block_function_op_name") for pf in top["primitive_functions"]].count("Tuple") == 1
    loaded = C.load_model(path)
    assert [a.name for a in loaded.arguments] == ["h", "x"]
    hv, xv = np.array([[0.5, -0.5]], np.float32), [np.ones((2, 3), np.float32)]
    np.testing.assert_allclose(loaded.eval({loaded.arguments[0]: hv, loaded.arguments[1]: xv})[0],
                               model.eval({h: hv, x: xv})[0], rtol=1e-6)
    # a Tuple block of two inputs feeding two unrelated outputs: each output needs only its own input
    functions = [_function("Combine10", 44, ["Placeholder11", "Placeholder12"]),
                 _block("Block13", "Tuple", ["Input4", "Input3"], "Combine10", ["Placeholder11", "Placeholder12"]),
                 _function("Negate14", 0, ["Block13_Output_1"]), _function("Abs15", 8, ["Block13_Output_0"]),
                 _function("Combine16", 44, ["Negate14_Output_0", "Abs15_Output_0"])]
    inputs = [_variable("Input3", (2,), name="a"), _variable("Input4", (2,), name="b"),
              _variable("Placeholder11", (2,), kind=4), _variable("Placeholder12", (2,), kind=4)]
    f = C.load_model(_model_bytes(functions, inputs, "Combine16"))
    assert [a.name for a in f.arguments] == ["b", "a"]
    v = np.array([[1, -2]], np.float32)
    np.testing.assert_allclose(f.eval({f.arguments[1]: v}, outputs=[f.outputs[0]]), -v)



def _written_records(model, tmp_path):
    path = str(tmp_path / "m.model")
    model.save(path)
    with open(path, "rb") as f:
        assert f.read(1) == b"\x08"  # CNTK's v2 format, not this package's archive
    return wire.read_file(path, "m")["primitive_functions"], C.load_model(path)


def _same_outputs(model, loaded, feed):
    want = model.eval(feed, outputs=model.outputs)
    got = loaded.eval({a: feed[b] for a, b in zip(loaded.arguments, model.arguments)}, outputs=loaded.outputs)
    if not isinstance(want, dict):
        want, got = {model.output: want}, {loaded.output: got}
    for o, lo in zip(model.outputs, loaded.outputs):
        np.testing.assert_allclose(got[lo], want[o], rtol=1e-6, atol=1e-7)


def test_softmax_along_an_axis_is_written_as_cntks_softmax_block(tmp_path):
    """softmax(x, axis=0) of a matrix (attention models): CNTK 2.7 writes a 'Softmax' block of exp, max and sum
    along the axis (it was saved in the archive format, which CNTK cannot read)."""
    x = C.input_variable((3, 4))
    model = C.combine([C.softmax(x, axis=0), C.softmax(x)])
    records, loaded = _written_records(model, tmp_path)
    assert "Softmax" in [r.get("block_function_op_name") for r in records if r["op"] == 57]
    assert [r["op"] for r in records].count(10) == 1  # the softmax over the whole sample stays the primitive
    _same_outputs(model, loaded, {x: np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7})


def test_global_pooling_is_written_as_a_pooling_over_the_spatial_shape(tmp_path):
    """GlobalMaxPooling/GlobalAveragePooling: CNTK 2.7 writes Pooling records whose window is the operand's spatial
    shape, strides 1, no padding."""
    x = C.input_variable((2, 4, 5))
    model = C.splice(C.layers.GlobalMaxPooling()(x), C.layers.GlobalAveragePooling()(x), axis=0)
    records, loaded = _written_records(model, tmp_path)
    pools = [r for r in records if r["op"] == 17]
    assert [tuple(r["attributes"]["poolingWindowShape"]) for r in pools] == [(4, 5), (4, 5)]
    assert sorted(int(r["attributes"]["poolingType"]) for r in pools) == [0, 1]
    _same_outputs(model, loaded, {x: np.random.RandomState(1).randn(2, 2, 4, 5).astype(np.float32)})


def test_grouped_convolution_is_written_with_cntks_groups_attribute(tmp_path):
    x = C.input_variable((4, 6, 6))
    w = C.Parameter((4, 2, 3, 3), init=C.glorot_uniform(seed=1))
    model = C.convolution(w, x, groups=2, auto_padding=[False, True, True])
    records, loaded = _written_records(model, tmp_path)
    conv = [r for r in records if r["op"] == 33][0]
    assert int(conv["attributes"]["groups"]) == 2 and tuple(conv["attributes"]["kernelShape"]) == (2, 3, 3)
    _same_outputs(model, loaded, {x: np.random.RandomState(2).randn(2, 4, 6, 6).astype(np.float32)})


def test_splice_along_a_new_leading_axis_is_written_as_cntk_stores_it(tmp_path):
    """Axis.new_leading_axis(): CNTK 2.7 stores the static axis index one past the operands' rank."""
    x, y = C.input_variable((2, 3)), C.input_variable((2, 3))
    model = C.splice(x, y, axis=C.Axis.new_leading_axis())
    records, loaded = _written_records(model, tmp_path)
    assert records[0]["attributes"]["axis"].index == 2
    assert loaded.output.shape == (2, 2, 3)
    d = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    _same_outputs(model, loaded, {x: d, y: -d})


def test_reductions_without_kept_dimensions_are_written_as_cntk_runs_them(tmp_path):
    """reduce_sum(x, axis=1, keepdims=False): CNTK 2.7 runs ReduceElements over given axes only with kept
    dimensions (a record without them loads but fails to compute there); its Python API reshapes the result."""
    x = C.input_variable((2, 3, 4))
    model = C.combine([C.reduce_sum(x, axis=1, keepdims=False), C.reduce_mean(x, axis=(0, 2), keepdims=False)])
    records, loaded = _written_records(model, tmp_path)
    reductions = [r for r in records if r["op"] == 39]
    assert all(r["attributes"]["reductionKeepDimensions"] is True for r in reductions)
    assert sorted(tuple(r["attributes"]["newShape"]) for r in records if r["op"] == 16) == [(2, 4), (3,)]
    assert [o.shape for o in loaded.outputs] == [(2, 4), (3,)]
    _same_outputs(model, loaded, {x: np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)})


def _cntk_checkpoint(tmp_path, learner_state, values):
    """A checkpoint laid out as CNTK 2.7's Trainer.save_checkpoint writes it: the model file (the trainer's
    functions in CNTK's v2 format, here written by this package) and the .ckp Dictionary of the training state."""
    x, y = C.input_variable(3, name="x"), C.input_variable(2, name="y")
    z = C.layers.Dense(2, name="o")(C.layers.Dense(4, activation=C.relu, name="h")(x))
    for p in z.parameters:
        p.value = values[(p.name, p.shape)]
    loss = C.cross_entropy_with_softmax(z, y)
    path = str(tmp_path / "cntk.ckpt")
    C.combine([z, loss]).save(path)
    state = {"Version": SizeT(1), "ExternalState": {"epoch": SizeT(3)}, "DistributedState": {},
             "Learners": [learner_state]}
    with open(path + ".ckp", "wb") as f:
        f.write(dictionary_to_message(state).SerializeToString())
    return path


def _rebuilt_trainer(learner):
    x, y = C.input_variable(3, name="x"), C.input_variable(2, name="y")
    z = C.layers.Dense(2, name="o")(C.layers.Dense(4, activation=C.relu, name="h")(x))
    return z, C.Trainer(z, (C.cross_entropy_with_softmax(z, y), None), [learner(z.parameters)])


def test_a_cntk_checkpoint_restores_parameters_learner_state_and_counts(tmp_path):
    """Trainer.restore_from_checkpoint of a checkpoint CNTK 2.x wrote (not this package's own layout): parameter
    values from its model file (matched in walk order when the rebuilt model's uids differ), each learner's
    'smoothed_gradients' (k values per parameter stored as k blocks, here Adam's variance and mean), its sample,
    minibatch and smoothed counts, and the external state returned. (Checked against CNTK 2.7: momentum_sgd,
    sgd, adagrad, adam, fsadagrad and adadelta trainers with batch normalization continue with CNTK's losses.)"""
    rs = np.random.RandomState(0)
    shapes = [("o", "W", (4, 2)), ("o", "b", (2,)), ("h", "W", (3, 4)), ("h", "b", (4,))]
    values = {(n, s): rs.randn(*s).astype(np.float32) for _, n, s in shapes[:2]}
    values.update({(n, s): rs.randn(*s).astype(np.float32) for _, n, s in shapes[2:]})
    smoothed = [rs.randn(*((2,) + s)).astype(np.float32) for _, _, s in shapes]  # [variance, mean] per parameter
    learner_state = {"type": "Learner", "version": SizeT(3), "sample_count": SizeT(24), "minibatchCount": SizeT(3),
                     "sweepCount": SizeT(0), "smoothed_count": SizeT(3),
                     "smoothed_gradients": [v.reshape((-1,) + v.shape[2:]) for v in smoothed]}
    path = _cntk_checkpoint(tmp_path, learner_state, values)
    z, trainer = _rebuilt_trainer(lambda ps: C.adam(ps, C.learning_parameter_schedule(0.01),
                                                    C.momentum_schedule(0.9)))
    assert [(p.name, p.shape) for p in z.parameters] == [(n, s) for _, n, s in shapes]
    assert trainer.restore_from_checkpoint(path) == {"epoch": 3}
    for p in z.parameters:
        np.testing.assert_array_equal(p.value, values[(p.name, p.shape)])
    learner = trainer.parameter_learners[0]
    assert learner._sample_count == 24 and learner._minibatch_count == 3 and learner._smoothed_count == 3
    assert trainer.total_number_of_samples_seen == 24
    for group in learner._param_groups:
        for j, i in enumerate(group.indices):
            np.testing.assert_array_equal(group.state["variance"][j].numpy(), smoothed[i][0])
            np.testing.assert_array_equal(group.state["mean"][j].numpy(), smoothed[i][1])


def test_a_cntk_checkpoint_for_another_model_is_refused(tmp_path):
    rs = np.random.RandomState(0)
    learner_state = {"type": "Learner", "version": SizeT(3), "sample_count": SizeT(8), "minibatchCount": SizeT(1),
                     "sweepCount": SizeT(0), "smoothed_gradients": [np.zeros((1,), np.float32)] * 4}
    values = {("W", (4, 2)): rs.randn(4, 2), ("b", (2,)): rs.randn(2), ("W", (3, 4)): rs.randn(3, 4),
              ("b", (4,)): rs.randn(4)}
    path = _cntk_checkpoint(tmp_path, learner_state, {k: v.astype(np.float32) for k, v in values.items()})
    x, y = C.input_variable(3), C.input_variable(2)
    z = C.layers.Dense(2)(C.layers.Dense(5)(x))
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), None), [C.sgd(z.parameters, 0.1)])
    with pytest.raises(ValueError, match="do not match"):
        trainer.restore_from_checkpoint(path)


def test_explicit_pooling_pads_as_cntk_writes_them_for_onnx_imported_models(tmp_path):
    """CNTK 2.7 saves a model it imported from ONNX with the pads in its Pooling records (lowerPad/upperPad, auto
    padding off): they were refused on load. Max pooling 3x3, stride 2, pads 1 on each side of a 5x5 map (CNTK 2.7
    loads the same record; this package writes explicit pads back the same way)."""
    x = _variable("Input3", (1, 5, 5))
    pool = _function("Pooling4", 17, ["Input3"], {
        "poolingType": SizeT(0), "poolingWindowShape": Shape((3, 3)), "strides": Shape((2, 2)),
        "autoPadding": [False], "lowerPad": Shape((1, 1)), "upperPad": Shape((1, 1)), "ceilOutDim": False,
        "includePad": False})
    avg = _function("Pooling5", 17, ["Input3"], {
        "poolingType": SizeT(1), "poolingWindowShape": Shape((3, 3)), "strides": Shape((2, 2)),
        "autoPadding": [False], "lowerPad": Shape((1, 0)), "upperPad": Shape((0, 1)), "ceilOutDim": False,
        "includePad": False})
    model = C.load_model(_model_bytes([pool, avg, _function("Combine6", 44, ["Pooling4_Output_0",
                                                                             "Pooling5_Output_0"])],
                                      [x], "Combine6"))
    assert [o.shape for o in model.outputs] == [(1, 3, 3), (1, 2, 2)]
    d = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    got = model.eval({model.arguments[0]: d}, outputs=model.outputs)
    np.testing.assert_array_equal(got[model.outputs[0]][0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    # rows padded above, columns padded on the right; the average leaves the pads out
    p = np.pad(d[0, 0], ((1, 0), (0, 1)), constant_values=np.nan)
    want = [[np.nanmean(p[r:r + 3, c:c + 3]) for c in (0, 2)] for r in (0, 2)]
    np.testing.assert_allclose(got[model.outputs[1]][0, 0], want, rtol=1e-6)
    records, again = _written_records(model, tmp_path)
    assert [tuple(r["attributes"]["lowerPad"]) for r in records if r["op"] == 17] == [(1, 1), (1, 0)]
    _same_outputs(model, again, {model.arguments[0]: d})


def test_explicit_convolution_pads_load_and_are_written(tmp_path):
    """A Convolution record with lowerPad/upperPad (auto padding off): padded as given before a valid
    convolution; this package's own explicit pads (from ONNX imports) are written the same way."""
    w = dict(_variable("Parameter4", (1, 1, 2, 2), kind=2, axes=()), value=np.ones((1, 1, 2, 2), np.float32))
    conv = _function("Convolution5", 33, ["Parameter4", "Input3"], {
        "strides": Shape((1, 1, 1)), "sharing": [True], "autoPadding": [False], "dilation": Shape((1, 1, 1)),
        "lowerPad": Shape((0, 1, 0)), "upperPad": Shape((0, 0, 1)), "transpose": False, "sequential": False,
        "outputShape": Shape((0,)), "maxTempMemSizeInSamples": SizeT(0), "kernelShape": Shape((1, 2, 2)),
        "groups": SizeT(1)})
    model = C.load_model(_model_bytes([conv], [_variable("Input3", (1, 3, 3)), w], "Convolution5"))
    assert model.output.shape == (1, 3, 3)
    d = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    p = np.pad(d[0, 0], ((1, 0), (0, 1)))
    want = [[p[r:r + 2, c:c + 2].sum() for c in range(3)] for r in range(3)]
    np.testing.assert_allclose(model.eval({model.arguments[0]: d})[0, 0], want)
    records, again = _written_records(model, tmp_path)
    conv = [r for r in records if r["op"] == 33][0]["attributes"]
    assert tuple(conv["lowerPad"])[-2:] == (1, 0) and tuple(conv["upperPad"])[-2:] == (0, 1)
    _same_outputs(model, again, {model.arguments[0]: d})


def test_cosine_distance_with_negative_samples_has_cntks_op_name(tmp_path):
    x, y = C.input_variable(4), C.input_variable(4)
    f = C.cosine_distance_with_negative_samples(x, y, 1, 2)
    assert f.root_function.op_name == "CosDistanceWithNegativeSamples"  # CNTK 2.7's name of the primitive
    records, loaded = _written_records(f, tmp_path)
    assert [r["op"] for r in records] == [67]
    assert loaded.root_function.op_name == "CosDistanceWithNegativeSamples"


def test_a_graph_the_format_cannot_hold_still_saves(tmp_path):
    """local_response_normalization with a window wider than the channels (CNTK 2.7 clips it at run time): saving
    raised from inside the writer instead of falling back to this package's archive format."""
    x = C.input_variable((4, 3, 3))
    f = C.local_response_normalization(x, 2, 1.0, 1e-3, 0.75)
    path = str(tmp_path / "lrn.model")
    f.save(path)
    d = np.arange(36, dtype=np.float32).reshape(1, 4, 3, 3) / 10
    loaded = C.load_model(path)
    np.testing.assert_allclose(loaded.eval({loaded.arguments[0]: d}), f.eval({x: d}), rtol=1e-6)


def test_times_of_output_rank_0_is_written_as_cntk_can_load_it(tmp_path):
    """times(x, w, output_rank=0) (nce_loss's picks and logits): CNTK 2.7 refuses to load a Times record of output
    rank 0. With a constant/parameter w: w reshaped with an axis of 1, a Times of output rank 1, a Reshape; with a
    w that has dynamic axes: the sum of the elementwise product over w's axes. (CNTK 2.7 loads both and gives
    these numbers; nce_loss models now load there.)"""
    x, v = C.input_variable((2, 4), name="x"), C.input_variable(4, name="v")
    model = C.combine([C.times(x, C.constant(np.arange(4, dtype=np.float32)), output_rank=0),
                       C.times(x, v, output_rank=0)])
    records, loaded = _written_records(model, tmp_path)
    assert all(int(r["attributes"].get("outputRank", 1)) != 0 for r in records if r["op"] == 31)
    assert [o.shape for o in loaded.outputs] == [(2,), (2,)]
    d = np.arange(16, dtype=np.float32).reshape(2, 2, 4) / 3
    e = np.arange(8, dtype=np.float32).reshape(2, 4)[::-1].copy()
    got = loaded.eval({loaded.arguments[0]: d, loaded.arguments[1]: e}, outputs=loaded.outputs)
    np.testing.assert_allclose(got[loaded.outputs[0]], d @ np.arange(4), rtol=1e-6)
    np.testing.assert_allclose(got[loaded.outputs[1]], np.einsum("bij,bj->bi", d, e), rtol=1e-6)


@pytest.mark.parametrize("kernel_shape", [(2, 1, 3, 3), (2, 3, 3)])
def test_convolution_without_a_channel_axis_is_written_as_cntks_layer_writes_it(tmp_path, kernel_shape):
    """reduction_rank=0: CNTK 2.7's Convolution layer writes a Reshape giving the operand a channel axis of 1, then
    a plain Convolution (it was saved in the archive format); a kernel without that axis is reshaped too."""
    x = C.input_variable((6, 5))
    w = C.Parameter(kernel_shape, init=C.glorot_uniform(seed=3))
    model = C.convolution(w, x, strides=(2, 1), reduction_rank=0, auto_padding=[True])
    records, loaded = _written_records(model, tmp_path)
    assert [r["op"] for r in records].count(33) == 1 and 16 in [r["op"] for r in records]
    assert loaded.output.shape == model.output.shape
    _same_outputs(model, loaded, {x: np.random.RandomState(4).randn(2, 6, 5).astype(np.float32)})


def test_a_reduction_over_the_batch_axis_is_written_in_cntks_format(tmp_path):
    """reduce_mean/sum/max over Axis.default_batch_axis(): written as the ReduceElements record over the batch axis
    that CNTK 2.7 writes inside its MultiAxisReduce block (CNTK 2.7 loads it and gives these numbers)."""
    x = C.input_variable(3)
    batch = C.Axis.default_batch_axis()
    model = C.combine([C.reduce_mean(x, axis=batch), C.reduce_sum(x, axis=batch), C.reduce_max(x, axis=batch)])
    records, loaded = _written_records(model, tmp_path)
    assert [r["attributes"]["axisVec"][0].name for r in records if r["op"] == 39] == ["defaultBatchAxis"] * 3
    d = np.arange(12, dtype=np.float32).reshape(4, 3) / 5
    got = loaded.eval({loaded.arguments[0]: d}, outputs=loaded.outputs)
    for o, want in zip(loaded.outputs, (d.mean(0), d.sum(0), d.max(0))):
        assert o.shape == (3,) and o.dynamic_axes == ()
        np.testing.assert_allclose(got[o], want, rtol=1e-6)
