import numpy as np
import pytest

import cntk as C
import cntk.learners
import cntk.ops
from cntk.learners import (IGNORE, UnitType, learning_parameter_schedule, learning_parameter_schedule_per_sample,
                           learning_rate_schedule, momentum_as_time_constant_schedule, momentum_schedule,
                           momentum_schedule_per_sample, training_parameter_schedule)
from cntk.learners.schedules import minibatch_size_schedule

LEGACY = [
    ((0.2, UnitType.sample), [0.2] * 4, 1),
    (([0.2, 0.4], UnitType.sample, 5), [0.2] * 5 + [0.4] * 20, 1),
    (([(3, 0.2), (2, 0.4), (1, 0.8)], UnitType.sample, 5), [0.2] * 15 + [0.4] * 10 + [0.8] * 20, 1),
    ((0.2, UnitType.minibatch), [0.2] * 4, 0),
    (([0.2, 0.4], UnitType.minibatch, 5), [0.2] * 5 + [0.4] * 20, 0),
    (([(3, 0.2), (2, 0.4), (1, 0.8)], 'minibatch', 5), [0.2] * 15 + [0.4] * 10 + [0.8] * 20, 0),
]

NEW = [
    ((0.2, 3), [0.2], 3),
    (([0.2, 0.4], 7, 5), [0.2] * 5 + [0.4] * 20, 7),
    (([(3, 0.2), (2, 0.4), (1, 0.8)], 13, 5), [0.2] * 15 + [0.4] * 10 + [0.8] * 20, 13),
    (([(3, 0.2), (2, 0.4), (1, 0.8)], 0, 5), [0.2] * 15 + [0.4] * 10 + [0.8] * 20, 0),
]


@pytest.mark.parametrize("args, expected, minibatch_size", LEGACY)
def test_learning_rate_schedule(args, expected, minibatch_size):
    s = learning_rate_schedule(*args)
    assert s.minibatch_size == minibatch_size
    assert [s[i] for i in range(len(expected))] == expected


@pytest.mark.parametrize("args, expected, minibatch_size", NEW)
def test_learning_parameter_schedule(args, expected, minibatch_size):
    s = learning_parameter_schedule(*args)
    assert s.minibatch_size == minibatch_size
    assert [s[i] for i in range(len(expected))] == expected
    assert [s(i) for i in range(len(expected))] == expected


def test_docstring_examples():
    s = training_parameter_schedule([(12, 0.1), (15, 0.01), (1, 0.001)], epoch_size=100)
    assert (s[0], s[1199], s[1200], s[2699], s[2700], s[5000]) == (0.1, 0.1, 0.01, 0.01, 0.001, 0.001)
    m = momentum_schedule([0.99, 0.9], 1000)
    assert (m[0], m[999], m[1000], m[1001]) == (0.99, 0.99, 0.9, 0.9)
    m = momentum_schedule([(999, 0.99), (888, 0.88), (0, 0.77)])
    assert (m[0], m[998], m[999], m[999 + 888 - 1], m[999 + 888]) == (0.99, 0.99, 0.88, 0.88, 0.77)
    assert m.is_sweep_based() and m.epoch_size == 0


def test_explicit_minibatch_size_flags():
    assert not learning_parameter_schedule(0.1).is_minibatch_size_explicitly_specified
    assert learning_parameter_schedule(0.1).minibatch_size == IGNORE
    assert learning_parameter_schedule(0.1, 0).is_minibatch_size_explicitly_specified
    assert learning_parameter_schedule_per_sample(0.1).minibatch_size == 1
    assert momentum_schedule_per_sample(0.9).minibatch_size == 1
    assert learning_rate_schedule(0.1, UnitType.minibatch).is_minibatch_size_explicitly_specified


def test_number_schedule_with_epoch_size_warns():
    with pytest.warns(RuntimeWarning):
        s = learning_parameter_schedule(0.5, epoch_size=10)
    assert s[1000] == 0.5


def test_time_constant_schedule():
    m = momentum_as_time_constant_schedule(2500)
    assert m.minibatch_size == 1 and m[0] == np.exp(-1.0 / 2500)
    ml = momentum_as_time_constant_schedule([980, 520])
    assert ml.minibatch_size == 1
    assert all(a == b for a, b in zip(ml, np.exp(-1.0 / np.asarray([980, 520]))))
    assert momentum_as_time_constant_schedule(0)[0] == 0.0


def test_schedule_passthrough_and_transform():
    s = learning_parameter_schedule([0.1, 0.2], minibatch_size=4, epoch_size=3)
    assert learning_parameter_schedule(s) is s
    doubled = s.transform(lambda v: 2 * v)
    assert (doubled[0], doubled[3], doubled.minibatch_size) == (0.2, 0.4, 4)
    assert (s[0], s[3]) == (0.1, 0.2)
    assert type(s).deserialize(s.serialize()) == s


def test_bad_input():
    with pytest.raises(ValueError, match="unit"):
        training_parameter_schedule(0.01, unit='not_supported')
    with pytest.raises(ValueError, match="unit"):
        training_parameter_schedule(0.01, unit=5)
    with pytest.raises(ValueError, match="schedule must be either a float or a list"):
        learning_parameter_schedule("0.1")
    with pytest.raises(ValueError, match="non-negative"):
        learning_parameter_schedule(-0.1)
    with pytest.raises(ValueError, match="minibatch_size"):
        learning_parameter_schedule(0.1, minibatch_size=-1)
    with pytest.raises(ValueError, match="epoch_size"):
        learning_parameter_schedule([0.1], epoch_size=-5)
    with pytest.raises(ValueError, match="pairs"):
        learning_parameter_schedule([(1, 2, 3)])
    with pytest.raises(ValueError, match="momentum"):
        momentum_as_time_constant_schedule("x")


def test_minibatch_size_schedule():
    s = minibatch_size_schedule([(12, 32), (15, 64), (1, 128)], 100)
    assert (s[0], s[1199], s[1200], s[2699], s[2700], s[5000]) == (32, 32, 64, 64, 128, 128)
    assert minibatch_size_schedule(32)[10 ** 6] == 32
    with pytest.raises(ValueError):
        minibatch_size_schedule(32, epoch_size=10)


def test_top_level_names_exist():
    for name in ("sgd", "adam", "learning_rate_schedule", "UnitType", "IGNORE", "UserLearner", "universal"):
        assert hasattr(C.learners, name)


def test_progress_log_names_the_unit_as_cntk_27(capsys):
    # CNTK 2.7 (its ResNet CIFAR-10 example, and this run) logs a learning_rate_schedule(..., UnitType.sample)
    # "per 1 samples", one of UnitType.minibatch "per minibatch"
    x = C.input_variable(2)
    y = C.input_variable(1)
    logs = []
    for schedule in (learning_rate_schedule(0.1, UnitType.sample), learning_rate_schedule(0.1, UnitType.minibatch),
                     learning_rate_schedule([0.1, 0.05], UnitType.sample, epoch_size=4)):
        z = C.layers.Dense(1)(x)
        loss = C.squared_error(z, y)
        learner = C.momentum_sgd(z.parameters, schedule, momentum_as_time_constant_schedule(10))
        trainer = C.Trainer(z, (loss, loss), learner, C.logging.ProgressPrinter())
        for _ in range(3):
            trainer.train_minibatch({x: np.ones((4, 2), np.float32), y: np.ones((4, 1), np.float32)})
        logs.append(capsys.readouterr().out.splitlines())
    assert logs == [["Learning rate per 1 samples: 0.1", "Momentum per 1 samples: 0.9048374180359595"],
                    ["Learning rate per minibatch: 0.1", "Momentum per 1 samples: 0.9048374180359595"],
                    ["Learning rate per 1 samples: 0.1", "Momentum per 1 samples: 0.9048374180359595",
                     "Learning rate per 1 samples: 0.05"]]


def test_epoch_size_ignored_warning_is_cntks_once_per_schedule_function():
    # CNTK 2.7 warns from inside each of its three schedule functions, so under Python's default filters a
    # script sees it once per function however often it calls them (checked: 3 warnings for this script)
    import os
    import subprocess
    import sys
    script = "\n".join([
        "import cntk as C",
        "a = C.learning_parameter_schedule(0.1, epoch_size=5)",
        "b = C.learning_parameter_schedule(0.2, epoch_size=5)",
        "c = C.momentum_schedule(0.9, epoch_size=5)",
        "d = C.momentum_as_time_constant_schedule(100, epoch_size=5)",
        "e = C.learning_rate_schedule(0.1, C.UnitType.sample, epoch_size=5)"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         timeout=120).stderr
    message = "RuntimeWarning: When providing the schedule as a number, epoch_size is ignored"
    assert err.count(message) == 3, err
    assert err.count("  warnings.warn('When providing the schedule as a number, epoch_size is ignored', "
                     "RuntimeWarning)") == 3
    assert "<string>" not in err


def test_empty_schedule_and_unit_strings_as_in_cntk27():
    # CNTK 2.7: "TrainingParameterSchedule::ConstructSchedule : schedule is empty." (a RuntimeError)
    with pytest.raises(RuntimeError, match="schedule is empty"):
        C.learning_parameter_schedule([])
    # CNTK 2.7 compares the unit with UnitType.sample: the string 'sample' passes its check but means per minibatch
    assert C.learning_rate_schedule(0.1, 'sample').minibatch_size == 0
    assert C.learning_rate_schedule([0.1, 0.2], 'sample', epoch_size=3).minibatch_size == 0
    assert C.learning_rate_schedule(0.1, C.UnitType.sample).minibatch_size == 1
    assert C.learning_rate_schedule(0.1, 'minibatch').minibatch_size == 0


@pytest.mark.parametrize('schedule,epoch_size', [([np.int64(2)], 1), ([(2.0, 32)], 1), ([(2, 32.0)], 1),
                                                 ([1.0, 2.0], 1), ([(2, 32, 5)], 1), ([4, 8], 2.0),
                                                 ([4, 8], np.int64(2)), ([-1], 1)])
def test_minibatch_size_schedule_lists_take_ints_only(schedule, epoch_size):
    # CNTK 2.7 hands the (count, size) pairs and epoch_size to SWIG as size_t
    with pytest.raises(NotImplementedError, match="^Wrong number or type of arguments for overloaded function "
                                                  "'new_minibatch_size_schedule'\\."):
        minibatch_size_schedule(schedule, epoch_size)


def test_minibatch_size_schedule_takes_python_ints_and_bools():
    s = minibatch_size_schedule([True, 3])
    assert (s[0], s[1], s[25]) == (1, 3, 3)
    assert minibatch_size_schedule(True)[0] == 1
    assert minibatch_size_schedule([[2, 32], [1, 64]], 10)[25] == 64
    for schedule in (2.0, np.int64(3)):
        with pytest.raises(ValueError, match='^schedule must be either an int or a list'):
            minibatch_size_schedule(schedule)
