"""core.gru_triton's kernels compute CNTK's GRU recurrence as the packed step loop of core.fused_gru does: values
and gradients, across lengths, partial blocks of sequences and hidden sizes that are not a block multiple. On a
GPU the kernels run compiled; without one, under triton's CPU interpreter in a child process (the interpreter is
chosen when the kernels are defined)."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

triton = pytest.importorskip("triton")

from cntk_compat.core import gru_triton  # noqa: E402
from cntk_compat.core.fused_gru import _GRUSequence  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _kernels_match_the_step_loop(device, sizes=((20, 17, 6), (70, 5, 4))):
    """The recurrence in float32 on device against the step loop in float64; sizes: (d, batch, steps)."""
    rng = np.random.default_rng(0)
    for d, batch, steps in sizes:
        lengths = torch.as_tensor(rng.integers(1, steps + 1, batch))
        lengths[1] = steps
        gx, h0 = (torch.as_tensor(rng.standard_normal(s)) for s in ((steps, batch, 3 * d), (batch, d)))
        # recurrent weights of scale 1/sqrt(d), as initializers make them: larger ones make the recurrence
        # chaotic, and float32 then parts from the float64 reference within a few steps for any kernel
        H, H1 = (torch.as_tensor(rng.standard_normal(s) * 1.3 / np.sqrt(d)) for s in ((d, 2 * d), (d, d)))
        weights = torch.as_tensor(rng.standard_normal((steps, batch, d)))
        order = torch.argsort(lengths, descending=True, stable=True)
        batch_sizes = (lengths[order][None, :] > torch.arange(steps)[:, None]).sum(1).tolist()
        ref_inputs = [t.clone().requires_grad_() for t in (gx[:, order], H, H1, h0[order])]
        ref = _GRUSequence.apply(*ref_inputs, batch_sizes)
        (ref * weights[:, order]).sum().backward()
        inputs = [t.float().to(device).requires_grad_() for t in (gx, H, H1, h0)]
        out = gru_triton.GRUSequence.apply(*inputs, lengths.int().to(device))
        (out * weights.float().to(device)).sum().backward()
        back = torch.argsort(order)
        expected = [ref.detach()[:, back], ref_inputs[0].grad[:, back], ref_inputs[1].grad, ref_inputs[2].grad,
                    ref_inputs[3].grad[back]]
        got = [out.detach()] + [t.grad for t in inputs]
        for name, a, b in zip(("h", "gx", "H", "H1", "h0"), got, expected):
            np.testing.assert_allclose(a.cpu().double().numpy(), b.numpy(), rtol=1e-4, atol=2e-5, err_msg=name)
        past_end = torch.arange(steps)[:, None] >= lengths[None, :]
        assert not out.detach().cpu()[past_end].any()


def _fused_layer_matches_the_step_loop():
    """A CNTK GRU layer taking the kernels' path (forced onto the CPU for the interpreter) against the step loop."""
    import cntk as C
    from cntk_compat.core import fused_gru
    from tests.core.test_fused_recurrence import _compare, _data
    fused_gru._gpu_kernels = lambda x, dim: gru_triton if x.dtype == torch.float32 else None
    calls = []
    apply = gru_triton.GRUSequence.apply
    gru_triton.GRUSequence.apply = lambda *args: calls.append(1) or apply(*args)
    rng = np.random.default_rng(2)
    for go_backwards in (False, True):
        x = C.sequence.input_variable(3)
        f = C.layers.Recurrence(C.layers.GRU(5), go_backwards=go_backwards, initial_state=0.3)(x)
        _compare(f, x, _data(rng, [1, 6, 3, 6, 2], 3, np.float32), np.float32, True)
    assert calls


@pytest.mark.skipif(not torch.cuda.is_available(), reason="compiled kernels need a GPU")
def test_kernels_on_the_gpu_match_the_step_loop():
    _kernels_match_the_step_loop("cuda", ((20, 17, 6), (70, 5, 4), (gru_triton.MAX_DIM - 6, 40, 9)))


@pytest.mark.skipif(torch.cuda.is_available(), reason="the GPU test runs the compiled kernels")
def test_kernels_under_tritons_interpreter_match_the_step_loop():
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("kernels and layer match")


if __name__ == "__main__":
    _kernels_match_the_step_loop("cpu")
    _fused_layer_matches_the_step_loop()
    print("kernels and layer match")
