import os
import re

import numpy as np
import pytest

import cntk as C
from _models import data, logistic_regression


class _Recorder(C.logging.ProgressWriter):
    def __init__(self):
        super(_Recorder, self).__init__(1, 0, 1, 0, 1, 0)
        self.summaries, self.tests = [], []

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric, elapsed):
        self.summaries.append(samples)

    def on_write_test_summary(self, samples, updates, summaries, aggregate_metric, elapsed):
        self.tests.append((samples, aggregate_metric / samples))


def _setup(writer=None):
    crit, z, x, y = logistic_regression()
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(0.1))
    return C.Trainer(z, crit, [learner], [writer] if writer else None), crit, z, x, y


def test_session_on_arrays_with_progress_cv_and_test(tmp_path):
    X, Y = data(320)
    rec = _Recorder()
    trainer, crit, z, x, y = _setup(rec)
    cv_calls = []
    C.training_session(trainer, (X, Y), 32, None, max_samples=640, progress_frequency=320,
                       cv_config=C.CrossValidationConfig((X[:64], Y[:64]), frequency=(10, C.train.DataUnit.minibatch),
                                                         criterion=crit,
                                                         callback=lambda *a: cv_calls.append(a) or True),
                       test_config=C.TestConfig((X[:96], Y[:96]), criterion=crit)).train()
    assert trainer.total_number_of_samples_seen == 640
    assert rec.summaries == [320, 320]
    assert [c[0] for c in cv_calls] == [0, 1] and all(c[2] == 64 for c in cv_calls)
    assert rec.tests[-1][0] == 96


def test_cv_callback_can_stop_training():
    X, Y = data(320)
    trainer = _setup()[0]
    C.training_session(trainer, (X, Y), 32, None, max_samples=3200,
                       cv_config=C.CrossValidationConfig(frequency=64, callback=lambda *a: False)).train()
    assert trainer.total_number_of_samples_seen == 64


def test_preserve_all_checkpoints_and_restore(tmp_path):
    X, Y = data(320)
    base = str(tmp_path / "ck")
    trainer = _setup()[0]
    C.training_session(trainer, (X, Y), 32, None, max_samples=640,
                       checkpoint_config=C.CheckpointConfig(base, frequency=320, preserve_all=True)).train()
    names = sorted(os.listdir(str(tmp_path)))
    assert names == ["ck", "ck.ckp", "ck0", "ck0.ckp", "ck1", "ck1.ckp"]
    trainer2 = _setup()[0]
    C.training_session(trainer2, (X, Y), 32, None, max_samples=640,
                       checkpoint_config=C.CheckpointConfig(base, frequency=320, restore=True)).train()
    assert trainer2.total_number_of_samples_seen == 640


def test_function_train_and_test_on_arrays(capsys):
    X, Y = data(1000)
    crit, z, x, y = logistic_regression()
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(0.1))
    progress = crit.train((X, Y), parameter_learners=[learner], callbacks=[C.logging.ProgressPrinter(0)],
                          minibatch_size=25, max_epochs=3)
    assert [s.samples for s in progress.epoch_summaries] == [1000, 1000, 1000]
    assert progress.epoch_summaries[-1].loss < progress.epoch_summaries[0].loss
    out = capsys.readouterr().out
    assert re.search(r"^ average +since +average +since +examples$", out, re.M)
    result = crit.test((X, Y), minibatch_size=64, callbacks=[C.logging.ProgressPrinter()])
    errors = np.argmax(z.eval({x: X}), 1) != np.argmax(Y, 1)     # with the trained parameters
    assert result.samples == 1000 and result.metric == pytest.approx(errors.mean())
    assert "Finished Evaluation [1]: Minibatch[1-16]: metric = " in capsys.readouterr().out


def test_function_train_with_minibatch_size_schedule_and_test_config():
    X, Y = data(500)
    crit, z, x, y = logistic_regression()
    progress = crit.train((X, Y), minibatch_size=C.minibatch_size_schedule([16, 32], 250),
                          parameter_learners=[C.sgd(z.parameters, C.learning_parameter_schedule(0.1))],
                          callbacks=[C.TestConfig((X[:100], Y[:100]), criterion=crit)], max_epochs=2)
    assert len(progress.epoch_summaries) == 2
    assert progress.test_summary.samples == 100


class _EndlessSource(C.io.MinibatchSourceFromData):
    def is_infinite(self):
        return True


def test_sources_without_limit_are_refused():
    X, Y = data(64)
    trainer, crit, z, x, y = _setup()
    endless = _EndlessSource(dict(x=X, y=Y))
    streams = {x: endless.streams.x, y: endless.streams.y}
    with pytest.raises(ValueError, match="Train minibatch source must have a limited number of samples or sweeps"):
        C.training_session(trainer, endless, 32, streams).train()
    with pytest.raises(ValueError, match="Test minibatch source must have a limited"):
        C.training_session(trainer, (X, Y), 32, None, max_samples=64,
                           test_config=C.TestConfig(endless, model_inputs_to_streams=streams)).train()
    with pytest.raises(ValueError, match="Cross validation minibatch source must have a limited"):
        C.training_session(trainer, (X, Y), 32, None, max_samples=64,
                           cv_config=C.CrossValidationConfig(endless, model_inputs_to_streams=streams)).train()
    assert trainer.total_number_of_samples_seen == 0


def test_the_session_ends_with_cntks_empty_minibatch(tmp_path):
    # CNTK 2.7's session trains a last, empty minibatch when max_samples is reached: the trainer forgets the
    # previous minibatch (golden: 15 samples seen, previous count 0, the loss average refused)
    from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs
    path = tmp_path / 'd.ctf'
    path.write_text(''.join('|x %d %d |y %d\n' % (i, -i, i % 2) for i in range(20)))
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(x=StreamDef(field='x', shape=2),
                                                                y=StreamDef(field='y', shape=1))), randomize=False)
    x, y = C.input_variable(2), C.input_variable(1)
    z = C.layers.Dense(1, init=C.glorot_uniform(seed=1))(x)
    trainer = C.Trainer(z, (C.squared_error(z, y), None), [C.sgd(z.parameters, C.learning_parameter_schedule(0.01))])
    C.training_session(trainer, src, 6, {x: src.streams.x, y: src.streams.y}, max_samples=15).train()
    assert (trainer.total_number_of_samples_seen, trainer.previous_minibatch_sample_count) == (15, 0)
    with pytest.raises(RuntimeError, match='no preceding call to TrainMinibatch or the minibatch was empty'):
        trainer.previous_minibatch_loss_average


def test_a_second_session_finds_the_test_source_exhausted_and_the_cv_source_rewound(tmp_path, capsys):
    # CNTK 2.7 rewinds the cross validation source after each evaluation, not the test source
    rng = np.random.RandomState(1)
    path = str(tmp_path / "d.ctf")
    with open(path, "w") as f:
        for _ in range(30):
            v = rng.uniform(-1, 1, 3)
            f.write("|x %s |y %s\n" % (" ".join("%.3f" % a for a in v), "1 0" if v.sum() > 0 else "0 1"))

    def source(sweeps):
        return C.io.MinibatchSource(C.io.CTFDeserializer(path, C.io.StreamDefs(
            x=C.io.StreamDef(field="x", shape=3), y=C.io.StreamDef(field="y", shape=2))), randomize=False,
            max_sweeps=sweeps)

    x, y = C.input_variable(3), C.input_variable(2)
    z = C.layers.Dense(2, init=C.glorot_uniform(seed=1))(x)
    train, test, cv = source(C.io.INFINITELY_REPEAT), source(1), source(1)
    for phase in range(2):
        trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)),
                            [C.sgd(z.parameters, 0.1)], [C.logging.ProgressPrinter(tag="T")])
        C.training_session(trainer, train, 8, {x: train.streams.x, y: train.streams.y},
                           max_samples=40 * (phase + 1),
                           cv_config=C.CrossValidationConfig(cv, minibatch_size=7,
                                                             model_inputs_to_streams={x: cv.streams.x, y: cv.streams.y}),
                           test_config=C.TestConfig(test, minibatch_size=7,
                                                    model_inputs_to_streams={x: test.streams.x, y: test.streams.y})
                           ).train()
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Finished Evaluation")]
    assert lines == ["Finished Evaluation [1]: Minibatch[1-5]: metric = 40.00% * 30;",
                     "Finished Evaluation [2]: Minibatch[1-5]: metric = 40.00% * 30;",
                     "Finished Evaluation [1]: Minibatch[1-5]: metric = 33.33% * 30;",
                     "Finished Evaluation [2]: Minibatch[1-0]: metric = 0.00% * 0;"]
