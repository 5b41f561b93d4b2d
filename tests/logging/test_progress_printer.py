"""ProgressPrinter lines against the outputs printed by CNTK 2.7 (tutorial seeds)."""
import os
import sys

import numpy as np
import pytest

import cntk.learners as learners
import cntk.logging as logging
from cntk.ops import parameter


def lines_of(capsys):
    return capsys.readouterr().out.splitlines()


def test_geometric_table(capsys):
    printer = logging.ProgressPrinter(0)
    loss, metric = 3.58 * 32, 0.5625 * 32
    printer.update_training(32, loss, metric)
    loss, metric = loss + 0.629 * 64, metric + 0.40625 * 64
    printer.update_training(32, None, None)        # update 2: not due, the values are not read
    printer.update_training(32, loss, metric)
    printer.write_training_summary(loss, metric)   # no epoch summary on a geometric schedule
    assert lines_of(capsys) == [
        " average      since    average      since      examples",
        "    loss       last     metric       last              ",
        " ------------------------------------------------------",
        "     3.58       3.58      0.562      0.562            32",
        "     1.61      0.629      0.458      0.406            96",
    ]


def test_geometric_schedule_updates():
    due = []

    class Writer(logging.ProgressWriter):
        def __init__(self):
            super(Writer, self).__init__(0, 0, sys.maxsize, 0, sys.maxsize, 0)

        def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
            due.append(updates[1])

    w = Writer()
    for i in range(40):
        w.update_training(32, 1.0 * (i + 1), None)
    assert due == [1, 3, 7, 15, 31]


def test_arithmetic_lines(capsys):
    printer = logging.ProgressPrinter(10)
    for i in range(10):
        printer.update_training(4, 0.307924 * 4 * (i + 1), 0.3079 * 4 * (i + 1))
    for i in range(10, 20):
        printer.update_training(4, 0.307924 * 40 + 0.235954 * 4 * (i - 9), 0.3079 * 40 + 0.236 * 4 * (i - 9))
    assert lines_of(capsys) == [
        " Minibatch[   1-  10]: loss = 0.307924 * 40, metric = 30.79% * 40;",
        " Minibatch[  11-  20]: loss = 0.235954 * 40, metric = 23.60% * 40;",
    ]


def test_first_then_frequency_and_loss_only(capsys):
    printer = logging.ProgressPrinter(50, first=2, metric_is_pct=False)
    total = 0.0
    for i in range(50):
        total += 0.5 * 32
        printer.update_training(32, total, None)
    assert lines_of(capsys) == [
        " Minibatch[   1-   1]: loss = 0.500000 * 32;",
        " Minibatch[   2-   2]: loss = 0.500000 * 32;",
        " Minibatch[   3-  50]: loss = 0.500000 * 1536;",
    ]


def test_epoch_and_evaluation_summaries(capsys):
    printer = logging.ProgressPrinter()
    printer.on_write_training_summary(20000, 625, 1, 0.344399 * 20000, 0.1258 * 20000, 2298)
    printer.on_write_training_summary(54000, 211, 2, 0.690009 * 54000, 0.2313 * 54000, 376212)
    for _ in range(32):
        printer.update_test(32, 0.0)
    printer.write_test_summary(0.0811 * 1024)
    tagged = logging.ProgressPrinter(tag='T', num_epochs=5, metric_is_pct=False)
    tagged.on_write_training_summary(100, 10, 3, 25.0, 5.0, 500)
    tagged.on_write_training_summary(100, 10, 4, 25.0, None, 500)
    assert lines_of(capsys) == [
        "Finished Epoch[1]: loss = 0.344399 * 20000, metric = 12.58% * 20000 2.298s (8703.2 samples/s);",
        "Finished Epoch[2]: loss = 0.690009 * 54000, metric = 23.13% * 54000 376.212s (143.5 samples/s);",
        "Finished Evaluation [1]: Minibatch[1-32]: metric = 8.11% * 1024;",
        "Finished Epoch[3 of 5]: [T] loss = 0.250000 * 100, metric = 0.050000 * 100 0.500s (200.0 samples/s);",
        "Finished Epoch[4 of 5]: [T] loss = 0.250000 * 100 0.500s (200.0 samples/s);",
    ]


def test_summary_counts_and_resets(capsys):
    printer = logging.ProgressPrinter(freq=sys.maxsize)
    printer.update_training(10, 5.0, 1.0)
    printer.write_training_summary(5.0, 1.0)
    printer.update_training(20, 2.0, 0.0)
    printer.write_training_summary(2.0, 0.0)
    for _ in range(2):
        printer.update_test(8, 0.0)
        printer.write_test_summary(4.0)
    out = lines_of(capsys)
    assert out[0].startswith("Finished Epoch[1]: loss = 0.500000 * 10, metric = 10.00% * 10")
    assert out[1].startswith("Finished Epoch[2]: loss = 0.100000 * 20, metric = 0.00% * 20")
    assert out[2:] == ["Finished Evaluation [1]: Minibatch[1-1]: metric = 50.00% * 8;",
                       "Finished Evaluation [2]: Minibatch[1-1]: metric = 50.00% * 8;"]


def test_learner_hyper_parameter_lines(capsys):
    w = parameter(shape=(2,), init=0.0)
    printer = logging.ProgressPrinter()
    plain = learners.sgd([w], learners.learning_parameter_schedule(0.1))
    plain.add_progress_writers([printer])
    plain.update({w: np.ones(2, np.float32)}, 32)
    momentum = learners.momentum_sgd([w], learners.learning_parameter_schedule_per_sample(0.001),
                                     learners.momentum_as_time_constant_schedule([0, 1024], epoch_size=2))
    momentum.add_progress_writers([printer])
    for _ in range(3):
        momentum.update({w: np.ones(2, np.float32)}, 1)
    assert lines_of(capsys) == ["Learning rate per minibatch: 0.1",
                                "Learning rate per 1 samples: 0.001",
                                "Momentum per 1 samples: 0.0",
                                "Momentum per 1 samples: 0.9990239141819757"]


def test_log_to_file(tmp_path, capsys):
    path = str(tmp_path / "my.log")
    printer = logging.ProgressPrinter(50, first=10, log_to_file=path)
    printer.write("Learning rate per minibatch", 0.1)
    printer.log("hello")
    printer.end_progress_print("bye")
    assert lines_of(capsys) == ["Redirecting log to file " + path]
    with open(path) as f:
        assert f.read().splitlines() == [path, "CNTKCommandTrainInfo: train : 300",
                                         "CNTKCommandTrainInfo: CNTKNoMoreCommands_Total : 300",
                                         "CNTKCommandTrainBegin: train", "Learning rate per minibatch: 0.1",
                                         "hello", "CNTKCommandTrainEnd: train", "bye"]
    logging.ProgressPrinter(log_to_file=path, rank=3, num_epochs=7)
    with open(path + "rank3") as f:
        assert f.read().splitlines()[1] == "CNTKCommandTrainInfo: train : 7"


def test_deprecated_manual_update(capsys):
    printer = logging.ProgressPrinter(2)
    with pytest.warns(DeprecationWarning):
        printer.update(0.5, 10, 0.25)
    printer.update(0.7, 10, 0.75)
    assert lines_of(capsys) == [" Minibatch[   1-   2]: loss = 0.600000 * 20, metric = 50.00% * 20;"]


def test_custom_writer_windows():
    class Mock(logging.ProgressWriter):
        def __init__(self):
            super(Mock, self).__init__(1, 0, 1, 0, sys.maxsize, 0)
            self.minibatches, self.summaries, self.ends = [], [], 0

        def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
            n = samples[1] - samples[0]
            self.minibatches.append(((aggregate_loss[1] - aggregate_loss[0]) / n,
                                     (aggregate_metric[1] - aggregate_metric[0]) / n, n, updates))

        def on_training_update_end(self):
            self.ends += 1

        def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                      elapsed_milliseconds):
            self.summaries.append((samples, updates, summaries, aggregate_loss, aggregate_metric))

    w = Mock()
    w.update_training(2, 1.0, 0.5)
    w.update_training(0, 1.0, 0.5)        # empty minibatches are not counted
    w.update_training(3, 4.0, 2.0)
    w.write_training_summary(4.0, 2.0)
    w.update_training(4, 2.0, 0.0)
    assert w.minibatches == [(0.5, 0.25, 2, (0, 1)), (1.0, 0.5, 3, (1, 2)), (0.5, 0.0, 4, (0, 1))]
    assert w.summaries == [(5, 2, 1, 4.0, 2.0)]
    assert w.ends == 4 and w.total_training_updates() == 3


def test_distributed_sync_line(capsys):
    printer = logging.ProgressPrinter(distributed_freq=2)
    for _ in range(4):
        printer.update_distributed_sync(16, 0.0)
    assert lines_of(capsys) == ["Distributed training: #Syncs elapsed = 2, #Samples elapsed = 32"] * 2


def test_bad_frequency():
    """CNTK 2.7 takes the counts as size_t: OverflowError outside [0, 2**64), TypeError for a non-integer, a bool
    is an integer (read from CNTK 2.7)."""
    for bad in (-1, 2 ** 65):
        with pytest.raises(OverflowError, match="training_update_frequency"):
            logging.ProgressPrinter(bad)
    with pytest.raises(OverflowError, match="training_update_first"):
        logging.ProgressPrinter(first=-1)
    for bad in (1.5, 'a'):
        with pytest.raises(TypeError, match="training_update_frequency"):
            logging.ProgressPrinter(bad)
    assert logging.ProgressPrinter(True, log_to_file=os.devnull) is not None


def test_trainer_without_metric_reports_a_zero_metric(capsys):
    """CNTK 2.7's Trainer with (loss, None) prints "metric = 0.00%" (lines printed by CNTK 2.7)."""
    import cntk as C
    x = C.input_variable(2)
    z = C.layers.Dense(1, init=0.1)(x)
    loss = C.reduce_sum(C.square(z))
    trainer = C.Trainer(z, (loss, None), [C.sgd(z.parameters, C.learning_parameter_schedule(0.01))],
                        [logging.ProgressPrinter(2, tag='T')])
    for _ in range(4):
        trainer.train_minibatch({x: np.ones((3, 2), np.float32)})
    trainer.summarize_training_progress()
    lines = [line for line in lines_of(capsys) if "Minibatch" in line or "Finished" in line]
    assert lines[0].endswith("* 6, metric = 0.00% * 6;")
    assert lines[1].endswith("* 6, metric = 0.00% * 6;")
    assert ", metric = 0.00% * 12 " in lines[2]


@pytest.mark.parametrize("make, momentum_line", [
    (lambda p, lr, m: learners.momentum_sgd(p, lr, m), True),
    (lambda p, lr, m: learners.nesterov(p, lr, m), False),
    (lambda p, lr, m: learners.adam(p, lr, m), False),
    (lambda p, lr, m: learners.fsadagrad(p, lr, m), False),
])
def test_only_momentum_sgd_reports_its_momentum(make, momentum_line, capsys):
    """CNTK 2.7 prints "Momentum per minibatch" for momentum_sgd, not for nesterov, adam or fsadagrad."""
    w = parameter(shape=(2,), init=0.0)
    learner = make([w], learners.learning_parameter_schedule(0.01), learners.momentum_schedule(0.9))
    learner.add_progress_writers([logging.ProgressPrinter()])
    learner.update({w: np.ones(2, np.float32)}, 3)
    expected = ["Learning rate per minibatch: 0.01"] + (["Momentum per minibatch: 0.9"] if momentum_line else [])
    assert lines_of(capsys) == expected


def test_every_printer_prints_the_build_information_on_stderr(capsys):
    # CNTK 2.7's ProgressPrinter calls cntk_py.print_built_info() in its constructor: a
    # "Build info:" block between dashed lines, on stderr, once per printer
    logging.ProgressPrinter(10)
    logging.ProgressPrinter(0)
    captured = capsys.readouterr()
    assert captured.err.count("Build info: \n") == 2
    assert captured.err.startswith("-" * 67 + "\nBuild info: \n")
    assert "Build info" not in captured.out

