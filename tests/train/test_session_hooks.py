"""TrainingSession's overridable hooks, Trainer.total_number_of_units_seen and DataUnit's values, as CNTK 2.7
has them (expected values from CNTK 2.7)."""
import os

import numpy as np
import pytest

import cntk as C
from cntk.train.training_session import TrainingSession


def _data(n=40):
    rng = np.random.RandomState(0)
    X = rng.rand(n, 2).astype(np.float32)
    Y = np.eye(2, dtype=np.float32)[rng.randint(0, 2, n)]
    return X, Y


def _trainer():
    x = C.input_variable(2, name='x')
    y = C.input_variable(2, name='y')
    z = C.layers.Dense(2, init=C.glorot_uniform(seed=1))(x)
    crit = (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y))
    return C.Trainer(z, crit, [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))]), x, y


def _source(sweeps, directory):
    X, Y = _data()
    fn = os.path.join(str(directory), 'data.ctf')
    if not os.path.exists(fn):
        with open(fn, 'w') as f:
            for a, b in zip(X, Y):
                f.write('|x %g %g |y %g %g\n' % (a[0], a[1], b[0], b[1]))
    streams = C.io.StreamDefs(x=C.io.StreamDef('x', shape=2), y=C.io.StreamDef('y', shape=2))
    return C.io.MinibatchSource(C.io.CTFDeserializer(fn, streams), randomize=False, max_sweeps=sweeps)


@pytest.fixture
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp('data')


def test_data_unit_values_are_cntks():
    assert [(u.name, int(u)) for u in C.train.DataUnit] == [('sample', 1), ('minibatch', 2), ('sweep', 0)]
    assert (C.cntk_py.DataUnit_Sample, C.cntk_py.DataUnit_Minibatch, C.cntk_py.DataUnit_Sweep) == (1, 2, 0)


def test_total_number_of_units_seen():
    t, x, y = _trainer()
    X, Y = _data()
    U = C.train.DataUnit
    assert [t.total_number_of_units_seen(u) for u in U] == [0, 0, 0]
    assert t.train_minibatch({}) is False
    t.train_minibatch({x: X[:4], y: Y[:4]})
    t.train_minibatch({x: X[:4], y: Y[:4]}, is_sweep_end=True)
    t.train_minibatch({x: X[:3], y: Y[:3]}, is_sweep_end=False)
    t.train_minibatch({x: X[:3], y: Y[:3]}, is_sweep_end=True)
    assert [t.total_number_of_units_seen(u) for u in U] == [14, 4, 2]
    assert t.total_number_of_units_seen(1) == 14     # an int is a DataUnit value: 1 is samples


def test_units_seen_after_a_session_and_a_checkpoint(tmp_path, data_dir):
    t, x, y = _trainer()
    s = _source(2, data_dir)
    C.training_session(trainer=t, mb_source=s, mb_size=16,
                       model_inputs_to_streams={x: s.streams.x, y: s.streams.y}).train()
    U = C.train.DataUnit
    assert [t.total_number_of_units_seen(u) for u in U] == [80, 5, 2]
    fn = str(tmp_path / 'c')
    t.save_checkpoint(fn)
    t2, _, _ = _trainer()
    t2.restore_from_checkpoint(fn)
    assert [t2.total_number_of_units_seen(u) for u in U] == [80, 5, 2]


def test_overridden_hooks_are_called_as_cntk_calls_them(tmp_path, data_dir):
    calls = []

    class Session(TrainingSession):
        def on_minibatch_start(self):       # CNTK 2.7 never calls these three overrides
            calls.append(('mbs',))

        def on_checkpoint_start(self, index):
            calls.append(('cks', index))

        def on_cross_validation_start(self, index):
            calls.append(('cvs', index))

        def on_minibatch_end(self):
            calls.append(('mbe',))
            return True

        def on_checkpoint_end(self, index):
            calls.append(('cke', index))

        def on_cross_validation_end(self, index, average_error, num_samples, num_minibatches):
            calls.append(('cve', index, num_samples, num_minibatches))
            return True

    t, x, y = _trainer()
    s, cs = _source(1, data_dir), _source(1, data_dir)
    Session(t, s, C.minibatch_size_schedule(8), {x: s.streams.x, y: s.streams.y}, None, None,
            C.CheckpointConfig(str(tmp_path / 'ck'), frequency=16),
            C.CrossValidationConfig(cs, frequency=24, minibatch_size=20), C.TestConfig(None)).train()
    # 5 minibatches of 8 and the final empty one; the checkpoint and the cross validation of the end follow
    assert calls == [('mbe',), ('mbe',), ('cke', 0), ('mbe',), ('cve', 0, 40, 2), ('mbe',), ('cke', 1),
                     ('mbe',), ('mbe',), ('cke', 2), ('cve', 1, 40, 2)]


def test_on_minibatch_end_false_stops_training(data_dir):
    calls = []

    class Session(TrainingSession):
        def on_minibatch_end(self):
            calls.append(1)
            return len(calls) < 2

    t, x, y = _trainer()
    s = _source(3, data_dir)
    Session(t, s, C.minibatch_size_schedule(8), {x: s.streams.x, y: s.streams.y}, None, None,
            C.CheckpointConfig(None), C.CrossValidationConfig(None), C.TestConfig(None)).train()
    assert (len(calls), t.total_number_of_samples_seen) == (3, 16)


def test_checkpoint_end_hook_with_preserve_all(tmp_path, data_dir):
    calls = []

    class Session(TrainingSession):
        def on_checkpoint_end(self, index):
            calls.append((index, sorted(f for f in os.listdir(str(tmp_path)))))

    t, x, y = _trainer()
    s = _source(1, data_dir)
    Session(t, s, C.minibatch_size_schedule(16), {x: s.streams.x, y: s.streams.y}, None, None,
            C.CheckpointConfig(str(tmp_path / 'ck'), frequency=32, preserve_all=True),
            C.CrossValidationConfig(None), C.TestConfig(None)).train()
    assert calls == [(0, ['ck0', 'ck0.ckp']), (1, ['ck0', 'ck0.ckp', 'ck1', 'ck1.ckp'])]
    assert sorted(os.listdir(str(tmp_path))) == ['ck', 'ck.ckp', 'ck0', 'ck0.ckp', 'ck1', 'ck1.ckp']


def test_get_minibatch_size_restore_and_default_hooks(tmp_path, data_dir):
    t, x, y = _trainer()
    s = _source(1, data_dir)
    ck = str(tmp_path / 'ck')
    session = C.training_session(trainer=t, mb_source=s, mb_size=C.minibatch_size_schedule([4, 8], epoch_size=16),
                                 model_inputs_to_streams={x: s.streams.x, y: s.streams.y},
                                 checkpoint_config=C.CheckpointConfig(ck, frequency=16))
    assert session.get_minibatch_size() == 4
    assert (session.on_minibatch_end(), session.on_cross_validation_end(0, 0.5, 1, 1),
            session.on_checkpoint_end(0), session.on_minibatch_start(), session.on_checkpoint_start(0),
            session.on_cross_validation_start(0)) == (True, True, None, None, None, None)
    session.train()
    assert session.get_minibatch_size() == 8
    t2, x2, y2 = _trainer()
    s2 = _source(1, data_dir)
    other = C.training_session(trainer=t2, mb_source=s2, mb_size=8,
                               model_inputs_to_streams={x2: s2.streams.x, y2: s2.streams.y})
    assert other.restore_from_checkpoint(ck) is None
    assert t2.total_number_of_samples_seen == 40


def test_cross_validation_callback_without_source_gets_a_float_error(data_dir):
    calls = []
    t, x, y = _trainer()
    s = _source(1, data_dir)
    C.training_session(trainer=t, mb_source=s, mb_size=8, model_inputs_to_streams={x: s.streams.x, y: s.streams.y},
                       cv_config=C.CrossValidationConfig(None, frequency=16,
                                                         callback=lambda *a: calls.append(a) or True)).train()
    assert calls == [(0, 0.0, 0, 0), (1, 0.0, 0, 0), (2, 0.0, 0, 0)]
    assert all(type(c[1]) is float for c in calls)


def test_parameter_learners_is_a_tuple():
    t, x, y = _trainer()
    assert type(t.parameter_learners) is tuple and len(t.parameter_learners) == 1


def test_print_node_timing_prints_nothing_before_the_first_minibatch(capsys):
    # CNTK 2.7 builds a Trainer's (an Evaluator's) network at its first minibatch; before, there is no table
    t, x, y = _trainer()
    X, Y = _data(4)
    ev = C.eval.Evaluator(C.squared_error(t.model, y))
    t.print_node_timing()
    ev.print_node_timing()
    assert capsys.readouterr().err == ""
    t.train_minibatch({x: X, y: Y})
    ev.test_minibatch({x: X, y: Y})
    t.print_node_timing()
    trainer_rows = capsys.readouterr().err.splitlines()
    ev.print_node_timing()
    evaluator_rows = capsys.readouterr().err.splitlines()
    assert trainer_rows and evaluator_rows
    assert all("(fwd# 0|bwd# 0)" in row for row in trainer_rows + evaluator_rows)
