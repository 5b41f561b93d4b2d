"""CNTK's performance profiler on torch.profiler.

start_profiler(dir) prepares a profiling session; data is gathered only while the profiler is enabled. Each
enabled span (enable_profiler .. disable_profiler, or .. stop_profiler) is written when it ends as one trace
file ``<dir>/<host>_<pid>.<time>.pt.trace.json``: a Chrome trace (chrome://tracing, Perfetto) that
TensorBoard's PyTorch profiler plugin also reads from ``dir``.
"""
import os

import torch
from torch.profiler import ProfilerActivity, profile, tensorboard_trace_handler

__all__ = ["start_profiler", "stop_profiler", "enable_profiler", "disable_profiler"]

DEFAULT_PROFILER_BUFFER_SIZE = 32 * 1024 * 1024  # CNTK's default reserve_mem, in bytes

_session = {"dir": None, "sync_gpu": True, "active": None}


def _activities():
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    return activities


def _sync():
    if _session["sync_gpu"] and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def start_profiler(dir='profiler', sync_gpu=True, reserve_mem=DEFAULT_PROFILER_BUFFER_SIZE):
    """Prepares profiling into directory ``dir`` (created if needed); call enable_profiler() to start
    gathering. ``sync_gpu``: wait for the GPU at the edges of each enabled span so its kernels are in the
    trace. ``reserve_mem`` is checked but otherwise unused: torch's profiler sizes its own buffers."""
    if not isinstance(dir, str) or not dir:
        raise ValueError("start_profiler: dir must be a non-empty directory path, got %r" % (dir,))
    if isinstance(reserve_mem, bool) or not isinstance(reserve_mem, int) or reserve_mem <= 0:
        raise ValueError("start_profiler: reserve_mem must be a positive number of bytes, got %r" % (reserve_mem,))
    if _session["dir"] is not None:
        stop_profiler()
    os.makedirs(dir, exist_ok=True)
    _session.update(dir=dir, sync_gpu=bool(sync_gpu), active=None)


def enable_profiler():
    """Starts gathering performance data (after start_profiler). Without a started profiler it does
    nothing, as in CNTK 2.7 (its ResNet example calls it after every epoch, profiling or not)."""
    if _session["dir"] is None or _session["active"] is not None:
        return
    _sync()
    active = profile(activities=_activities(), record_shapes=True,
                     on_trace_ready=tensorboard_trace_handler(_session["dir"]))
    active.start()
    _session["active"] = active


def disable_profiler():
    """Stops gathering and writes what was gathered since enable_profiler() into the profiler directory."""
    active = _session["active"]
    if active is None:
        return
    _sync()
    _session["active"] = None
    active.stop()


def stop_profiler():
    """Ends the profiling session, writing the data of a span still enabled."""
    disable_profiler()
    _session["dir"] = None
