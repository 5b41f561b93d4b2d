"""Each Trainer has its own random state, as each CNTK Trainer compiles its own network (found with the 4-stage
training of CNTK's Faster R-CNN example, whose last stage trains a clone of an already trained detector with
dropout). Checked against CNTK 2.7 (the numbers below are its losses): a new Trainer over the same graph, or
over a clone of it, starts its dropout masks again from the nodes' seeds; a Trainer goes on with its own
masks whatever other Trainers do; save_checkpoint writes the Trainer's positions into the nodes (a Trainer
made afterwards goes on from there), a model's save does not."""
import numpy as np

import cntk as C

DATA = np.ones((2, 8), np.float32)
FIRST_THREE = [24.0, 36.0, 38.0]     # CNTK 2.7's losses of a fresh network's first three minibatches
AFTER_THREE = [35.0, 26.0]           # and of its fourth and fifth


def _loss():
    C.cntk_py.set_fixed_random_seed(5)
    x = C.input_variable(8, name='x')
    w = C.parameter((8,), init=1.0, name='w')
    d = C.dropout(x * w, 0.5, name='drop')
    return C.reduce_sum(d * C.constant(np.arange(1, 9, dtype=np.float32)), name='loss')


def _trainer(loss):
    lr = C.learning_rate_schedule(0.0, C.UnitType.sample)
    return C.Trainer(None, (loss, loss), [C.sgd(loss.parameters, lr)])


def _losses(trainer, loss, n):
    out = []
    for _ in range(n):
        trainer.train_minibatch({loss.arguments[0]: DATA})
        out.append(trainer.previous_minibatch_loss_average)
    return out


def test_a_new_trainer_and_a_clone_start_from_the_seed():
    loss = _loss()
    assert _losses(_trainer(loss), loss, 3) == FIRST_THREE
    clone = loss.clone(C.CloneMethod.clone)
    assert _losses(_trainer(clone), clone, 3) == FIRST_THREE
    assert _losses(_trainer(loss), loss, 2) == FIRST_THREE[:2]
    y = C.input_variable(8, name='y')
    replaced = C.combine([loss]).clone(C.CloneMethod.clone, {loss.arguments[0]: C.placeholder()})(y)
    assert _losses(_trainer(replaced), replaced, 2) == FIRST_THREE[:2]


def test_trainers_go_on_independently():
    loss = _loss()
    first = _trainer(loss)
    assert _losses(first, loss, 3) == FIRST_THREE
    assert _losses(_trainer(loss), loss, 2) == FIRST_THREE[:2]
    assert _losses(first, loss, 2) == AFTER_THREE


def test_a_checkpoint_writes_the_positions_into_the_nodes(tmp_path):
    loss = _loss()
    first = _trainer(loss)
    _losses(first, loss, 3)
    first.save_checkpoint(str(tmp_path / "ck"))
    assert _losses(_trainer(loss), loss, 2) == AFTER_THREE
    assert _losses(first, loss, 2) == AFTER_THREE
    first.restore_from_checkpoint(str(tmp_path / "ck"))
    assert _losses(first, loss, 2) == AFTER_THREE


def test_a_saved_model_keeps_the_seed_position(tmp_path):
    loss = _loss()
    _losses(_trainer(loss), loss, 3)
    loss.save(str(tmp_path / "m.model"))
    loaded = C.load_model(str(tmp_path / "m.model"))
    assert _losses(_trainer(loaded), loaded, 2) == FIRST_THREE[:2]
    clone = loss.clone(C.CloneMethod.clone)
    assert _losses(_trainer(clone), clone, 2) == FIRST_THREE[:2]
