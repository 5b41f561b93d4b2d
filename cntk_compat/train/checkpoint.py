"""Checkpoint files: dicts of tensors and plain Python values written with ``torch.save`` and read back with
``torch.load(weights_only=True)`` (which never unpickles arbitrary objects). numpy scalars and arrays in the
state are stored as tagged (dtype, shape, bytes) records and come back as numpy values.

As in CNTK a checkpoint is two files: ``filename`` holds the model and ``filename.ckp`` the training state
(learners, counters, random generators, external state). Given the Trainer's graph, the model file is that graph
saved as Function.save saves it, so ``load_model(filename)`` reads it as CNTK 2.7 reads its checkpoints' model
files; the parameter values are then kept in the ``.ckp`` too, and the token pairing the two files is a hash of
the model file's bytes. (Without a graph, or when the graph cannot be saved, the model file holds the parameter
values with a random token, the format this module wrote before; both load.)
A save stages both files completely (fsync'ed temporary files in the same folder, see core.atomic_file), then
renames the model file into place -- the commit point -- and then the ``.ckp`` file. A kill between the two
renames leaves the new ``.ckp`` staged under a name derived from the token, where :func:`load` finds it (and
moves it into place); so at every instant either the previous or the new checkpoint loads. Temporary files of
killed saves are removed by the next save of the same file.
"""
import hashlib
import io
import os
import random

import numpy as np
import torch

from ..core import atomic_file
from ..core.native_errors import MissingFileError, RuntimeValueError

FORMAT = "cntk_compat.checkpoint"
VERSION = 1
_NUMPY_TAG = "__cntk_compat_numpy__"
_PLAIN = (type(None), bool, int, float, complex, str, bytes, torch.Tensor)
_WHAT = "checkpoint file"


class CheckpointError(RuntimeValueError):
    """A checkpoint file cannot be read: it is corrupt, truncated or not a checkpoint (CNTK 2.7's RuntimeError)."""


MODEL_KEYS = ("parameters", "parameter_names")


def _model_file_bytes(graph):
    """The saved model of ``graph`` (as Function.save writes it), or None when it cannot be saved."""
    if graph is None:
        return None
    from ..core.serialization import default_format_bytes
    try:
        return default_format_bytes(graph)
    except Exception:   # e.g. a user function that cannot be serialized: the parameter-values model file
        return None


def _hash_token(data):
    return hashlib.sha256(memoryview(data).cast("B")).hexdigest()[:32]


def save(filename, state, graph=None):
    """Writes ``state``: the model (``graph`` saved as a model file, else MODEL_KEYS) to ``filename``, the rest
    to ``filename.ckp``."""
    filename = os.fspath(filename)
    training_file = filename + ".ckp"
    model_file = _model_file_bytes(graph)
    if model_file is not None:
        token = _hash_token(model_file)
        model_bytes = model_file
        training = _encode(dict(state), "the checkpoint state")
    else:
        token = atomic_file.new_tag()
        model_bytes = _serialize(token, {k: state[k] for k in MODEL_KEYS})
        training = _encode({k: v for k, v in state.items() if k not in MODEL_KEYS}, "the checkpoint state")
    training_bytes = _serialize(token, training)
    _finish_interrupted_save(filename)
    atomic_file.remove_stale_temps(filename)
    atomic_file.remove_stale_temps(training_file)
    training_tmp = atomic_file.stage(training_file, training_bytes, token, _WHAT)
    try:
        model_tmp = atomic_file.stage(filename, model_bytes, token, _WHAT)
    except BaseException:
        atomic_file.discard(training_tmp)
        raise
    try:
        atomic_file.commit(model_tmp, filename, _WHAT)
    except BaseException:
        if os.path.exists(model_tmp):  # not renamed: the previous checkpoint stays
            atomic_file.discard(model_tmp)
            atomic_file.discard(training_tmp)
        else:  # renamed, only the folder sync failed: the new checkpoint is committed and needs its .ckp
            atomic_file.commit(training_tmp, training_file, _WHAT)
        raise
    # committed: from here on the new checkpoint is the one that loads, with its .ckp staged or in place
    atomic_file.commit(training_tmp, training_file, _WHAT)


def _serialize(token, state):
    buffer = io.BytesIO()
    torch.save({"format": FORMAT, "version": VERSION, "token": token, "state": state}, buffer)
    return buffer.getbuffer()


def _staged_training_file(filename, token):
    return atomic_file.temp_path(filename + ".ckp", token)


def _finish_interrupted_save(filename):
    """Moves the staged .ckp of a save killed after its commit point into place."""
    if not atomic_file.stale_temps(filename + ".ckp") or not os.path.exists(filename):
        return
    try:
        token = _model_token(filename)[0]
    except (CheckpointError, OSError):
        return
    staged = _staged_training_file(filename, token)
    if os.path.exists(staged):
        atomic_file.commit(staged, filename + ".ckp", _WHAT)


def _check_file(filename):
    """CNTK 2.7's RuntimeErrors for a checkpoint path that is a directory or does not exist."""
    if os.path.isdir(filename):
        raise CheckpointError("checkpoint file '%s' is a directory" % filename)
    if not os.path.exists(filename):
        raise MissingFileError("checkpoint file '%s' does not exist" % filename)


def _model_token(filename):
    """(token, the model file's state or None): the token a parameter-values model file carries, or the hash of
    a saved-model file's bytes."""
    _check_file(filename)
    with open(filename, "rb") as f:
        data = f.read()
    if not data.startswith(b"PK"):      # torch.save's zip (the parameter-values file) starts so; a CNTK v2
        return _hash_token(data), None   # model does not (this package's own archive format is tried below)
    try:
        model = _read(filename)
    except CheckpointError:
        return _hash_token(data), None
    return model["token"], model["state"]


def load(filename):
    """The state saved by :func:`save` (both files merged)."""
    filename = os.fspath(filename)
    token, model_state = _model_token(filename)
    model = {"token": token}
    training_file = filename + ".ckp"
    staged = _staged_training_file(filename, model["token"])
    if os.path.exists(staged):  # the save was killed between its two renames
        training = _read(staged)
        try:
            atomic_file.commit(staged, training_file, _WHAT)
        except OSError:
            pass  # a read-only folder: the staged file serves this load
    else:
        training = _read(training_file)
    if model["token"] != training["token"]:
        raise CheckpointError("checkpoint files '%s' and '%s.ckp' do not belong to the same checkpoint"
                              % (filename, filename))
    state = _decode(training["state"])
    if model_state is not None:
        state.update(model_state)
    return state


def _read(filename):
    _check_file(filename)
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


# ----------------------------------------------------------------------------------------------- state values
def _encode(value, where):
    """``value`` with numpy scalars and arrays replaced by tagged records; anything a checkpoint cannot hold
    without pickle raises, naming where it is (so it fails at save, not at the restore after a crash)."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError("save_checkpoint: %s is a numpy array of Python objects, which a checkpoint cannot "
                            "hold; use numbers, strings, lists or dicts" % where)
        return {_NUMPY_TAG: (array.dtype.str, tuple(array.shape), isinstance(value, np.generic),
                             np.ascontiguousarray(array).tobytes())}
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        encoded = {}
        for k, v in value.items():
            if not isinstance(k, (str, int, float, bool, type(None), tuple)):
                raise TypeError("save_checkpoint: %s has a key of type %s (%r); keys must be strings or numbers"
                                % (where, type(k).__name__, k))
            encoded[k] = _encode(v, "%s[%r]" % (where, k))
        return encoded
    if isinstance(value, (list, tuple)):
        items = [_encode(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    raise TypeError("save_checkpoint: %s is a %s, which a checkpoint cannot hold; use numbers, strings, numpy "
                    "values, tensors, lists or dicts of them" % (where, type(value).__qualname__))


def _decode(value):
    if isinstance(value, dict):
        if len(value) == 1 and _NUMPY_TAG in value:
            dtype, shape, is_scalar, raw = value[_NUMPY_TAG]
            array = np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape).copy()
            return array[()] if is_scalar else array
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_decode(v) for v in value)
    return value


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
