"""The training session calls a UserMinibatchSource as CNTK 2.7's native TrainingSession does, through SWIG
directors: an exception in the user's next_minibatch or get_checkpoint_state is printed with its traceback
and becomes RuntimeError('SWIG director method error.'); called directly it stays the user's exception. Its
periodic actions count from index 0 unless restored from a checkpoint (a trainer that had seen 8 samples
before the session writes its checkpoint of frequency 8 after the session's first minibatch of 4). The
figures (calls, samples) are those CNTK 2.7 printed for the same script."""
import numpy as np
import pytest

import cntk as C
from cntk.io import MinibatchData, StreamInformation, UserMinibatchSource


class _Source(UserMinibatchSource):
    def __init__(self, fail_at=0, state_fails=False):
        self.si = StreamInformation("x", 0, 'dense', np.float32, (2,))
        self.calls, self.fail_at, self.state_fails, self.states = 0, fail_at, state_fails, []
        super(_Source, self).__init__()

    def stream_infos(self):
        return [self.si]

    def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyError("no more data %d" % self.calls)
        data = C.Value(batch=np.ones((num_samples, 2), np.float32))
        return {self.si: MinibatchData(data, num_samples, num_samples, False)}

    def get_checkpoint_state(self):
        if self.state_fails:
            raise ValueError("no state")
        self.states.append(self.calls)
        return {"calls": self.calls}

    def restore_from_checkpoint(self, state):
        self.calls = state["calls"]


def _trainer():
    x = C.input_variable(2)
    z = C.layers.Dense(1)(x)
    loss = C.reduce_sum(z)
    return C.Trainer(z, (loss, loss), [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))]), x


def test_user_source_error_in_session_is_a_director_error(capsys):
    trainer, x = _trainer()
    source = _Source(fail_at=3)
    session = C.training_session(trainer=trainer, mb_source=source, model_inputs_to_streams={x: source.si},
                                 mb_size=4, max_samples=100)
    with pytest.raises(RuntimeError, match=r"^SWIG director method error\.$"):
        session.train()
    assert (source.calls, trainer.total_number_of_samples_seen) == (3, 8)
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err and "KeyError: 'no more data 3'" in err
    with pytest.raises(KeyError):        # not from the session: the user's own exception
        _Source(fail_at=1).next_minibatch(4)


def test_checkpoint_state_error_and_action_index_without_restore(tmp_path, capsys):
    trainer, x = _trainer()
    trainer.train_minibatch({x: np.ones((8, 2), np.float32)})
    source = _Source(state_fails=True)
    session = C.training_session(trainer=trainer, mb_source=source, model_inputs_to_streams={x: source.si},
                                 mb_size=4, max_samples=100,
                                 checkpoint_config=C.CheckpointConfig(str(tmp_path / "m"), frequency=8))
    with pytest.raises(RuntimeError, match=r"^SWIG director method error\.$"):
        session.train()
    assert source.calls == 1
    assert "ValueError: no state" in capsys.readouterr().err


def test_actions_continue_from_restored_counts(tmp_path):
    trainer, x = _trainer()
    source = _Source()
    config = lambda: C.CheckpointConfig(str(tmp_path / "m"), frequency=8)
    C.training_session(trainer=trainer, mb_source=source, model_inputs_to_streams={x: source.si}, mb_size=4,
                       max_samples=20, checkpoint_config=config()).train()
    assert source.states == [2, 4, 5]
    trainer2, x2 = _trainer()
    source2 = _Source()
    C.training_session(trainer=trainer2, mb_source=source2, model_inputs_to_streams={x2: source2.si}, mb_size=4,
                       max_samples=36, checkpoint_config=config()).train()
    # restored at 20 samples (index 2): the next checkpoints at 24 and 32, the last at 36
    assert source2.states == [6, 8, 9]


def test_restore_announces_the_file_and_prefers_the_unnumbered_one(tmp_path, capsys):
    # CNTK 2.7: the checkpoint file itself when it exists (even where numbered ones are newer), else the numbered
    # one with the highest index; "Restoring training session from the checkpoint '<file>'" on stderr
    base = str(tmp_path / "p")
    trainer, x = _trainer()
    source = _Source()
    C.training_session(trainer=trainer, mb_source=source, model_inputs_to_streams={x: source.si}, mb_size=4,
                       max_samples=20, checkpoint_config=C.CheckpointConfig(base, frequency=8,
                                                                            preserve_all=True)).train()
    assert "Restoring" not in capsys.readouterr().err
    import os
    assert sorted(f for f in os.listdir(str(tmp_path)) if not f.endswith(".ckp")) == ["p", "p0", "p1", "p2"]
    trainer2, x2 = _trainer()
    source2 = _Source()
    session = C.training_session(trainer=trainer2, mb_source=source2, model_inputs_to_streams={x2: source2.si},
                                 mb_size=4, max_samples=24,
                                 checkpoint_config=C.CheckpointConfig(base, frequency=8, preserve_all=True))
    session.train()
    assert "Restoring training session from the checkpoint '%s'\n" % base in capsys.readouterr().err
    assert source2.states[0] == 6 and trainer2.total_number_of_samples_seen == 24
    os.remove(base)
    os.remove(base + ".ckp")
    trainer3, x3 = _trainer()
    source3 = _Source()
    C.training_session(trainer=trainer3, mb_source=source3, model_inputs_to_streams={x3: source3.si}, mb_size=4,
                       max_samples=24, checkpoint_config=C.CheckpointConfig(base, frequency=8)).train()
    assert "Restoring training session from the checkpoint '%s'\n" % (base + "2") in capsys.readouterr().err
    assert source3.states == [] and trainer3.total_number_of_samples_seen == 24
