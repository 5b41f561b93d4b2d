"""ATen ops per training step: ``trainer.train_minibatch`` vs bench_rnn's hand-written PyTorch step, on CPU.

On a GPU the small recurrent models of bench_rnn are bound by host work and kernel launches, so every extra
ATen op in a training step costs there (about 10-20 us each, launch or dispatch). This tool counts them on
the CPU, where no GPU is needed: it builds bench_rnn's workloads (same models, same minibatches, same weights),
warms both sides up, then records STEPS training steps of each side with torch.profiler and prints, per step:

- ``aten``: every ATen op the dispatcher ran (nested ones included: aten::linear's aten::addmm counts too);
- ``top``: the top-level ATen ops (those not called from inside another ATen op): the calls Python or the
  autograd engine made, what the host pays the Python-to-dispatcher cost for;
- ``copies``: aten::copy_ calls (.to / .contiguous / clone / index_put all end in one), and ``syncs``:
  aten::item / aten::_local_scalar_dense (host reads of a tensor: on a GPU each waits for the device);
- ``self cpu``: the summed self CPU time of the ATen ops, per step (profiler overhead included, so compare
  the two sides, not the absolute figure with bench_rnn's);
- the top-level op names by count, ours beside torch's, and the ops ours runs more often than torch's.

With --device cuda it profiles the CUDA activity too and adds, per step, the kernels launched (``kernels``), the
host-device copies (``memcpy``: cudaMemcpy* calls) and the host waits (``waits``: cudaStreamSynchronize /
cudaDeviceSynchronize / cudaEventSynchronize, what a .item() or a device-to-host copy costs).
--packed makes the CPU run take the paths a GPU takes: the packed kernel for sequences of different lengths
(not mkldnn over the padded batch), and two stacked LSTM loops as one two-layer call (FusedStack), to count
those paths' ops where no GPU is at hand.

Usage: python benchmarks/profile_step_ops.py [--only lstm,lm] [--steps N] [--top K] [--threads N]
       [--device cpu|cuda] [--packed]
The workload names are bench_rnn's (lstm, lm, gru, rnn, bilstm, peephole).
"""
import argparse
import collections
import contextlib
import os
import sys

os.environ.setdefault("KINETO_LOG_LEVEL", "5")  # kineto's start / stop lines on stderr

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_rnn  # noqa: E402  (bench_rnn imports bench_latency from this folder)

SYNC_OPS = ("aten::item", "aten::_local_scalar_dense")
WAITS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize")


RNN_KERNELS = ("aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu")


def _is_aten(event):
    return event.name.startswith("aten::")


def _ancestors(event):
    parent = event.cpu_parent
    while parent is not None:
        yield parent
        parent = parent.cpu_parent


def _kernel_sequence_numbers(events):
    """The autograd sequence numbers of the ops an RNN kernel call (aten::lstm ...) ran, itself included: the
    backward nodes of those numbers are the kernel's backward (one mkldnn or cuDNN node, or on the CPU's packed
    path the step loop's hundreds)."""
    numbers = set()
    for e in events:
        if e.sequence_nr >= 0 and (e.name in RNN_KERNELS or any(a.name in RNN_KERNELS for a in _ancestors(e))):
            numbers.add(e.sequence_nr)
    return numbers


def _in_kernel(event, numbers):
    for a in _ancestors(event):
        if a.name in RNN_KERNELS or (a.name.startswith("autograd::engine::evaluate_function")
                                     and a.sequence_nr in numbers):
            return True
    return False


def _counts(events, steps):
    """Per-step figures of one profiled run: totals, and top-level op counts by name outside the RNN kernels."""
    top = collections.Counter()
    allops = collections.Counter()
    runtime = collections.Counter()
    numbers = _kernel_sequence_numbers(events)
    kernels = outside = calls = 0
    self_us = outside_us = 0.0
    for e in events:
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernels += 1
            continue
        if e.name.startswith("cuda"):
            runtime[e.name] += 1
            continue
        if not _is_aten(e):
            continue
        allops[e.name] += 1
        self_us += e.self_cpu_time_total
        if e.name in RNN_KERNELS and not any(_is_aten(a) for a in _ancestors(e)):
            calls += 1
        if _in_kernel(e, numbers):
            continue
        outside += 1
        outside_us += e.self_cpu_time_total
        if not any(_is_aten(a) for a in _ancestors(e)):
            top[e.name] += 1
    return {"aten": sum(allops.values()) / steps, "outside": outside / steps, "top": sum(top.values()) / steps,
            "rnn_calls": calls / steps,
            "copies": allops["aten::copy_"] / steps, "syncs": sum(allops[n] for n in SYNC_OPS) / steps,
            "self_ms": self_us / steps / 1e3, "outside_ms": outside_us / steps / 1e3,
            "by_name": {k: v / steps for k, v in top.items()},
            "kernels": kernels / steps, "waits": sum(runtime[n] for n in WAITS) / steps,
            "memcpy": sum(v for n, v in runtime.items() if n.startswith("cudaMemcpy")) / steps}


def profile_steps(step, steps, device, warmup=3):
    """Figures per step of calling ``step`` STEPS times under torch.profiler (CPU activity, and CUDA's on cuda)."""
    for _ in range(warmup):
        step()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities) as prof:
        for _ in range(steps):
            step()
        if device == "cuda":
            torch.cuda.synchronize()
    return _counts(prof.events(), steps)


def report(name, ours, theirs, k, device):
    print("== %s: per training step (outside: the ATen ops outside the RNN kernels' forward and backward)" % name)
    for side, c in (("ours", ours), ("torch", theirs)):
        cuda = "  kernels %6.1f  memcpy %4.1f  waits %4.1f" % (c["kernels"], c["memcpy"], c["waits"]) \
            if device == "cuda" else ""
        print("  %-5s aten %7.1f  rnn calls %3.1f  outside: aten %6.1f  top %6.1f  self cpu %6.2f ms | all: copies "
              "%5.1f  syncs %4.1f  self cpu %7.2f ms%s"
              % (side, c["aten"], c["rnn_calls"], c["outside"], c["top"], c["outside_ms"], c["copies"], c["syncs"],
                 c["self_ms"], cuda))
    print("  top-level ops outside the kernels by count (ours | torch):")
    a = sorted(ours["by_name"].items(), key=lambda kv: -kv[1])[:k]
    b = sorted(theirs["by_name"].items(), key=lambda kv: -kv[1])[:k]
    for i in range(max(len(a), len(b))):
        left = "%-34s %6.1f" % a[i] if i < len(a) else " " * 41
        right = "%-34s %6.1f" % b[i] if i < len(b) else ""
        print("    %s | %s" % (left, right))
    extra = {n: v - theirs["by_name"].get(n, 0.0) for n, v in ours["by_name"].items()}
    extra = sorted(((n, d) for n, d in extra.items() if d > 0), key=lambda kv: -kv[1])[:k]
    print("  ours runs more often: " + ", ".join("%s +%.1f" % kv for kv in extra))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="lstm,lm")
    parser.add_argument("--steps", type=int, default=8, help="profiled training steps per side")
    parser.add_argument("--top", type=int, default=12, help="op names listed per side")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--packed", action="store_true", help="on the CPU, take the GPU's kernel paths")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    C = bench_rnn.C
    C.device.try_set_default_device(C.device.gpu(0) if args.device == "cuda" else C.device.cpu())
    patches = []
    if args.packed:
        from unittest import mock
        from cntk_compat.core import fused_recurrence
        patches = [mock.patch.object(fused_recurrence, "_pads_on_mkldnn", lambda *a: False),
                   mock.patch.object(fused_recurrence, "_STACKED_DEVICES", ("cuda", "cpu"))]
    bench_args = argparse.Namespace(device=args.device, steps=args.steps)
    builders = {"lstm": lambda rng: bench_rnn.classifier("lstm", rng, bench_args),
                "lm": lambda rng: bench_rnn.language_model(rng, bench_args),
                "gru": lambda rng: bench_rnn.classifier("gru", rng, bench_args),
                "rnn": lambda rng: bench_rnn.classifier("rnn", rng, bench_args),
                "bilstm": lambda rng: bench_rnn.bilstm_tagger(rng, bench_args),
                "peephole": lambda rng: bench_rnn.classifier("peephole", rng, bench_args)}
    lines = []
    print("torch %s, device %s%s: figures per training step, %d steps profiled per side"
          % (torch.__version__, args.device, " (the GPU's kernel paths)" if args.packed else "", args.steps))
    for name in args.only.split(","):
        ours, theirs, _ = builders[name](np.random.default_rng(0))
        with contextlib.ExitStack() as stack:
            for p in patches:
                stack.enter_context(p)
            o = profile_steps(ours, args.steps, args.device)
        t = profile_steps(theirs, args.steps, args.device)
        report(name, o, t, args.top, args.device)
        lines.append("%s %.0f vs %.0f (top %.0f vs %.0f, copies %.0f vs %.0f%s)" % (
            name, o["outside"], t["outside"], o["top"], t["top"], o["copies"], t["copies"],
            ", kernels %.0f vs %.0f, waits %.0f vs %.0f" % (o["kernels"], t["kernels"], o["waits"], t["waits"])
            if args.device == "cuda" else ""))
    print("aten ops per step outside the rnn kernels, ours vs torch: " + ", ".join(lines))


if __name__ == "__main__":
    main()
