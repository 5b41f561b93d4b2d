"""Reading CNTK's legacy v1 model format (CNTK 1.x / BrainScript files): real files written by CNTK
(../shared/legacy_models, outputs computed by real CNTK 2.7 from them), their outputs as CNTK 2.7 lists them,
saving them again in CNTK's v2 format, and errors naming the node and byte offset."""
import os

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.model_formats.cntkv1_stream import V1FormatError

from .test_cntkv2_read import LEGACY, _legacy, evaluate_case

# outputs as CNTK 2.7 lists them for each file (criteria, evaluation and output nodes, sorted by name)
V1_MODELS = {
    "v1_brainscript_lr_reg": ["err", "lr", "p"],
    "v1_onehidden_bn_mnist": ["ce", "errs", "ol.z", "top5Errs"],
    "v1_resnet20_cifar10": ["ce", "errs", "top5Errs", "z"],
    "v1_slu_forward_lstm": ["ce", "errs", "z"],
}


def _check_cases(model, d, man):
    for case in man["cases"]:
        expected = np.load(os.path.join(d, case["expected_cntk27"]))
        got = evaluate_case(model, d, man, case)
        np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("name", sorted(V1_MODELS))
def test_cntk_v1_model_matches_cntk27(name):
    d, man = _legacy(name)
    model = C.load_model(os.path.join(d, man["model"]))
    assert [o.name for o in model.outputs] == V1_MODELS[name]
    _check_cases(model, d, man)


@pytest.mark.parametrize("name", ["v1_brainscript_lr_reg", "v1_slu_forward_lstm"])
def test_v1_model_saved_in_v2_format_gives_the_same_outputs(name, tmp_path):
    d, man = _legacy(name)
    model = C.load_model(os.path.join(d, man["model"]))
    path = str(tmp_path / "again.model")
    model.save(path)
    with open(path, "rb") as f:
        assert f.read(1) == b"\x08"  # CNTK's v2 protobuf format
    again = C.load_model(path)
    assert [o.name for o in again.outputs] == V1_MODELS[name]
    assert sorted((p.name, p.shape) for p in again.parameters) == sorted((p.name, p.shape) for p in model.parameters)
    _check_cases(again, d, man)


def test_parameters_keep_names_and_values():
    d, man = _legacy("v1_brainscript_lr_reg")
    model = C.load_model(os.path.join(d, man["model"]))
    params = {p.name: p for p in model.parameters}
    assert sorted(params) == ["b", "w"]
    # BrainScript's w is [1 x 2] (rows x columns, column-major): (2, 1) here
    assert params["w"].shape == (2, 1) and params["b"].shape == (1, 1)
    x = np.array([[0.5, -1.0]], np.float32)
    p = [o for o in model.outputs if o.name == "p"][0]
    want = 1 / (1 + np.exp(-(x @ params["w"].value + params["b"].value)))
    np.testing.assert_allclose(np.asarray(model.eval({model.arguments[0]: x[None]}, outputs=[p])).reshape(-1),
                               want.reshape(-1), rtol=1e-6)


def _lr_bytes():
    path = os.path.join(LEGACY, "v1_brainscript_lr_reg", "LR_reg.dnn")
    if not os.path.exists(path):
        pytest.skip("CNTK-written model files not found")
    with open(path, "rb") as f:
        return f.read()


def test_an_unknown_operation_is_named_with_its_node_and_offset():
    data = _lr_bytes()
    op = "Logistic".encode("utf-16-le")
    at = data.index(op)
    bad = data.replace(op, "Logistix".encode("utf-16-le"))
    with pytest.raises(V1FormatError, match=r"node 'lr' \(Logistix, starting at byte %d\).*Logistix is not "
                                            r"supported" % (at - len("float\0".encode("utf-16-le")))):
        C.load_model(bad)


def test_a_truncated_file_says_where_it_ends():
    data = _lr_bytes()
    with pytest.raises(V1FormatError, match="CNTK v1 model.*the file ends after 700 bytes"):
        C.load_model(data[:700])
    with pytest.raises(V1FormatError, match="expected the section marker 'ECN'"):
        C.load_model(data[:-8])
