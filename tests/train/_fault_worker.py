"""Fault injection into a training session's checkpoint saves and into Function.save (used by
test_fault_injection.py, run in its own process; prints one JSON line with the counts and outcomes).

The faults are injected into the os calls a save makes (os.open, os.write, os.fsync, os.replace), counted while
one save runs: a forked writer either SIGKILLs itself before the chosen call (or in the middle of a write, after
half of its bytes), or sees the call fail with ENOSPC. Afterwards a fresh process resumes from what is on disk;
the samples it trains, appended to the samples the killed run had trained up to the restored checkpoint, must
be the uninterrupted run's samples exactly (none lost, none repeated), with bitwise-equal final parameters.
"""
import errno
import json
import os
import signal
import sys
import tempfile

import numpy as np
import torch

torch.set_num_threads(1)

import cntk as C  # noqa: E402

SAMPLES, MINIBATCH, EVERY = 48, 4, 16
TARGET_SAVE = 2  # faults go into the second checkpoint save, so a previous complete checkpoint exists
PATCHED = ("open", "write", "fsync", "replace")


class Faults(object):
    """Counts the patched os calls made while armed; at call number ``at`` it kills the process or fails."""

    def __init__(self, at=None, mode=None):
        self.at, self.mode, self.calls, self.armed = at, mode, [], False
        self.real = {name: getattr(os, name) for name in PATCHED}
        for name in PATCHED:
            setattr(os, name, self._wrap(name))

    def _wrap(self, name):
        real = self.real[name]

        def call(*args, **kwargs):
            if self.armed:
                self.calls.append(name)
                if len(self.calls) == self.at:
                    if self.mode == "enospc":
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    if self.mode == "kill-mid-write":
                        real(args[0], bytes(memoryview(args[1])[: len(memoryview(args[1])) // 2]))
                    os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return call


class Numbered(C.io.UserMinibatchSource):
    """Samples whose first feature is their index; the cursor is checkpointed as a numpy integer, and every
    served sample index is appended to ``log``."""

    def __init__(self, log):
        rng = np.random.RandomState(0)
        self.x = np.hstack([np.arange(SAMPLES, dtype=np.float32)[:, None] / SAMPLES,
                            rng.randn(SAMPLES, 2).astype(np.float32)])
        self.y = np.eye(2, dtype=np.float32)[rng.randint(0, 2, SAMPLES)]
        self.fsi = C.io.StreamInformation("x", 0, "dense", np.float32, (3,))
        self.lsi = C.io.StreamInformation("y", 1, "dense", np.float32, (2,))
        self.cursor, self.log = np.int64(0), log
        super(Numbered, self).__init__()

    def stream_infos(self):
        return [self.fsi, self.lsi]

    def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
        start = int(self.cursor)
        end = min(start + num_samples, SAMPLES)
        if start >= end:
            return {}
        with open(self.log, "a") as f:
            f.write("".join("%d\n" % i for i in range(start, end)))
        self.cursor = np.int64(end)
        return {self.fsi: C.io.MinibatchData(C.Value(self.x[start:end]), end - start, end - start, False),
                self.lsi: C.io.MinibatchData(C.Value(self.y[start:end]), end - start, end - start, False)}

    def get_checkpoint_state(self):
        return {"cursor": self.cursor, "seen": np.arange(int(self.cursor) % 5)}

    def restore_from_checkpoint(self, state):
        assert isinstance(state["cursor"], np.int64) and isinstance(state["seen"], np.ndarray)
        self.cursor = state["cursor"]


def train(folder, faults=None, preserve_all=False):
    """Trains with checkpoints in ``folder`` (restoring the newest one); returns the final parameters and
    the samples seen right after the restore."""
    np.random.seed(0)
    torch.manual_seed(0)
    C.cntk_py.set_fixed_random_seed(1)
    x = C.input_variable(3, name="x")
    y = C.input_variable(2, name="y")
    z = C.layers.Dense(2, name="out")(C.layers.Dropout(0.3)(C.layers.Dense(8, activation=C.relu)(x)))
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)),
                        [C.adam(z.parameters, C.learning_parameter_schedule(0.05), C.momentum_schedule(0.9))])
    source = Numbered(os.path.join(folder, "served.log"))
    session = C.training_session(trainer, source, MINIBATCH, {x: source.fsi, y: source.lsi},
                                 max_samples=SAMPLES,
                                 checkpoint_config=C.CheckpointConfig(os.path.join(folder, "model.ckp"),
                                                                      frequency=EVERY, restore=True,
                                                                      preserve_all=preserve_all))
    restored = []
    original_restore = session._restore

    def restore():
        original_restore()
        restored.append(trainer.total_number_of_samples_seen)
    session._restore = restore
    if faults is not None:
        original_save = trainer.save_checkpoint
        saves = []

        def save(*args, **kwargs):
            saves.append(1)
            faults.armed = len(saves) == TARGET_SAVE
            try:
                return original_save(*args, **kwargs)
            finally:
                faults.armed = False
        trainer.save_checkpoint = save
    session.train()
    return np.concatenate([p.value.ravel() for p in z.parameters]), restored[0]


def served(folder):
    path = os.path.join(folder, "served.log")
    with open(path) as f:
        return [int(line) for line in f if line.strip()]


def in_child(body):
    """Runs ``body()`` in a forked process; (exit code or -signal, its JSON result or None)."""
    fd, result_path = tempfile.mkstemp()
    os.close(fd)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            result = body()
            with open(result_path, "w") as f:
                json.dump(result, f)
        except BaseException as e:  # noqa: B902 -- the parent reads the failure from the exit code and file
            with open(result_path, "w") as f:
                json.dump({"error": "%s: %s" % (type(e).__name__, e)}, f)
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    with open(result_path) as f:
        text = f.read()
    os.remove(result_path)
    return code, (json.loads(text) if text else None)


def checkpoint_faults(root, preserve_all):
    reference_dir = os.path.join(root, "reference")
    os.makedirs(reference_dir)
    code, reference = in_child(lambda: train(reference_dir, preserve_all=preserve_all)[0].tolist())
    assert code == 0, reference
    counter = {}

    def count():
        faults = Faults()
        train(os.path.join(root, "count"), faults, preserve_all)
        return faults.calls
    os.makedirs(os.path.join(root, "count"))
    code, calls = in_child(count)
    assert code == 0, calls
    points = [(at, "kill") for at in range(1, len(calls) + 1)] + \
             [(at, "kill-mid-write") for at, name in enumerate(calls, 1) if name == "write"] + \
             [(at, "enospc") for at in range(1, len(calls) + 1)]
    outcomes = {}
    for at, mode in points:
        folder = os.path.join(root, "%s-%d" % (mode, at))
        os.makedirs(folder)
        code, result = in_child(lambda: train(folder, Faults(at, mode), preserve_all)[1])
        checkpoint = os.path.join(folder, "model.ckp" + ("1" if preserve_all else ""))
        if mode == "enospc":
            assert code == 3 and "No space left" in result["error"] and checkpoint in result["error"], \
                (at, result)
        elif at <= len(calls):
            assert code == -signal.SIGKILL, (at, mode, code, result)
        killed_run = served(folder)
        code, resumed = in_child(lambda: [v.tolist() if hasattr(v, "tolist") else v
                                          for v in train(folder, preserve_all=preserve_all)])
        assert code == 0, (at, mode, resumed)
        parameters, restored_at = resumed
        assert restored_at in (EVERY, 2 * EVERY), (at, mode, restored_at)
        samples = killed_run[:restored_at] + served(folder)[len(killed_run):]
        assert samples == list(range(SAMPLES)), (at, mode, restored_at, samples)
        assert parameters == reference, (at, mode, "parameters differ from the uninterrupted run")
        leftovers = sorted(e for e in os.listdir(folder) if e.endswith(".tmp"))
        assert not leftovers, (at, mode, leftovers)
        key = "%s: resumed from the %s checkpoint" % (mode, "new" if restored_at == 2 * EVERY else "previous")
        outcomes[key] = outcomes.get(key, 0) + 1
    what = "checkpoint (preserve_all)" if preserve_all else "checkpoint"
    counter["%s save os calls" % what] = len(calls)
    counter["%s fault points" % what] = len(points)
    counter["%s outcomes" % what] = outcomes
    return counter


def model_faults(root):
    C.cntk_py.set_fixed_random_seed(1)
    z = C.layers.Dense(3, name="d")(C.input_variable(4, name="x"))
    path = os.path.join(root, "model.cmf")
    z.save(path)
    old = [p.value.copy() for p in z.parameters]
    for p in z.parameters:
        p.value = p.value + 1
    new = [p.value.copy() for p in z.parameters]

    def save(faults):
        faults.armed = True
        z.save(path)
        faults.armed = False
        return faults.calls
    code, calls = in_child(lambda: save(Faults()))
    assert code == 0, calls
    for p, v in zip(z.parameters, old):  # the counting run wrote the new values: put the old ones back
        p.value = v
    z.save(path)
    for p, v in zip(z.parameters, new):
        p.value = v
    points = [(at, "kill") for at in range(1, len(calls) + 1)] + \
             [(at, "kill-mid-write") for at, name in enumerate(calls, 1) if name == "write"] + \
             [(at, "enospc") for at in range(1, len(calls) + 1)]
    outcomes = {}
    for at, mode in points:
        code, result = in_child(lambda: save(Faults(at, mode)))
        if mode == "enospc":
            assert code == 3 and "No space left" in result["error"] and path in result["error"], (at, result)
        loaded = [p.value for p in C.load_model(path).parameters]
        which = [k for k, values in (("old", old), ("new", new))
                 if all(np.array_equal(a, b) for a, b in zip(loaded, values))]
        assert len(which) == 1, (at, mode, "the model file is neither the previous nor the new one")
        key = "%s: %s model" % (mode, which[0])
        outcomes[key] = outcomes.get(key, 0) + 1
        # put the previous model back for the next point; this save also removes the killed writes' temps
        for p, v in zip(z.parameters, old):
            p.value = v
        z.save(path)
        assert not [e for e in os.listdir(root) if e.endswith(".tmp")], (at, mode)
        for p, v in zip(z.parameters, new):
            p.value = v
    return {"model save os calls": len(calls), "model fault points": len(points), "model outcomes": outcomes}


if __name__ == "__main__":
    C.try_set_default_device(C.cpu())   # the writers are forked: CUDA cannot be used again in a forked child
    root = sys.argv[1]
    report = {}
    for preserve_all in (False, True):
        folder = os.path.join(root, "checkpoints-preserve_all" if preserve_all else "checkpoints")
        os.makedirs(folder)
        report.update(checkpoint_faults(folder, preserve_all))
    os.makedirs(os.path.join(root, "models"))
    report.update(model_faults(os.path.join(root, "models")))
    print(json.dumps(report, sort_keys=True))
