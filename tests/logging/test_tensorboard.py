import glob

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import cntk.logging as logging
from cntk.ops import parameter


def read_events(log_dir):
    files = glob.glob(log_dir + "/events.out.tfevents.*")
    assert len(files) == 1
    acc = EventAccumulator(files[0], size_guidance={"scalars": 0, "histograms": 0, "images": 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, round(e.value, 5)) for e in acc.Scalars(tag)]


class Model(object):
    def __init__(self, params):
        self.parameters = params


def test_training_and_test_scalars(tmp_path):
    log_dir = str(tmp_path / "tb")
    w = parameter(shape=(2, 3), init=0.5, name="W")
    writer = logging.TensorBoardProgressWriter(freq=2, log_dir=log_dir, model=Model([w]))
    loss = metric = 0.0
    for i in range(4):
        loss += 0.25 * 10 * (i + 1)
        metric += 0.1 * 10
        writer.update_training(10, loss, metric)
    writer.write_training_summary(loss, metric)
    writer.update_test(5, 1.0)
    writer.write_test_summary(1.0)
    writer.write_value("custom/value", 7.5, 3)
    writer.flush()
    acc = read_events(log_dir)
    assert scalars(acc, "minibatch/avg_loss") == [(2, 0.375), (4, 0.875)]
    assert scalars(acc, "minibatch/avg_metric") == [(2, 0.1), (4, 0.1)]
    assert scalars(acc, "summary/avg_loss") == [(1, 0.625)]
    assert scalars(acc, "summary/avg_metric") == [(1, 0.1)]
    assert scalars(acc, "minibatch/test_avg_metric") == [(4, 0.2)]
    assert scalars(acc, "custom/value") == [(3, 7.5)]
    histograms = acc.Tags()["histograms"]
    assert histograms == ["parameters/W_" + w.uid]
    assert acc.Histograms(histograms[0])[0].histogram_value.num == 6
    writer.close()
    with pytest.raises(RuntimeError, match="closed"):
        writer.write_value("x", 1, 1)


def test_test_summary_before_training_and_images(tmp_path):
    log_dir = str(tmp_path / "tb")
    writer = logging.TensorBoardProgressWriter(log_dir=log_dir)
    writer.update_test(4, 2.0)
    writer.write_test_summary(2.0)
    writer.write_image("test", {"x": np.zeros((2, 1, 28, 28), dtype=np.float32)}, 0)
    writer.close()
    acc = read_events(log_dir)
    assert scalars(acc, "summary/test_avg_metric") == [(1, 0.5)]
    assert acc.Tags()["images"]
    with pytest.raises(NotImplementedError):
        writer.on_write_test_update((0, 1), (0, 1), (0.0, 1.0))


def test_only_rank_zero_writes(tmp_path):
    log_dir = str(tmp_path / "tb")
    writer = logging.TensorBoardProgressWriter(log_dir=log_dir, rank=1)
    writer.write_value("x", 1.0, 1)
    writer.close()
    assert not glob.glob(log_dir + "/events*")


def test_trainer_writes_scalars_and_histograms_of_the_model(tmp_path):
    import cntk as C
    log_dir = str(tmp_path / "tb")
    x = C.input_variable(2)
    y = C.input_variable(1)
    W = C.parameter((2, 1), init=np.array([[1.0], [2.0]], np.float32), name="W")
    b = C.parameter((1,), init=0.5, name="b")
    z = C.times(x, W) + b
    loss = C.squared_error(z, y)
    writer = logging.TensorBoardProgressWriter(freq=1, log_dir=log_dir, model=z)
    trainer = C.Trainer(z, (loss, loss), [C.sgd(z.parameters, C.learning_parameter_schedule(0.0))], [writer])
    X = np.array([[1, 0], [0, 1]], np.float32)
    for _ in range(2):
        trainer.train_minibatch({x: X, y: np.zeros((2, 1), np.float32)})
    trainer.summarize_training_progress()
    writer.close()
    acc = read_events(log_dir)
    # z = (1.5, 2.5): squared errors 2.25 and 6.25, average 4.25 on every minibatch
    assert scalars(acc, "minibatch/avg_loss") == [(1, 4.25), (2, 4.25)]
    assert scalars(acc, "summary/avg_loss") == [(1, 4.25)]
    tags = sorted(acc.Tags()["histograms"])
    assert tags == sorted(["parameters/W_" + W.uid, "parameters/b_" + b.uid])
    w_hist = acc.Histograms("parameters/W_" + W.uid)[0].histogram_value
    assert (w_hist.num, w_hist.min, w_hist.max, w_hist.sum) == (2, 1.0, 2.0, 3.0)
