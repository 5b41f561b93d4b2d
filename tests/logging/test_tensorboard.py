import glob

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import cntk.logging as logging


def read_events(log_dir):
    files = glob.glob(log_dir + "/events.out.tfevents.*")
    assert len(files) == 1
    acc = EventAccumulator(files[0], size_guidance={"scalars": 0, "histograms": 0, "images": 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, round(e.value, 5)) for e in acc.Scalars(tag)]


def test_training_and_test_scalars(tmp_path):
    log_dir = str(tmp_path / "tb")
    writer = logging.TensorBoardProgressWriter(freq=2, log_dir=log_dir)
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
    assert not acc.Tags()["graph"]
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


def test_no_file_before_the_first_record(tmp_path):
    # CNTK 2.7 creates the event file (with the graph) when the first record is written
    import cntk as C
    log_dir = str(tmp_path / "tb")
    writer = logging.TensorBoardProgressWriter(log_dir=log_dir, model=C.input_variable(2) + 1)
    assert not glob.glob(log_dir + "/events*")
    writer.write_value("x", 1.0, 1)
    writer.flush()
    (name,) = [p.split("/")[-1] for p in glob.glob(log_dir + "/events*")]
    import socket
    assert name.startswith("events.out.tfevents.") and name.endswith("." + socket.gethostname())
    assert len(name.split(".")[3]) == 10


def test_trainer_writes_scalars_and_the_graph_of_the_model(tmp_path):
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
    # CNTK 2.7 writes no histograms, and the graph of the model as below (checked with CNTK 2.7: node names are
    # names or uids, ops CNTK's op names or the leaf kinds, shapes reversed, the C++ operand order of times)
    assert not acc.Tags()["histograms"]
    nodes = [(n.name, n.op, list(n.input), n.attr["dtype"].type, [d.size for d in n.attr["shape"].shape.dim])
             for n in acc.Graph().node]
    plus, times = z.root_function, z.root_function.inputs[0].owner
    assert nodes == [
        (plus.uid, "Plus", [times.uid, "b"], 1, [1]),
        (times.uid, "Times", ["W", x.uid], 1, [1]),
        ("W", "Parameter", [], 1, [1, 2]),
        (x.uid, "Input", [], 1, [2]),
        ("b", "Parameter", [], 1, [1]),
    ]
