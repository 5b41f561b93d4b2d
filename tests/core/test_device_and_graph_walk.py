"""Default-device selection and graph walks as in CNTK 2.7."""
import pytest

import cntk as C


def test_try_set_default_device_cannot_lock_the_cpu():
    before = C.use_default_device()
    assert C.try_set_default_device(C.cpu(), acquire_device_lock=True) is False
    assert C.use_default_device() == before
    assert C.try_set_default_device(C.cpu()) is True


def test_depth_first_search_enters_blocks_at_their_root_primitive():
    x = C.input_variable(2)
    model = C.layers.Sequential([C.layers.Dense(3, name="inner"), C.layers.Dense(2)])(x)
    names = [n.name or getattr(n, "op_name", "") for n in
             C.logging.graph.depth_first_search(model, lambda n: True, depth=-1)]
    assert names[:11] == ['Dense', 'inner', 'Plus', 'Times', 'W', 'b', '', 'Plus', 'Times', 'W', 'b']


def test_legacy_model_writers_name_an_op_without_a_v1_node_type(tmp_path):
    z = C.sequence.first(C.sequence.input_variable(2))
    for save in (C.cntk_py.save_as_legacy_model, C.debugging.save_as_legacy_model):
        with pytest.raises(ValueError, match="SequenceFirst has no v1 node type"):
            save(z, str(tmp_path / "m.model"))


def test_gpu_of_a_missing_device_raises_cntks_message():
    # CNTK 2.7 (CPU build): ValueError 'Specified GPU device id (3) is invalid.' (scripts print it)
    import torch
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with pytest.raises(ValueError) as e:
        C.gpu(n + 3)
    assert str(e.value).splitlines()[0] == "Specified GPU device id (%d) is invalid." % (n + 3)


def test_a_gpu_made_the_default_computes_cudnn_float32_in_full_precision(monkeypatch):
    """CNTK's GPU float32 was IEEE float32; torch's default lets cuDNN round to TF32 (1e-3 relative error)."""
    import torch
    from cntk_compat.core.device import DeviceDescriptor, DeviceKind, _make_default
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", True)     # torch's default, restored afterwards
    _make_default(C.cpu())
    assert torch.backends.cudnn.allow_tf32
    _make_default(DeviceDescriptor(DeviceKind.GPU, 0))
    assert not torch.backends.cudnn.allow_tf32
