"""Seed 002 ("Manual minibatch loop and Training Session"): the manual loop, the checkpointed loop and the
training session cells run as printed, except that the CTF deserializer is replaced by an in-memory
``UserDeserializer`` holding the same four XOR rows (the CTF reader is tested with the io package) and the
distributed learner
wrapper / ``Communicator.finalize()`` of the training-session cell are dropped (no distribution here).

The printed losses depend on the random initialization and CNTK's data randomization, so the tests check the
printed format, the learning progress and the checkpoint/restore behaviour the seed describes.
"""
import os
import re

import numpy as np
import pytest

import cntk
from cntk.io import MinibatchSource, StreamInformation, UserDeserializer
from tests.seeds.seed002_cells import (CELL_CHECKPOINTED_LOOP, CELL_MANUAL_LOOP, CELL_TRAINING_SESSION,
                                       with_in_memory_reader, without_distribution)


class XorDeserializer(UserDeserializer):
    """The seed's CTF file ``|xy 0 0 |r 0`` ... as one in-memory chunk."""

    def stream_infos(self):
        return [StreamInformation("xy", 0, "dense", np.float32, (2,)),
                StreamInformation("r", 1, "dense", np.float32, (1,))]

    def num_chunks(self):
        return 1

    def get_chunk(self, chunk_id):
        return {"xy": np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32),
                "r": np.array([[0], [1], [1], [0]], np.float32)}


MANUAL_LOOP = with_in_memory_reader(CELL_MANUAL_LOOP)
CHECKPOINTED_LOOP = with_in_memory_reader(CELL_CHECKPOINTED_LOOP)
TRAINING_SESSION = without_distribution(with_in_memory_reader(CELL_TRAINING_SESSION))

_MINIBATCH_LINE = re.compile(r"^ Minibatch\[ *(\d+)- *(\d+)\]: loss = (\d+\.\d{6}) \* 40, metric = (\d+\.\d{2})% \* 40;$")


@pytest.fixture
def seed_namespace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cntk.cntk_py.set_fixed_random_seed(1)
    return {"MinibatchSource": MinibatchSource, "XorDeserializer": XorDeserializer}


def _minibatch_lines(out):
    return [_MINIBATCH_LINE.match(line) for line in out.splitlines() if line.startswith(" Minibatch[")]


def test_manual_loop(seed_namespace, capsys):
    exec(MANUAL_LOOP, seed_namespace)
    out = capsys.readouterr().out
    # the seed (printed by an older CNTK) reads "Learning rate per sample: 0.1"; CNTK 2.7 logs a schedule made
    # with learning_rate_schedule(..., UnitType.sample) "per 1 samples", as learning_parameter_schedule_per_sample
    assert out.splitlines()[0] == "Learning rate per 1 samples: 0.1"
    found = _minibatch_lines(out)
    assert len(found) == 20 and all(found)          # 800 samples / 4 per minibatch / freq 10
    assert [(int(m.group(1)), int(m.group(2))) for m in found[:2]] == [(1, 10), (11, 20)]
    losses = [float(m.group(3)) for m in found]
    assert losses[-1] < losses[0]
    # squared error is both loss and metric: the metric is the loss as a percentage
    assert all(abs(float(m.group(4)) - 100 * float(m.group(3))) < 0.006 for m in found)
    error = float(re.search(r"^Error (\d+\.\d{6})$", out, re.M).group(1))
    assert seed_namespace["trainer"].total_number_of_samples_seen == 800
    assert error < losses[0]


def test_checkpointed_loop_saves_and_restores(seed_namespace, capsys):
    exec(MANUAL_LOOP, seed_namespace)
    capsys.readouterr()
    exec(CHECKPOINTED_LOOP, seed_namespace)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "No restore file found"
    assert os.path.exists("manual_loop_checkpointed")
    assert seed_namespace["trainer"].total_number_of_samples_seen == 800
    weights = [p.value for p in seed_namespace["model"].parameters]

    # running the cell again restores the finished state: nothing is left to train
    exec(CHECKPOINTED_LOOP, seed_namespace)
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == ["Trying to restore from checkpoint", "Restore has finished successfully"]
    assert seed_namespace["trainer"].total_number_of_samples_seen == 800
    for before, after in zip(weights, [p.value for p in seed_namespace["model"].parameters]):
        np.testing.assert_array_equal(before, after)


def test_training_session(seed_namespace, capsys):
    exec(MANUAL_LOOP, seed_namespace)
    seed_namespace["checkpoint_frequency"] = 100     # set by the checkpointed-loop cell in the seed
    capsys.readouterr()
    exec(TRAINING_SESSION, seed_namespace)
    out = capsys.readouterr().out
    assert seed_namespace["trainer"].total_number_of_samples_seen == 800
    assert os.path.exists("training_session")
    minibatches = [line for line in out.splitlines() if line.startswith(" Minibatch[")]
    assert len(minibatches) == 200                   # ProgressPrinter(freq=1), 4 samples per minibatch
    assert re.match(r"^ Minibatch\[   1-   1\]: loss = \d+\.\d{6} \* 4, metric = \d+\.\d{2}% \* 4;$", minibatches[0])
    # the test config evaluates the 100 samples of the test source after training
    assert re.search(r"^Finished Evaluation \[1\]: Minibatch\[1-25\]: metric = \d+\.\d{2}% \* 100;$", out, re.M)
