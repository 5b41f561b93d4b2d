"""A checkpoint CNTK 2.7 wrote with a distributed learner restores here and training continues with CNTK's
numbers. The checkpoints are laid out as CNTK 2.7's Trainer.save_checkpoint writes them (the model in CNTK's v2
format, here written by this package, and the .ckp Dictionary); every value in them, and the parameters after five
more minibatches, are those of CNTK 2.7 (one worker, momentum SGD, a Dense(2) layer on 3 inputs, squared error,
minibatches of 4 after 20 samples)."""
import numpy as np
import pytest

import cntk as C
from cntk_compat.model_formats.cntkv2_values import SizeT, dictionary_to_message

_F = np.float32
# the model's parameters in CNTK's checkpoint, the local learner's smoothed gradients, and (block momentum) the
# block-level smoothed gradient
SAVED = {
    "data_parallel": dict(
        W=[[-0.6470561027526855, -0.658152163028717], [0.05116378143429756, -0.8930238485336304],
           [-0.15183979272842407, 1.026563048362732]],
        b=[0.28292083740234375, 0.24516794085502625],
        smoothed=([[-0.04106150195002556, -0.04044512286782265], [-0.03827598690986633, -0.04381708428263664],
                   [-0.04511269927024841, -0.032380249351263046]], [-0.07629155367612839, -0.07279551774263382]),
        after=([[-0.4347173869609833, -0.48938220739364624], [0.21101300418376923, -0.6995710134506226],
                [0.08062029629945755, 1.1477655172348022]], [0.6642289757728577, 0.5467497706413269])),
    "block_momentum": dict(
        W=[[-0.7264057397842407, -0.7273241281509399], [-0.03049711138010025, -0.9703583717346191],
           [-0.24308599531650543, 0.9638193249702454]],
        b=[0.14242048561573029, 0.12973056733608246],
        smoothed=(np.zeros((3, 2)), np.zeros(2)),
        block=([[-0.00319749116897583, -0.005684196949005127], [-0.004659898579120636, -0.011465787887573242],
                [-0.005290046334266663, -0.0034224987030029297]], [-0.011622294783592224, -0.014849551022052765]),
        after=([[-0.6709848046302795, -0.6893510818481445], [0.0065529001876711845, -0.9243180751800537],
                [-0.18370379507541656, 0.9919273257255554]], [0.24524149298667908, 0.20506539940834045])),
}


def _trainer(kind):
    x, y = C.input_variable(3), C.input_variable(2)
    z = C.layers.Dense(2)(x)
    local = C.momentum_sgd(z.parameters, C.learning_parameter_schedule(0.1), C.momentum_schedule(0.9))
    learner = C.train.distributed.data_parallel_distributed_learner(local) if kind == "data_parallel" else \
        C.train.distributed.block_momentum_distributed_learner(local, block_size=8)
    return x, y, z, C.Trainer(z, (C.squared_error(z, y), None), [learner]), learner


def _cntk_checkpoint(path, kind):
    saved = SAVED[kind]
    x, y, z, trainer, _ = _trainer(kind)
    z.parameters[0].value = np.array(saved["W"], _F)
    z.parameters[1].value = np.array(saved["b"], _F)
    C.combine([z, C.squared_error(z, y)]).save(path)
    local = {"version": SizeT(3), "type": "Learner", "sweepCount": SizeT(0), "sample_count": SizeT(20),
             "minibatchCount": SizeT(5), "smoothed_gradients": [np.array(v, _F) for v in saved["smoothed"]]}
    learner = {"localLearners": local, "totalNumberOfSamplesSeen": SizeT(20)}
    if kind == "block_momentum":
        learner = {"base": learner, "localTotalNumSamplesSeen": SizeT(20),
                   "blockLevelSmoothedGradient": [np.array(v, _F) for v in saved["block"]]}
    state = {"Version": SizeT(1), "Learners": [learner], "ExternalState": {"epoch": SizeT(1)},
             "DistributedState": {"0": {"external_worker_state": {"epoch": SizeT(2)}, "internal_worker_state": {}}}}
    with open(path + ".ckp", "wb") as f:
        f.write(dictionary_to_message(state).SerializeToString())


@pytest.mark.parametrize("kind", ["data_parallel", "block_momentum"])
def test_a_cntk_distributed_checkpoint_continues_with_cntks_numbers(tmp_path, kind):
    path = str(tmp_path / "model")
    _cntk_checkpoint(path, kind)
    x, y, z, trainer, learner = _trainer(kind)
    # each worker gets back the external state it saved itself
    assert trainer.restore_from_checkpoint(path) == {"epoch": 2}
    assert trainer.total_number_of_samples_seen == learner.total_number_of_samples_seen == 20
    rs = np.random.RandomState(0)
    X, Y = rs.rand(40, 3).astype(_F), rs.rand(40, 2).astype(_F)
    for i in range(5, 10):
        trainer.train_minibatch({x: X[i * 4:(i + 1) * 4], y: Y[i * 4:(i + 1) * 4]})
    W, b = SAVED[kind]["after"]
    np.testing.assert_allclose(z.parameters[0].value, W, rtol=0, atol=1e-6)
    np.testing.assert_allclose(z.parameters[1].value, b, rtol=0, atol=1e-6)
    assert trainer.total_number_of_samples_seen == 40


def test_a_local_learners_checkpoint_is_refused_by_a_distributed_learner(tmp_path):
    path = str(tmp_path / "model")
    x, y, z, trainer, _ = _trainer("data_parallel")
    C.combine([z, C.squared_error(z, y)]).save(path)
    state = {"Version": SizeT(1), "ExternalState": {}, "DistributedState": {},
             "Learners": [{"version": SizeT(3), "type": "Learner", "sample_count": SizeT(0),
                           "smoothed_gradients": [np.zeros((3, 2), _F), np.zeros(2, _F)]}]}
    with open(path + ".ckp", "wb") as f:
        f.write(dictionary_to_message(state).SerializeToString())
    with pytest.raises(ValueError, match="learner 0 is a DataParallelDistributedLearner; the checkpoint holds a "
                                         "local learner's state"):
        trainer.restore_from_checkpoint(path)
