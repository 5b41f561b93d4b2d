"""Reading CNTK's v2 model format: real files written by CNTK (../shared/legacy_models, outputs computed by
real CNTK 2.7), and hand-built Dictionaries for the error cases."""
import json
import os

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.model_formats import cntk_proto as P
from cntk_compat.model_formats.cntkv2_values import Shape, SizeT, StoredAxis, dictionary_to_message

LEGACY = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "legacy_models")
LEGACY = os.environ.get("CNTK_LEGACY_MODELS", os.path.normpath(LEGACY) if os.path.isdir(LEGACY)
                        else "/work/shared/legacy_models")
EVALUATED = ["v2_abs_load_and_eval", "v2_atis_lstm_tagger", "v2_batchnorm_conv_5input", "v2_book_gru_stacked",
             "v2_book_lstm_textgen", "v2_convnet_cifar10_beta", "v2_csharp_mnist_conv", "v2_deeprl_policy_mlp",
             "v2_node_mnist_conv", "v2_seq2seq_cmudict_beta"]


def _legacy(name):
    d = os.path.join(LEGACY, name)
    if not os.path.isdir(d):
        pytest.skip("CNTK-written model files not found (%s)" % d)
    return d, json.load(open(os.path.join(d, "manifest.json")))


def evaluate_case(model, d, man, case):
    if man.get("placeholder_args_replaced_with_float32_sequence_inputs"):
        model.replace_placeholders({p: C.sequence.input_variable(p.shape, np.float32, name=p.name)
                                    for p in model.arguments if p.is_placeholder})
    args = list(model.arguments)
    sel = man["output"]
    named = [o for o in model.outputs if sel.get("name") and o.name == sel["name"]]
    out = named[0] if len(named) == 1 else model.outputs[sel.get("index", 0)]
    feed = {}
    for inp in case["inputs"]:
        cand = [a for a in args if inp["name"] and a.name == inp["name"]]
        arg = cand[0] if len(cand) == 1 else args[inp["index"]]
        v = np.load(os.path.join(d, inp["file"]))
        if inp.get("one_hot_sparse"):
            v = C.Value.one_hot([np.argmax(x, -1).tolist() for x in v], int(arg.shape[-1]))
        feed[arg] = v
    res = model.eval(feed, outputs=[out])
    if isinstance(res, list):
        res = np.stack([np.asarray(r) for r in res])
    return np.asarray(res, np.float32)


@pytest.mark.parametrize("name", EVALUATED)
def test_cntk_written_model_matches_cntk27(name):
    d, man = _legacy(name)
    model = C.load_model(os.path.join(d, man["model"]))
    for case in man["cases"]:
        expected = np.load(os.path.join(d, case["expected_cntk27"]))
        got = evaluate_case(model, d, man, case)
        np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-5)


def test_names_uids_and_blocks_are_kept():
    d, man = _legacy("v2_deeprl_policy_mlp")
    with open(os.path.join(d, man["model"]), "rb") as f:
        model = C.Function.load(f.read())  # from a memory buffer too
    assert model.uid == "CompositeFunction147"
    assert model.root_function.uid == "Block146" and model.root_function.op_name == "Dense"
    assert model.root_function.is_block
    params = sorted((p.uid, p.name, p.shape) for p in model.parameters)
    assert params == [("Parameter49", "W", (2, 3)), ("Parameter5", "W", (2, 2)), ("Parameter50", "b", (3,)),
                      ("Parameter6", "b", (2,))]
    # column-major storage: the file's [3, 2] W is (2, 3) here, its values C-ordered over that shape
    assert [a.name for a in model.arguments[0].dynamic_axes] == ["defaultBatchAxis", "defaultDynamicAxis"]
    assert C.Parameter((1,)).uid not in {p.uid for p in model.parameters}


def _model_bytes(primitive_functions, inputs, root):
    top = {"version": SizeT(3), "type": "CompositeFunction", "uid": "CompositeFunction9", "root": root,
           "inputs": inputs, "primitive_functions": primitive_functions}
    return dictionary_to_message(top).SerializeToString()


def _input_record(uid, shape):
    return {"version": SizeT(1), "type": "Variable", "uid": uid, "kind": SizeT(0), "data_type": SizeT(1),
            "is_sparse": False, "needs_gradient": False, "name": "x", "shape": Shape(shape),
            "dynamic_axis": [StoredAxis(2 ** 31 - 1, "defaultDynamicAxis", True),
                             StoredAxis(2 ** 31 - 1, "defaultBatchAxis", False)]}


def test_unknown_op_code_names_the_function():
    data = _model_bytes([{"version": SizeT(1), "type": "PrimitiveFunction", "uid": "Weird1", "op": SizeT(150),
                          "inputs": ["Input0"], "attributes": {}}], [_input_record("Input0", (2,))], "Weird1")
    with pytest.raises(ValueError, match="Weird1.*code 150"):
        C.load_model(data)


def test_user_function_needs_a_registered_deserializer():
    udf = {"version": SizeT(1), "type": "UserDefinedFunction", "uid": "MyOp3", "op_name": "MyOp",
           "inputs": ["Input0"], "attributes": {}, "state": {}}
    data = _model_bytes([udf], [_input_record("Input0", (2,))], "MyOp3")
    with pytest.raises(ValueError, match="register_udf_deserialize_callback\\('MyOp'"):
        C.load_model(data)


def test_a_dictionary_that_is_not_a_model():
    data = dictionary_to_message({"learner": SizeT(1)}).SerializeToString()
    data = bytes([0x08, 0x01]) + data[2:] if data[:2] != b"\x08\x01" else data
    with pytest.raises(ValueError):
        C.load_model(data)


def test_descriptor_parses_its_own_output():
    m = dictionary_to_message({"s": Shape((3, 4)), "v": [SizeT(1), "a"], "t": np.arange(6, dtype=np.float32)
                               .reshape(2, 3)})
    again = P.Dictionary()
    again.ParseFromString(m.SerializeToString())
    assert list(again.data["s"].nd_shape_value.shape_dim) == [4, 3]  # stored innermost first
    assert list(again.data["t"].nd_array_view_value.float_values.value) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("name", EVALUATED)
def test_real_file_load_save_load_keeps_graph_and_values(name, tmp_path):
    d, man = _legacy(name)
    model = C.load_model(os.path.join(d, man["model"]))
    path = str(tmp_path / "again.model")
    model.save(path)
    again = C.load_model(path)
    assert sorted((p.name, p.shape) for p in again.parameters) == sorted((p.name, p.shape) for p in model.parameters)
    for p in again.parameters:
        q = [m for m in model.parameters if m.uid == p.uid]
        if q:
            np.testing.assert_array_equal(p.value, q[0].value)
    for case in man["cases"]:
        expected = np.load(os.path.join(d, case["expected_cntk27"]))
        got = evaluate_case(again, d, man, case)
        np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-5)


def test_cudnn_lstm_file_loads_and_computes_what_cntks_converter_computes():
    # CNTK 2.7 cannot run OptimizedRNNStack on CPU (no stored output); 0.203851 is what CNTK 2.7 computes for
    # the stored input after its own convert_optimized_rnnstack
    d, man = _legacy("v2_pscntk_lstm_optimizedrnn")
    model = C.load_model(os.path.join(d, man["model"]))
    stack = [f for f in C.logging.graph.depth_first_search(model, lambda f: True, depth=-1)
             if getattr(f, "op_name", None) == "OptimizedRNNStack"]
    assert len(stack) == 1 and stack[0].attributes == {"hiddenSize": 300, "numLayers": 1, "bidirectional": False,
                                                       "recurrentOp": "lstm"}
    got = model.eval({model.arguments[0]: np.load(os.path.join(d, "case0_input_0.npy"))})
    np.testing.assert_allclose(np.asarray(got).reshape(-1), [0.20385104], rtol=1e-4, atol=1e-5)


def _constant_model(storage_format, values):
    from cntk_compat.model_formats import cntk_proto as P
    top = {"version": SizeT(3), "type": "CompositeFunction", "uid": "CompositeFunction9", "root": "Negate1",
           "inputs": [{"version": SizeT(1), "type": "Variable", "uid": "Constant0", "kind": SizeT(3),
                       "data_type": SizeT(1), "is_sparse": True, "needs_gradient": False, "name": "c",
                       "shape": Shape((2, 3)), "dynamic_axis": [], "value": np.zeros((2, 3), np.float32)}],
           "primitive_functions": [{"version": SizeT(1), "type": "PrimitiveFunction", "uid": "Negate1",
                                    "op": SizeT(0), "inputs": ["Constant0"], "attributes": {}}]}
    message = dictionary_to_message(top)
    view = [e for e in message.data["inputs"].vector_value.value][0].dictionary_value.data["value"]
    view.nd_array_view_value.storage_format = storage_format
    del view.nd_array_view_value.float_values.value[:]
    view.nd_array_view_value.float_values.value.extend(values)
    assert isinstance(message, P.Dictionary)
    return message.SerializeToString()


def test_a_sparse_flagged_constant_with_dense_values_loads():
    # CNTK's serializer writes every tensor's values densely, whatever its storage format
    values = [0, 1, 0, 2, 0, 0]
    model = C.load_model(_constant_model(1, values))
    np.testing.assert_array_equal(model.eval(), -np.array(values, np.float32).reshape(2, 3))
    with pytest.raises(ValueError, match="sparse stored tensor \\(storage format 1\\) holds 2 values, not the 6"):
        C.load_model(_constant_model(1, [1, 2]))


_CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")
_ORACLE_WRITES = r'''
import sys, os, numpy as np, cntk as C
out = sys.argv[1]
s = C.sequence.input_variable(3, name='s')
x = C.input_variable((2, 4, 4), name='x')
m = C.input_variable((3, 4), name='m', dynamic_axes=[])
cond = C.greater(C.reduce_sum(s, 0), 0)
cases = {
    'first': C.sequence.first(s), 'last': C.sequence.last(s), 'slice': C.sequence.slice(s, 1, -1),
    'gather': C.sequence.gather(s, cond), 'scatter': C.sequence.scatter(C.sequence.gather(s, cond), cond),
    'where': C.sequence.where(cond), 'softmax': C.sequence.softmax(s),
    'gather_single_step': C.sequence.gather(s, C.sequence.is_last(s), new_sequence_axis_typeinfo=(0, 1)),
    'to_sequence': C.to_sequence(C.reshape(x, (8, 4))), 'to_sequence_like': C.to_sequence_like(C.reshape(x[0], (4, 4)), s),
    'pad': C.pad(x, [(0, 0), (1, 2), (2, 1)], mode=C.ops.CONSTANT_PAD, constant_value=0.5),
    'pad_reflect': C.pad(x, [(0, 0), (1, 1), (1, 1)], mode=C.ops.REFLECT_PAD),
    'crop': C.crop_manual(x, C.constant(np.ones((2, 2, 3), np.float32)), 1, 2),
    'eye_like': C.eye_like(m, False), 'zeros_like': C.zeros_like(x), 'ones_like': C.ones_like(x),
    'roipooling': C.roipooling(x, C.reconcile_dynamic_axes(C.constant(np.array([[0, 0, 3, 2], [1, 0, 4, 3]],
                                                                                np.float32)), x), C.MAX_POOLING, (2, 2), 1.0),
    'cosine_negative': C.cosine_distance_with_negative_samples(C.reshape(x, (32,)), C.reshape(x, (32,)) * 2 + 1, 1, 1),
    'sequential_convolution': C.convolution(C.parameter((2, 1, 3, 2), init=C.glorot_uniform(seed=1)), C.reshape(s, (1, 3)),
                                            sequential=True, auto_padding=[False, True, False]),
    'sequential_convolution_strided': C.relu(C.convolution(C.parameter((3, 1, 2, 2), init=C.glorot_uniform(seed=2)),
                                                           C.reshape(s, (1, 3)), sequential=True, strides=(1, 2, 1),
                                                           auto_padding=[False, False, True])) + 1,
}
rng = np.random.RandomState(0)
data = {'s': [rng.uniform(-1, 1, (4, 3)).astype(np.float32), rng.uniform(-1, 1, (3, 3)).astype(np.float32)],
        'x': rng.uniform(-1, 1, (2, 2, 4, 4)).astype(np.float32), 'm': rng.uniform(-1, 1, (3, 4)).astype(np.float32)}
for k in ('x', 'm'):
    np.save(os.path.join(out, k + '.npy'), data[k])
for i, seq in enumerate(data['s']):
    np.save(os.path.join(out, 's%d.npy' % i), seq)
for k, f in cases.items():
    f.save(os.path.join(out, k + '.model'))
    r = f.eval({a: data[a.name] for a in f.arguments})
    for i, v in enumerate(r if isinstance(r, list) else [r]):
        np.save(os.path.join(out, '%s.%d.npy' % (k, i)), np.asarray(v, np.float64))
'''


def test_cntk27_written_sequence_pad_crop_and_constant_ops_load_and_match(tmp_path):
    """Files CNTK 2.7 writes for sequence.first/last/slice/gather/scatter/where/softmax (Where -> PackedIndex ->
    GatherPacked chains), to_sequence(_like), Pad, Crop, EyeLike, ConstantOp, ROIPooling and
    CosDistanceWithNegativeSamples records, and convolution(..., sequential=True) (a ConvolutionSequenceShape /
    UnpackSequence / TransposeAxes / Convolution / ToSequence graph)."""
    import subprocess
    if not os.path.exists(_CNTK27):
        pytest.skip("real CNTK 2.7 is not installed")
    script = tmp_path / "oracle.py"
    script.write_text(_ORACLE_WRITES)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([_CNTK27, str(script), str(tmp_path)], cwd=str(tmp_path), env=env, check=True,
                   capture_output=True, timeout=600)
    data = {"x": np.load(str(tmp_path / "x.npy")), "m": np.load(str(tmp_path / "m.npy")),
            "s": [np.load(str(tmp_path / ("s%d.npy" % i))) for i in range(2)]}
    names = sorted(p.name[:-6] for p in tmp_path.glob("*.model"))
    assert len(names) == 20
    for k in names:
        model = C.load_model(str(tmp_path / (k + ".model")))
        if k == "gather_single_step":  # typeinfo (0, 1): one step per sequence, no sequence axis
            assert model.output.dynamic_axes == (C.Axis.default_batch_axis(),)
        got = model.eval({a: data[a.name] for a in model.arguments})
        want = []
        while (tmp_path / ("%s.%d.npy" % (k, len(want)))).exists():
            want.append(np.load(str(tmp_path / ("%s.%d.npy" % (k, len(want))))))
        # one array per sequence (or one array): the same values in the same order
        got = [np.asarray(g, np.float64) for g in (got if isinstance(got, list) else [got])]
        assert sum(g.size for g in got) == sum(w.size for w in want), k
        np.testing.assert_allclose(np.concatenate([g.ravel() for g in got]),
                                   np.concatenate([w.ravel() for w in want]), rtol=1e-5, atol=1e-6, err_msg=k)
