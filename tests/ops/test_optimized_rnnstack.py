"""optimized_rnnstack (CNTK's cuDNN RNN stack) on CPU: golden numbers from real CNTK 2.7 (computed through its own
convert_optimized_rnnstack, since CNTK 2.7 ran the stack on GPUs only), weight-size inference, errors, the
converter to layers, and CNTK-written stacks (where the oracle is installed)."""
import os
import subprocess

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.misc import convert_optimized_rnnstack

CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")

# (recurrent_op, num_layers, bidirectional, hidden_size) -> CNTK 2.7's outputs for the two sequences of _inputs()
GOLDEN = {
    ("lstm", 2, True, 2): [
        [[0.128549, 0.037376, -0.16396, -0.078315], [0.200429, 0.069083, -0.158762, -0.074147],
         [0.239866, 0.092956, -0.136797, -0.049906]],
        [[0.133552, 0.031928, -0.140459, -0.045561]]],
    ("rnnTanh", 1, True, 3): [
        [[0.04362, 0.25184, -0.028447, 0.393671, -0.092921, -0.647882],
         [0.586426, 0.116142, -0.581213, 0.258472, 0.07489, -0.481097],
         [-0.427867, 0.443801, 0.240629, 0.380965, -0.74729, 0.032488]],
        [[0.033691, -0.151156, 0.425691, -0.099622, -0.45289, 0.058834]]],
    ("rnnReLU", 2, False, 3): [
        [[0.367574, 0.0, 0.0], [0.0, 0.205969, 0.0], [0.446085, 0.113389, 0.0]],
        [[0.225546, 0.047296, 0.0]]],
}


def _inputs():
    rng = np.random.RandomState(3)
    return [rng.uniform(-1, 1, (3, 3)).astype(np.float32), rng.uniform(-1, 1, (1, 3)).astype(np.float32)]


def _stack(op, layers, bidirectional, hidden):
    x = C.sequence.input_variable(3, name="x")
    w = C.parameter((C.InferredDimension, hidden), name="W")
    f = C.optimized_rnnstack(x, w, hidden, layers, bidirectional=bidirectional, recurrent_op=op, name="rnn")
    w.value = np.random.RandomState(4).uniform(-0.5, 0.5, w.shape).astype(np.float32)
    return f, x, w


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_matches_cntk27(key):
    f, x, w = _stack(*key)
    got = f.eval({x: _inputs()})
    assert len(got) == 2
    for g, want in zip(got, GOLDEN[key]):
        np.testing.assert_allclose(g, np.array(want, np.float32), atol=2e-6)


def test_weight_size_is_inferred_as_cntk_does():
    # CNTK 2.7: (InferredDimension, 7) over inputs of 3 -> (48, 7) for an LSTM, (36, 7) GRU, (12, 7) RNN;
    # a 2-layer bidirectional GRU of hidden size 7 -> (210, 7), output 14
    x = C.sequence.input_variable(3)
    for op, rows in (("lstm", 48), ("gru", 36), ("rnnReLU", 12), ("rnnTanh", 12)):
        w = C.parameter((C.InferredDimension, 7))
        f = C.optimized_rnnstack(x, w, 7, 1, recurrent_op=op)
        assert w.shape == (rows, 7) and f.output.shape == (7,)
        assert f.root_function.attributes == {"hiddenSize": 7, "numLayers": 1, "bidirectional": False,
                                              "recurrentOp": op}
    w = C.parameter((C.InferredDimension, 7))
    f = C.optimized_rnnstack(x, w, 7, 2, bidirectional=True, recurrent_op="gru")
    assert w.shape == (210, 7) and f.output.shape == (14,)


def test_gru_is_torch_gru_with_cudnn_weights():
    import torch
    f, x, w = _stack("gru", 2, True, 4)
    flat = torch.from_numpy(np.asarray(w.value).reshape(-1))
    ref = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    # cuDNN order: every layer's and direction's two matrices first, then their two biases
    names = [n for n in ref._flat_weights_names]
    mats = [n for n in names if n.startswith("weight")]
    biases = [n for n in names if n.startswith("bias")]
    offset = 0
    with torch.no_grad():
        for n in mats + biases:
            p = getattr(ref, n)
            p.copy_(flat[offset:offset + p.numel()].reshape(p.shape))
            offset += p.numel()
    assert offset == flat.numel()
    seqs = _inputs()
    got = f.eval({x: seqs})
    for g, s in zip(got, seqs):
        np.testing.assert_allclose(g, ref(torch.from_numpy(s)[None])[0][0].detach().numpy(), atol=1e-6)


def test_trains_the_flat_weight():
    f, x, w = _stack("lstm", 1, False, 2)
    before = np.array(w.value)
    loss = C.sequence.reduce_sum(C.reduce_sum(C.square(f)))
    learner = C.sgd(f.parameters, C.learning_parameter_schedule(0.5))
    trainer = C.Trainer(f, (loss, None), [learner])
    trainer.train_minibatch({x: _inputs()})
    assert not np.allclose(np.asarray(w.value), before)


def test_a_non_sequence_operand_is_one_step():
    x = C.input_variable(3)
    w = C.parameter((C.InferredDimension, 2), init=C.glorot_uniform(seed=1))
    f = C.optimized_rnnstack(x, w, 2, 1)
    s = C.sequence.input_variable(3)
    g = C.optimized_rnnstack(s, w, 2, 1)
    data = np.random.RandomState(0).uniform(-1, 1, (2, 3)).astype(np.float32)
    np.testing.assert_allclose(f.eval({x: data}), np.concatenate(g.eval({s: [data[:1], data[1:]]})), atol=1e-6)


def test_errors_name_the_problem():
    x = C.sequence.input_variable(3)
    with pytest.raises(ValueError, match="recurrent_op value 'relu'"):
        C.optimized_rnnstack(x, C.parameter((C.InferredDimension, 2)), 2, 1, recurrent_op="relu")
    with pytest.raises(ValueError, match="needs 56 weights, but the weights \\(5, 2\\) hold 10"):
        C.optimized_rnnstack(x, C.parameter((5, 2)), 2, 1)
    with pytest.raises(ValueError, match="rank 1"):
        C.optimized_rnnstack(C.sequence.input_variable((2, 3)), C.parameter((C.InferredDimension, 2)), 2, 1)
    with pytest.raises(ValueError, match="num_layers"):
        C.optimized_rnnstack(x, C.parameter((C.InferredDimension, 2)), 2, 0)


@pytest.mark.parametrize("key", [k for k in sorted(GOLDEN)])
def test_converter_builds_layers_computing_the_same(key):
    f, x, w = _stack(*key)
    converted = convert_optimized_rnnstack(f)
    assert not [n for n in C.logging.graph.depth_first_search(converted, lambda n: True, depth=-1)
                if getattr(n, "op_name", None) == "OptimizedRNNStack"]
    seqs = _inputs()
    for g, want in zip(converted.eval({converted.arguments[0]: seqs}), GOLDEN[key]):
        np.testing.assert_allclose(g, np.array(want, np.float32), atol=2e-6)


def test_converter_refuses_gru_as_cntk_does():
    f, _, _ = _stack("gru", 1, False, 2)
    with pytest.raises(ValueError, match="unsupported recurrent_op value 'gru'"):
        convert_optimized_rnnstack(f)


_ORACLE = r'''
import sys, numpy as np, cntk as C
from cntk.misc.optimized_rnnstack_converter import convert_optimized_rnnstack
folder = sys.argv[1]
x = C.sequence.input_variable(2, name="x")
w = C.parameter((C.InferredDimension, 3), name="W")
f = C.optimized_rnnstack(x, w, 3, 2, bidirectional=True, recurrent_op="lstm", name="rnn")
w.value = np.random.RandomState(5).uniform(-0.5, 0.5, w.shape).astype(np.float32)
f.save(folder + "/stack.model")
seqs = [np.load(folder + "/s%d.npy" % i) for i in range(2)]
c = convert_optimized_rnnstack(f)
for i, r in enumerate(c.eval({c.arguments[0]: seqs})):
    np.save(folder + "/out%d.npy" % i, r)
'''


@pytest.mark.skipif(not os.path.exists(CNTK27), reason="real CNTK 2.7 (the oracle) is not installed")
def test_a_stack_written_by_cntk27_loads_and_computes_what_cntk_computes(tmp_path):
    rng = np.random.RandomState(6)
    seqs = [rng.uniform(-1, 1, (5, 2)).astype(np.float32), rng.uniform(-1, 1, (2, 2)).astype(np.float32)]
    for i, s in enumerate(seqs):
        np.save(str(tmp_path / ("s%d.npy" % i)), s)
    script = tmp_path / "oracle.py"
    script.write_text(_ORACLE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([CNTK27, str(script), str(tmp_path)], cwd=str(tmp_path), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    model = C.load_model(str(tmp_path / "stack.model"))
    assert model.root_function.op_name == "OptimizedRNNStack" and model.parameters[0].shape == (144, 3)
    got = model.eval({model.arguments[0]: seqs})
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, np.load(str(tmp_path / ("out%d.npy" % i))), atol=1e-6)
