"""On a GPU, a training step of a recurrent model queues its work without waiting for the device: no stream
synchronization from feeding Values, masks, one-hot records, packing orders or the update (a wait per step
leaves the GPU idle while the host prepares the next step). Reading the loss afterwards may wait; that is the
user's choice."""
import numpy as np
import pytest
import torch

import cntk as C

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")


@pytest.mark.parametrize("cell", [lambda: C.layers.LSTM(16), lambda: C.layers.GRU(16)])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_a_recurrent_classifiers_training_step_never_waits_for_the_gpu(cell, go_backwards):
    C.device.try_set_default_device(C.device.gpu(0))
    x = C.sequence.input_variable(30, is_sparse=True)
    y = C.input_variable(4)
    z = C.layers.Dense(4)(C.sequence.last(C.layers.Recurrence(cell(), go_backwards=go_backwards)(
        C.layers.Embedding(8)(x))))
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)),
                        [C.adam(z.parameters, C.learning_parameter_schedule_per_sample(0.001), 0.9)])
    rng = np.random.default_rng(0)
    feeds = []
    for _ in range(3):
        words = [rng.integers(0, 30, n).tolist() for n in rng.integers(2, 9, 5)]
        feeds.append({x: C.Value.one_hot(words, 30), y: np.eye(4, dtype=np.float32)[rng.integers(0, 4, 5)]})
    trainer.train_minibatch(feeds[0])
    trainer.train_minibatch(feeds[1])
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        trainer.train_minibatch(feeds[2])
    finally:
        torch.cuda.set_sync_debug_mode(0)
    assert np.isfinite(trainer.previous_minibatch_loss_average)


def test_a_users_pinned_tensor_is_copied_before_the_user_can_change_it():
    from cntk_compat.core.device import copy_to
    source = torch.ones(1 << 22).pin_memory()
    on_gpu = copy_to(source, "cuda", users=True)
    source.fill_(2)
    assert bool((on_gpu == 1).all())
