"""CTC as CNTK 2.7 defines it: labels_to_graph, forward_backward (losses and gradients, with and without the
delay constraint) and edit_distance_error. The golden numbers were computed by CNTK 2.7 itself on these inputs."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk_compat.core.serialization import model_bytes
from cntk_compat.ops._ctc_lattice import _lattice, _torch_ctc, phone_sequences

BLANK = 3
# (phone, frames) per utterance; the first frame of each phone carries 2 (HTKMLFDeserializer phoneBoundaries=True).
# The third repeats a phone; the fourth uses the blank's id as a phone.
UTTERANCES = [[(0, 3), (1, 4), (2, 2)], [(1, 5), (0, 1), (2, 4)], [(2, 2), (2, 3)], [(0, 1), (1, 1), (3, 2), (0, 2)]]
Z = [[[0.441, -0.331, 2.431, -0.252], [0.11, 1.582, -0.909, -0.592], [0.188, -0.33, -1.193, -0.205],
      [-0.359, 0.603, -1.665, -0.7], [1.151, 1.857, -1.511, 0.645], [-0.981, -0.857, -0.872, -0.423],
      [0.996, 0.712, 0.059, -0.363], [0.003, -0.106, 0.793, -0.632], [-0.006, -0.101, -0.052, 0.249]],
     [[0.198, 1.335, -0.087, 1.562], [-0.306, -0.478, 0.101, 0.355], [0.27, 1.292, 1.139, 0.494],
      [-0.336, -0.101, 1.413, 0.221], [-1.311, -0.69, -0.578, 1.152], [-0.107, 2.26, 0.657, 0.125],
      [-0.436, 0.972, -0.241, -0.824], [0.568, 0.013, 1.189, -0.074], [-2.86, 0.789, -1.878, 1.539],
      [1.821, -0.427, -1.165, -1.397]],
     [[0.873, -0.202, -0.598, -0.243], [2.089, 0.347, 0.746, 0.777], [1.018, 1.061, -0.71, -0.215],
      [-0.761, -0.711, 1.142, -0.502], [-0.079, -0.693, -0.593, 0.788]],
     [[-0.445, -0.482, 0.494, 0.5], [0.792, 0.171, -1.754, 0.63], [0.498, 1.018, -0.846, 2.521],
      [-1.232, 0.727, 0.046, -0.487], [0.816, -0.281, -2.336, -1.167], [0.458, 2.238, -1.481, -0.017]]]
# delayConstraint -> (loss of each utterance alone, loss of the four as one minibatch), from CNTK 2.7
LOSSES = {-1: ([6.29939, 9.32628, 5.48156, 7.30557], 28.4128),
          0: ([6.34753, 9.84065, 5.48156, 7.30557], 28.97531),
          1: ([6.38459, 10.00995, 5.50382, 7.30557], 29.20393),
          2: ([6.37378, 9.99466, 5.50382, 7.30557], 29.17784),
          4: ([6.37182, 9.99466, 5.48156, 7.30557], 29.15362)}
# gradient of the minibatch loss with respect to the network output, CNTK 2.7, delayConstraint=2
GRADIENT_DELAY_2 = [
    [[-0.639902, 0.049806, 0.788508, -0.198412], [-0.394973, 0.403605, 0.058083, -0.066715],
     [0.029036, -0.18193, 0.099605, 0.053288], [0.083019, -0.165734, 0.058577, 0.024137],
     [0.222703, -0.242009, 0.015013, 0.004293], [0.189474, -0.237425, 0.089391, -0.041439],
     [0.416409, -0.007817, -0.285678, -0.122914], [0.21598, 0.147814, -0.431357, 0.067563],
     [0.240681, 0.218869, -0.77014, 0.31059]],
    [[0.113879, 0.224308, 0.085639, -0.423826], [0.182733, -0.046362, 0.284473, -0.420844],
     [0.118578, -0.02113, 0.320946, -0.418394], [0.074318, -0.202938, 0.586714, -0.458094],
     [0.040844, -0.180319, 0.120844, 0.018632], [-0.063037, 0.062326, 0.128063, -0.127352],
     [-0.225537, 0.142693, 0.146168, -0.063324], [-0.525881, 0.142017, 0.411067, -0.027202],
     [-0.00707, 0.311286, -0.088532, -0.215685], [0.836027, 0.088293, -0.95779, 0.03347]],
    [[0.526709, 0.179765, -0.519608, -0.186866], [0.586334, 0.102708, -0.444622, -0.24442],
     [0.397932, 0.415416, -0.096478, -0.71687], [0.099474, 0.104574, -0.280443, 0.076395],
     [0.221286, 0.119756, -0.867649, 0.526607]],
    [[-0.795774, 0.135845, 0.360509, 0.299419], [0.317627, -0.673336, 0.031787, 0.323922],
     [0.095204, -0.51237, 0.024829, 0.392338], [0.072526, 0.514372, 0.260329, -0.847228],
     [-0.261392, 0.22048, 0.028242, 0.01267], [-0.870055, 0.770553, 0.018692, 0.080811]]]
# the same without constraint: the first utterance (CNTK 2.7)
GRADIENT_FIRST_UNCONSTRAINED = [
    [-0.641066, 0.049806, 0.788508, -0.197248], [-0.393049, 0.401262, 0.058083, -0.066297],
    [0.031645, -0.184063, 0.099403, 0.053015], [0.08552, -0.168025, 0.058114, 0.024391],
    [0.223871, -0.239499, 0.013961, 0.001666], [0.188525, -0.218421, 0.070545, -0.040649],
    [0.414587, 0.015218, -0.311087, -0.118717], [0.21598, 0.149279, -0.366311, 0.001051],
    [0.240681, 0.218869, -0.216265, -0.243285]]


def _labels(utterance, dim=4):
    rows = []
    for phone, frames in utterance:
        for k in range(frames):
            row = np.zeros(dim, np.float32)
            row[phone] = 2 if k == 0 else 1
            rows.append(row)
    return np.array(rows)


LABELS = [_labels(u) for u in UTTERANCES]
FEATURES = [np.array(z, np.float32) for z in Z]


def _criterion(delay, needs_gradient=False):
    labels = C.sequence.input_variable(4, name="labels")
    z = C.sequence.input_variable(4, needs_gradient=needs_gradient, name="z")
    return C.forward_backward(C.labels_to_graph(labels), z, BLANK, delay), labels, z


@pytest.mark.parametrize("delay", sorted(LOSSES))
def test_forward_backward_losses_are_cntks(delay):
    fb, labels, z = _criterion(delay)
    singles, together = LOSSES[delay]
    for i, expected in enumerate(singles):
        np.testing.assert_allclose(fb.eval({labels: [LABELS[i]], z: [FEATURES[i]]}), expected, rtol=2e-6)
    np.testing.assert_allclose(fb.eval({labels: LABELS, z: FEATURES}), together, rtol=2e-6)


def test_forward_backward_gradients_are_cntks():
    fb, labels, z = _criterion(2, needs_gradient=True)
    grads = fb.grad({labels: LABELS, z: FEATURES}, wrt=[z])
    for got, expected in zip(grads, GRADIENT_DELAY_2):
        np.testing.assert_allclose(got, expected, atol=2e-6)
    fb, labels, z = _criterion(-1, needs_gradient=True)
    np.testing.assert_allclose(fb.grad({labels: LABELS[:1], z: FEATURES[:1]}, wrt=[z])[0],
                               GRADIENT_FIRST_UNCONSTRAINED, atol=2e-6)


def test_forward_backward_gradient_is_the_loss_gradient_without_constraint():
    """Unconstrained, CNTK's gradient softmax - posterior is the exact gradient of the loss (float64 check)."""
    labels = C.sequence.input_variable(4, dtype=np.float64)
    z = C.sequence.input_variable(4, dtype=np.float64, needs_gradient=True)
    fb = C.forward_backward(C.labels_to_graph(labels), z, BLANK)
    feed_labels = [x.astype(np.float64) for x in LABELS[:3]]
    feats = [x.astype(np.float64) for x in FEATURES[:3]]
    grads = fb.grad({labels: feed_labels, z: feats}, wrt=[z])
    eps = 1e-6
    for s in range(3):
        for t, k in [(0, 0), (2, 1), (len(feats[s]) - 1, 3)]:
            up = [f.copy() for f in feats]
            down = [f.copy() for f in feats]
            up[s][t, k] += eps
            down[s][t, k] -= eps
            numeric = (fb.eval({labels: feed_labels, z: up}) - fb.eval({labels: feed_labels, z: down})) / (2 * eps)
            np.testing.assert_allclose(grads[s][t, k], numeric, atol=1e-6)


def test_labels_get_cntks_gradient_minus_log_softmax():
    labels = C.sequence.input_variable(4, needs_gradient=True)
    z = C.sequence.input_variable(4)
    fb = C.forward_backward(C.labels_to_graph(labels), z, BLANK)
    g = fb.grad({labels: LABELS[:1], z: FEATURES[:1]}, wrt=[labels])[0]
    x = FEATURES[0]
    log_softmax = x - np.log(np.exp(x).sum(1, keepdims=True))
    np.testing.assert_allclose(g, -log_softmax, rtol=1e-5)


def test_torch_kernel_and_lattice_agree_without_constraint():
    n = len(LABELS) - 1  # the fourth utterance uses the blank as a phone: the lattice alone handles it
    frames = max(len(x) for x in LABELS[:n])
    graph = torch.zeros(n, frames, 4)
    logp = torch.zeros(n, frames, 4)
    mask = torch.zeros(n, frames, dtype=torch.bool)
    for i in range(n):
        graph[i, :len(LABELS[i])] = torch.tensor(LABELS[i])
        logp[i, :len(LABELS[i])] = torch.log_softmax(torch.tensor(FEATURES[i]), -1)
        mask[i, :len(LABELS[i])] = True
    phones, starts, counts = phone_sequences(graph, mask)
    ll_torch, post_torch = _torch_ctc(logp, mask, phones, counts, mask.sum(1), BLANK)
    ll_lattice, post_lattice = _lattice(logp, mask, phones, starts, counts, mask.sum(1), BLANK, -1)
    np.testing.assert_allclose(ll_torch, ll_lattice, rtol=1e-5)
    np.testing.assert_allclose(post_torch, post_lattice, atol=1e-5)
    np.testing.assert_allclose(-ll_torch.numpy(), LOSSES[-1][0][:n], rtol=2e-6)


def test_one_frame_per_sample_without_a_sequence_axis():
    labels, z = C.input_variable(3), C.input_variable(3)
    eye = np.eye(3, dtype=np.float32)
    value = C.forward_backward(C.labels_to_graph(labels), z, 2).eval({labels: eye[[0, 1]] * 2, z: eye[[0, 1]]})
    np.testing.assert_allclose(value, 1.1028893, rtol=1e-6)  # CNTK 2.7


def test_labels_to_graph_passes_labels_through():
    labels = C.sequence.input_variable(3, needs_gradient=True)
    graph = C.labels_to_graph(labels)
    assert graph.shape == (3,) and graph.output.dynamic_axes == labels.dynamic_axes
    assert graph.root_function.op_name == "LabelsToGraph" and graph.root_function.attributes == {}
    data = [np.eye(3, dtype=np.float32)[[0, 2, 0]] * 2]
    np.testing.assert_array_equal(graph.eval({labels: data})[0], data[0])
    g = C.reduce_sum(graph * C.constant([1., 2., 3.])).grad({labels: data})
    np.testing.assert_allclose(g[0], [[1, 2, 3]] * 3)


def test_forward_backward_attributes_shape_and_errors():
    fb, labels, z = _criterion(3)
    assert fb.shape == () and fb.output.dynamic_axes == ()
    assert fb.root_function.op_name == "ForwardBackward"
    assert fb.root_function.attributes == {"BlankTokenId": 3, "DelayConstraint": 3}
    with pytest.raises(ValueError, match="labels_to_graph"):
        C.forward_backward(labels, z, BLANK)
    with pytest.raises(ValueError, match="same total size"):
        C.forward_backward(C.labels_to_graph(labels), C.sequence.input_variable(5), BLANK)
    with pytest.raises(ValueError, match="blankTokenId 4 is out of range"):
        C.forward_backward(C.labels_to_graph(labels), z, 4)
    with pytest.raises(ValueError, match="delayConstraint"):
        C.forward_backward(C.labels_to_graph(labels), z, BLANK, -2)
    with pytest.raises(ValueError, match="same dynamic axes"):
        C.forward_backward(C.labels_to_graph(labels), C.sequence.input_variable(4, sequence_axis=C.Axis("b")), 3)


def test_ctc_model_saves_loads_clones_and_prints(tmp_path):
    fb, labels, z = _criterion(2)
    ed = C.edit_distance_error(z, labels, 2, 1, 0.5, True, [3])
    model = C.combine([fb, ed])
    feed = {labels: LABELS, z: FEATURES}
    expected = [np.asarray(v) for v in model.eval(feed).values()]
    np.testing.assert_allclose(expected[0], LOSSES[2][1], rtol=2e-6)

    def evaluated(f):
        return [np.asarray(v) for v in f.eval({a: feed[labels if a.name == "labels" else z]
                                               for a in f.arguments}).values()]
    model.save(str(tmp_path / "m.cntk"))  # CNTK's v2 format, records ForwardBackward/LabelsToGraph/EditDistanceError
    for saved in (str(tmp_path / "m.cntk"), model_bytes(model)):  # and this package's archive
        loaded = C.load_model(saved)
        assert [o.owner.op_name for o in loaded.outputs] == ["ForwardBackward", "EditDistanceError"]
        np.testing.assert_allclose(evaluated(loaded), expected, rtol=1e-6)
    np.testing.assert_allclose(evaluated(model.clone(C.CloneMethod.share)), expected, rtol=1e-6)
    assert "ForwardBackward" in str(fb.root_function)


# ------------------------------------------------------------------------------------------ edit_distance_error
def _one_hot(sequence, dim=4):
    return np.eye(dim, dtype=np.float32)[sequence]


A = [_one_hot([0, 3, 0, 1, 3, 1, 1, 2]), _one_hot([2, 2, 1, 3])]
B = [_one_hot([3, 0, 0, 3, 3, 0, 1, 1]), _one_hot([2, 1, 1, 0])]


@pytest.mark.parametrize("penalties, squash, ignore, together, alone", [
    ((1, 1, 1), False, [], 7.0, [5.0, 2.0]),
    ((1, 1, 1), True, [], 7.5, [6.4, 4 / 3]),
    ((1, 1, 1), True, [3], 6.0, [16 / 3, 4 / 3]),
    ((2, 1, 1), False, [], 7.0, [5.0, 2.0]),
    ((1, 2, 3), False, [], 7.0, [5.0, 2.0]),
    ((0, 1, 1), True, [1], 6.0, [4.0, 2.0]),
    ((3, 1, 1), False, [], 10.0, [6.0, 4.0]),
    ((1, 1, 1), False, [0, 3], 7.2, [8.0, 4 / 3]),
    ((1, 5, 1), True, [], 7.5, [6.4, 4 / 3]),
])
def test_edit_distance_error_is_cntks(penalties, squash, ignore, together, alone):
    """CNTK 2.7's values: operations * frames / (labels input_b keeps)."""
    a, b = C.sequence.input_variable(4), C.sequence.input_variable(4)
    f = C.edit_distance_error(a, b, *penalties, squashInputs=squash, tokensToIgnore=ignore)
    np.testing.assert_allclose(f.eval({a: A, b: B}), together, rtol=1e-6)
    for x, y, expected in zip(A, B, alone):
        np.testing.assert_allclose(f.eval({a: [x], b: [y]}), expected, rtol=1e-6)


def test_edit_distance_error_edges_and_attributes():
    a, b = C.sequence.input_variable(4), C.sequence.input_variable(4)
    f = C.edit_distance_error(a, b, 1, 1, 1, True, [3])
    np.testing.assert_allclose(f.eval({a: [_one_hot([3, 3, 3])], b: [_one_hot([0, 1, 2])]}), 3.0)
    assert np.isinf(f.eval({a: [_one_hot([0, 1, 2])], b: [_one_hot([3, 3, 3])]}))  # input_b keeps no label
    assert f.root_function.attributes == {"SubstitutionPenalty": 1.0, "DeletionPenalty": 1.0,
                                          "InsertionPenalty": 1.0, "SquashInputs": True, "TokensToIgnore": [3]}
    with pytest.raises(ValueError, match="same dynamic axes"):
        C.edit_distance_error(a, C.sequence.input_variable(4, sequence_axis=C.Axis("other")))
    with pytest.raises(ValueError, match="tokensToIgnore"):
        C.edit_distance_error(a, b, tokensToIgnore=[-1])


def test_an_utterance_no_alignment_explains_costs_1e11_with_cntks_finite_gradient():
    """Two equal phones in two frames leave no room for the blank between them: CNTK 2.7 reports 1e11 (its log
    zero) and a finite gradient instead of infinity and NaN."""
    labels, z = C.sequence.input_variable(3), C.sequence.input_variable(3, needs_gradient=True)
    eye = np.eye(3, dtype=np.float32)
    feats = np.array([[0.1, 0.5, -0.3], [0.2, -0.1, 0.4], [1.0, 0.3, 0.2]], np.float32)
    expected = {-1: [[0.0305, 0.3289, -0.3594], [0.0519, 0.1072, -0.1591], [0.1806, 0.0885, -0.2691]],
                1: [[-0.0171, 0.3051, -0.288], [0.0043, 0.0834, -0.0877], [0.1139, 0.0552, -0.1691]]}
    for delay, gradient in expected.items():
        fb = C.forward_backward(C.labels_to_graph(labels), z, 2, delay)
        feed = {labels: [eye[[0, 0, 1]] * 2, eye[[1, 0]] * 2], z: [feats, feats[:2]]}
        g, v = fb.grad(feed, wrt=[z], outputs=[fb])
        np.testing.assert_allclose(v, 1e11, rtol=1e-6)
        np.testing.assert_allclose(g[0], gradient, atol=1e-4)
        np.testing.assert_allclose(g[1], [[0.3162, -0.5282, 0.212], [-0.6624, 0.2501, 0.4123]], atol=1e-4)
