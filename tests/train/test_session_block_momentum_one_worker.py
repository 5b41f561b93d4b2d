"""A training session with a block momentum learner and a single worker summarizes where its sample count passes
the progress frequency, as without the learner (CNTK 2.7; its bptt_checkpointing end-to-end test trains so). The
block (1000 samples) is never reached here. Expected lines and parameters: CNTK 2.7 on the same data."""
import re

import numpy as np

import cntk as C

CNTK27_SUMMARIES = [("1.071833", 9), ("0.236798", 6), ("0.435072", 6), ("0.168112", 9), ("0.162987", 6),
                    ("0.118890", 4)]
CNTK27_PARAMETERS = [[-0.3770242929458618, -0.13499855995178223], [1.2226619720458984]]


def test_one_worker_summarizes_at_the_progress_frequency(tmp_path, capsys):
    path = str(tmp_path / "data.ctf")
    with open(path, "w") as f:
        for i in range(20):
            f.write("|x %g %g |y %g\n" % (i * 0.1, 1 - i * 0.05, (i % 3) * 0.5))
    streams = C.io.StreamDefs(x=C.io.StreamDef("x", 2), y=C.io.StreamDef("y", 1))
    src = C.io.MinibatchSource(C.io.CTFDeserializer(path, streams), randomize=False, max_sweeps=2)
    x, y = C.input_variable(2), C.input_variable(1)
    z = C.layers.Dense(1, init=C.glorot_uniform(seed=1))(x)
    loss = C.squared_error(z, y)
    local = C.sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.1))
    learner = C.train.distributed.block_momentum_distributed_learner(local, block_size=1000)
    trainer = C.Trainer(z, (loss, loss), learner, [C.logging.ProgressPrinter(tag="T")])
    C.training_session(trainer=trainer, mb_source=src, mb_size=3, progress_frequency=7,
                       model_inputs_to_streams={x: src.streams.x, y: src.streams.y}).train()
    out = capsys.readouterr().out
    summaries = re.findall(r"Finished Epoch\[\d+\]: \[T\] loss = (\S+) \* (\d+),", out)
    # the counts exactly; the losses to the last printed digit's rounding: from the second update on the bias
    # differs from CNTK's by an ulp (CNTK 2.7 sums the batch's bias gradients in double, torch in float32)
    assert [int(n) for _, n in summaries] == [n for _, n in CNTK27_SUMMARIES]
    np.testing.assert_allclose([float(v) for v, _ in summaries], [float(v) for v, _ in CNTK27_SUMMARIES],
                               rtol=0, atol=1.5e-6)
    assert trainer.total_number_of_samples_seen == 40
    for p, expected in zip(z.parameters, CNTK27_PARAMETERS):
        np.testing.assert_allclose(p.value.ravel(), expected, rtol=0, atol=1e-6)
