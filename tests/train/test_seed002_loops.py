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

MANUAL_LOOP = r"""
from __future__ import print_function
from __future__ import division

import cntk
import cntk.ops
import cntk.io
import cntk.train

from cntk.layers import Dense, Sequential
from cntk.io import StreamDef, StreamDefs, MinibatchSource, CTFDeserializer
from cntk.logging import ProgressPrinter

# Let's prepare data in the CTF format. It exactly matches
# the table above
INPUT_DATA = r'''|xy 0 0	|r 0
|xy 1 0	|r 1
|xy 0 1	|r 1
|xy 1 1	|r 0
'''

# Write the data to a temporary file
input_file = 'input'
with open(input_file, 'w') as f:
    f.write(INPUT_DATA)

# Create a network
xy = cntk.input_variable(2)
label = cntk.input_variable(1)

model = Sequential([
    Dense(2, activation=cntk.ops.tanh),
    Dense(1)])

z = model(xy)
loss = cntk.squared_error(z, label)

# Define our input data streams
streams = StreamDefs(
    xy = StreamDef(field='xy', shape=2),
    r = StreamDef(field='r', shape=1))

# Create a learner and a trainer and a progress writer to 
# output current progress
learner = cntk.sgd(model.parameters, cntk.learning_rate_schedule(0.1, cntk.UnitType.sample))
trainer = cntk.train.Trainer(z, (loss, loss), learner, ProgressPrinter(freq=10))

# Now let's create a minibatch source for out input file
mb_source = MinibatchSource(XorDeserializer())
input_map = { xy : mb_source['xy'], label : mb_source['r'] }

# Run a manual training minibatch loop
minibatch_size = 4
max_samples = 800
train = True
while train and trainer.total_number_of_samples_seen < max_samples:
    data = mb_source.next_minibatch(minibatch_size, input_map)
    train = trainer.train_minibatch(data)

# Run a manual evaluation loop ussing the same data file for evaluation
test_mb_source = MinibatchSource(XorDeserializer(), randomize=False, max_samples=100)
test_input_map = { xy : test_mb_source['xy'], label : test_mb_source['r'] }
total_samples = 0
error = 0.
data = test_mb_source.next_minibatch(32, input_map)
while data:
    total_samples += data[label].number_of_samples 
    error += trainer.test_minibatch(data) * data[label].number_of_samples
    data = test_mb_source.next_minibatch(32, test_input_map)

print("Error %f" % (error / total_samples))
"""

CHECKPOINTED_LOOP = r"""
# Run a manual training minibatch loop with checkpointing
import os

# Initialize main objects
mb_source = MinibatchSource(XorDeserializer())
input_map = { xy : mb_source['xy'], label : mb_source['r'] }

learner = cntk.sgd(model.parameters, cntk.learning_rate_schedule(0.1, cntk.UnitType.sample))
trainer = cntk.train.Trainer(z, (loss, loss), learner, ProgressPrinter(freq=10))

# Try to restore if the checkpoint exists
checkpoint = 'manual_loop_checkpointed'

if os.path.exists(checkpoint):
    print("Trying to restore from checkpoint")
    mb_source_state = trainer.restore_from_checkpoint(checkpoint)
    mb_source.restore_from_checkpoint(mb_source_state)
    print("Restore has finished successfully")
else:
    print("No restore file found")
    
checkpoint_frequency = 100
last_checkpoint = 0
train = True
while train and trainer.total_number_of_samples_seen < max_samples:
    data = mb_source.next_minibatch(minibatch_size, input_map)
    train = trainer.train_minibatch(data)
    if trainer.total_number_of_samples_seen / checkpoint_frequency != last_checkpoint:
        mb_source_state = mb_source.get_checkpoint_state()
        trainer.save_checkpoint(checkpoint, mb_source_state)
        last_checkpoint = trainer.total_number_of_samples_seen / checkpoint_frequency
"""

TRAINING_SESSION = r"""
checkpoint = 'training_session'

# Minibatch sources
mb_source = MinibatchSource(XorDeserializer())
test_mb_source = MinibatchSource(XorDeserializer(), randomize=False, max_samples=100)

learner = cntk.sgd(model.parameters, cntk.learning_rate_schedule(0.1, cntk.UnitType.sample))
trainer = cntk.train.Trainer(z, (loss, loss), learner, ProgressPrinter(freq=1))

test_config=cntk.TestConfig(minibatch_source = test_mb_source,
                            model_inputs_to_streams={ xy : test_mb_source['xy'], label : test_mb_source['r'] })

session = cntk.training_session(
    trainer = trainer, mb_source = mb_source, 
    mb_size = minibatch_size, 
    model_inputs_to_streams={ xy : mb_source['xy'], label : mb_source['r'] },
    max_samples = max_samples,
    checkpoint_config=cntk.CheckpointConfig(frequency=checkpoint_frequency, filename=checkpoint),
    test_config=cntk.TestConfig(minibatch_source = test_mb_source, minibatch_size = minibatch_size,
                                model_inputs_to_streams={ xy : test_mb_source['xy'], label : test_mb_source['r'] }))

session.train()
"""

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
    # a schedule made with learning_rate_schedule(..., UnitType.sample) logs "per sample", as the seed prints;
    # learning_parameter_schedule_per_sample logs "per 1 samples" (seed 000)
    assert out.splitlines()[0] == "Learning rate per sample: 0.1"
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
