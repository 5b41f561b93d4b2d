"""Checkpoint files: dicts of tensors and plain Python values written with ``torch.save`` and read back with
``torch.load(weights_only=True)`` (which never unpickles arbitrary objects).

As in CNTK a checkpoint is two files: ``filename`` holds the model (parameter values) and ``filename.ckp`` the
training state (learners, counters, random generators, external state). Both carry the same random token, so a
pair from different saves is detected. Each file is written atomically: to a temporary file in the target's
directory, flushed and fsync'ed, then renamed over the target; a failed write leaves the previous file intact.
"""
import os
import random
import tempfile
import uuid

import numpy as np
import torch

FORMAT = "cntk_compat.checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint file cannot be read: it is corrupt, truncated or not a checkpoint."""


MODEL_KEYS = ("parameters", "parameter_names")


def save(filename, state):
    """Writes ``state``: its MODEL_KEYS to ``filename``, the rest to ``filename.ckp``."""
    filename = os.fspath(filename)
    token = uuid.uuid4().hex
    model = {k: state[k] for k in MODEL_KEYS}
    training = {k: v for k, v in state.items() if k not in MODEL_KEYS}
    _write(filename + ".ckp", {"format": FORMAT, "version": VERSION, "token": token, "state": training})
    _write(filename, {"format": FORMAT, "version": VERSION, "token": token, "state": model})


def load(filename):
    """The state saved by :func:`save` (both files merged)."""
    filename = os.fspath(filename)
    model = _read(filename)
    training = _read(filename + ".ckp")
    if model["token"] != training["token"]:
        raise CheckpointError("checkpoint files '%s' and '%s.ckp' do not belong to the same checkpoint"
                              % (filename, filename))
    state = dict(training["state"])
    state.update(model["state"])
    return state


def _write(filename, payload):
    directory = os.path.dirname(os.path.abspath(filename))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(filename) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, filename)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read(filename):
    if not os.path.exists(filename):
        raise FileNotFoundError("checkpoint file '%s' does not exist" % filename)
    try:
        payload = torch.load(filename, map_location="cpu", weights_only=True)
    except Exception as e:
        raise CheckpointError("checkpoint file '%s' is corrupt or truncated (%s: %s)"
                              % (filename, type(e).__name__, e)) from e
    if not isinstance(payload, dict) or payload.get("format") != FORMAT or "state" not in payload or \
            "token" not in payload:
        raise CheckpointError("'%s' is not a cntk_compat checkpoint file" % filename)
    if payload.get("version") != VERSION:
        raise CheckpointError("checkpoint file '%s' has format version %r; this version reads version %d"
                              % (filename, payload.get("version"), VERSION))
    return payload


def random_state():
    """The state of torch's, numpy's and Python's global random generators as tensors and plain values."""
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    version, internal, gauss = random.getstate()
    state = {"torch": torch.get_rng_state(),
             "numpy": {"kind": kind, "keys": torch.from_numpy(keys.astype(np.int64)), "pos": int(pos),
                       "has_gauss": int(has_gauss), "cached_gaussian": float(cached)},
             "python": {"version": version, "internal": list(internal), "gauss": gauss}}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_random_state(state):
    torch.set_rng_state(state["torch"])
    n = state["numpy"]
    np.random.set_state((n["kind"], n["keys"].numpy().astype(np.uint32), n["pos"], n["has_gauss"],
                         n["cached_gaussian"]))
    p = state["python"]
    random.setstate((p["version"], tuple(p["internal"]), p["gauss"]))
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
