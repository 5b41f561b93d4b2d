"""Global debugging switches: deterministic algorithms, checked mode, network trace level, node timing.

CNTK's engine evaluates node by node; here a graph runs as one lowered torch module, so the switches act on
torch's own machinery:

- deterministic algorithms: torch's deterministic kernels and cuDNN without autotuning;
- checked mode: NaN checks of the Functions compiled while it is on (see :func:`set_checked_mode`);
- trace level and node timing: see :mod:`.tracing` (a forward hook on the lowered modules).
"""
import warnings

import torch

from .. import cntk_py

__all__ = ["force_deterministic", "force_deterministic_algorithms", "set_checked_mode", "is_checked_mode"]


def force_deterministic_algorithms():
    """Makes torch pick deterministic kernels (an op without one warns) and turns off cuDNN autotuning, so
    repeated runs on the same data compute the same numbers."""
    cntk_py.force_deterministic_algorithms(True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def force_deterministic(seed):
    """Seeds every random generator with ``seed`` and forces deterministic algorithms."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError("force_deterministic: seed must be a non-negative int, got %r" % (seed,))
    # as in CNTK, whose recurrent (cuDNN RNN) nodes were not deterministic; torch's fused RNN kernels on GPU
    # are not either
    warnings.warn("RNN based nodes don't run deterministically yet.", Warning)
    cntk_py.set_fixed_random_seed(seed)
    force_deterministic_algorithms()


def set_checked_mode(enable):
    """CNTK's checked mode: a Function first evaluated (compiled) while it is on checks the output of every
    node for NaN and raises ``RuntimeError("<node> <Op> operation unexpectedly produced NaN values.")`` after
    printing CNTK's ``HasNan: NaN detected at EndForwardProp (row,col) in (rows,cols) matrix`` line; as in
    CNTK, a Function compiled before stays unchecked and one compiled in checked mode stays checked when the
    mode is turned off. (CNTK's checked mode also filled the gaps of padded sequences with NaN to catch ops
    that read them; here every op masks padding by construction.) To find where a NaN gradient comes from,
    use ``torch.autograd.set_detect_anomaly(True)``."""
    cntk_py.set_checked_mode(enable)


def is_checked_mode():
    return cntk_py.is_checked_mode()
