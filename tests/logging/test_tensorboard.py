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
