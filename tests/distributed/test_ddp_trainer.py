"""The Trainer with a data-parallel learner on DistributedDataParallel, with 2 and 4 gloo workers: 32 bits
trains as one process on the joined minibatches; checkpoint-then-continue equals an uninterrupted run."""
import numpy as np
import pytest
from torch.nn.parallel import DistributedDataParallel

import cntk as C
from tests.distributed import _workers
from tests.distributed._models import data, parameter_values, regression, sgd
from tests.distributed._spawn import run_workers


def _one_process(world):
    z, loss, x, y = regression()
    trainer = C.Trainer(z, (loss, loss), [sgd(z.parameters, True)])
    features, targets = data(3 * world * 6)
    for k in range(6):
        part = slice(3 * world * k, 3 * world * (k + 1))
        trainer.train_minibatch({x: features[part], y: targets[part]})
    return parameter_values(z)


@pytest.mark.parametrize("world, bits", [(2, 32), (4, 32), (2, 1), (4, 1)])
def test_checkpoint_then_continue_equals_uninterrupted(tmp_path, world, bits):
    ranks = run_workers(_workers.checkpoint_and_continue, tmp_path, bits, world=world)
    for r in ranks:
        if bits == 32 and world > 2:
            # DDP re-buckets the gradients after a model's first step, so a fresh model's first step sums them in
            # other chunks of the ring than the uninterrupted run: with more than 2 workers the sums' rounding
            # may differ (the quantized hook sums by parameter, in rank order, whatever the buckets)
            np.testing.assert_allclose(r["resumed"], r["parameters"], rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(r["resumed"], r["parameters"])
        assert r["samples"] == 3 * world * 6 and r["last_count"] == 3 * world
        np.testing.assert_array_equal(r["parameters"], ranks[0]["parameters"])
    expected = _one_process(world)
    if bits == 32:
        np.testing.assert_allclose(ranks[0]["parameters"], expected, rtol=1e-5, atol=1e-6)
    else:   # W1 is 3 quantized columns of 2 values, b1 one of 2, W2 2 of 1: 1 bit keeps the signs and two means,
        # error feedback the rest (test_hooks shows the accuracy on a classification task)
        assert 0 < np.abs(ranks[0]["parameters"] - expected).max() < 0.1


def test_learner_gets_exact_bucket_views_after_the_warm_start(tmp_path):
    """At 32 bits the gradients a local learner gets after the warm start are DDP's bucket views, which the
    learner takes unchecked (OwnedGradients.exact): each really is a contiguous tensor of its parameter's dtype,
    shape and device, none sharing memory with another. The warm start's are autograd's own and stay checked.
    Training still equals one process on the same minibatches (also where DDP's forward runs as its halves)."""
    ranks = run_workers(_workers.handed_gradients, tmp_path)
    for r in ranks:
        # (with a torch whose DDP has them, its forward's two halves run around the module's forward)
        assert r["parts"] == hasattr(DistributedDataParallel, "_pre_forward")
        assert [h["exact"] for h in r["handed"]] == [False, False, True, True, True]
        assert all(h["owned"] and h["checks"] for h in r["handed"])
        assert [h["count"] for h in r["handed"]] == [3, 3, 6, 6, 6]
        np.testing.assert_array_equal(r["parameters"], ranks[0]["parameters"])
    z, loss, x, y = regression()
    trainer = C.Trainer(z, (loss, loss), [sgd(z.parameters)])
    features, targets = data(30)
    for k in range(2):
        trainer.train_minibatch({x: features[3 * k:3 * k + 3], y: targets[3 * k:3 * k + 3]})
    for k in range(3):
        trainer.train_minibatch({x: features[6 + 6 * k:12 + 6 * k], y: targets[6 + 6 * k:12 + 6 * k]})
    np.testing.assert_allclose(ranks[0]["parameters"], parameter_values(z), rtol=1e-6, atol=1e-7)
