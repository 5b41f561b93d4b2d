"""The DDP comm hooks of cntk_compat.distributed.hooks on a plain PyTorch model in DDP (gloo workers)."""
import numpy as np
import pytest
import torch

from tests.distributed import _plain_ddp
from tests.distributed._spawn import run_workers


def _one_process(world):
    """The 32-bit run as one process on the joined minibatches."""
    module = _plain_ddp.model()
    optimizer = torch.optim.SGD(module.parameters(), lr=_plain_ddp.LR, momentum=0.9)
    x, y = _plain_ddp.classification_data(_plain_ddp.TRAIN, 1)
    batch = _plain_ddp.LOCAL_BATCH * world
    for step in range(_plain_ddp.EPOCHS * _plain_ddp.TRAIN // batch):
        start = (step % (_plain_ddp.TRAIN // batch)) * batch
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(module(x[start:start + batch]), y[start:start + batch]).backward()
        optimizer.step()
    return _plain_ddp.flat(module), _plain_ddp.accuracy(module)


@pytest.mark.parametrize("world", [2, 4])
def test_hooks_on_a_plain_ddp_model(tmp_path, world):
    bits_list = [32, 1] if world == 4 else [32, 1, 4]
    ranks = run_workers(_plain_ddp.hook_worker, tmp_path, bits_list, world=world)
    expected, expected_accuracy = _one_process(world)
    for r in ranks[1:]:
        np.testing.assert_array_equal(r["parameters"], ranks[0]["parameters"])    # all workers agree
    np.testing.assert_allclose(ranks[0]["parameters"][0], expected, rtol=1e-5, atol=1e-6)
    full = ranks[0]["32"]["accuracy"]
    assert full == pytest.approx(expected_accuracy, abs=1e-9) and 0.6 < full < 0.95
    for bits in bits_list[1:]:
        assert abs(ranks[0][str(bits)]["accuracy"] - full) <= 0.01, (bits, ranks[0][str(bits)]["accuracy"], full)
        assert not np.array_equal(ranks[0]["parameters"][bits_list.index(bits)], ranks[0]["parameters"][0])
        for r in ranks:
            assert r[str(bits)]["resumed_equal"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("world", [1, 2])
def test_hooks_on_a_plain_ddp_model_on_cuda(tmp_path, world):
    """NCCL where every worker has a GPU of its own; more workers than GPUs share GPU 0 through gloo, where the
    quantized codes travel through the host."""
    bits_list = [32, 1]
    ranks = run_workers(_plain_ddp.hook_worker, tmp_path, bits_list, "cuda", world=world)
    expected, expected_accuracy = _one_process(world)
    for r in ranks[1:]:
        np.testing.assert_array_equal(r["parameters"], ranks[0]["parameters"])
    np.testing.assert_allclose(ranks[0]["parameters"][0], expected, rtol=1e-4, atol=1e-5)
    full = ranks[0]["32"]["accuracy"]
    assert full == pytest.approx(expected_accuracy, abs=0.01)
    assert abs(ranks[0]["1"]["accuracy"] - full) <= 0.01
    assert not np.array_equal(ranks[0]["parameters"][1], ranks[0]["parameters"][0])
    for r in ranks:
        assert r["1"]["resumed_equal"]
