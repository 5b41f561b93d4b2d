"""f.torch_module() as a plain-PyTorch user keeps it: it owns everything it needs (no process-global
registries), so it outlives its Function, deep-copies, pickles with torch.save, exports with torch.export
(dynamic batch) and compiles with torch.compile(fullgraph=True)."""
import copy
import gc
import io

import numpy as np
import torch

import cntk_compat as C
from cntk_compat.layers import Dense, Sequential
from tests._user_functions import Doubling


# on CNTK's default device, where the modules' parameters are
X = torch.tensor(np.random.RandomState(3).uniform(-1, 1, (5, 3)).astype(np.float32),
                 device=C.use_default_device().torch_device())


def _model():
    x = C.input_variable(3)
    return Sequential([Dense(4, activation=C.relu), Dense(2)])(x)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def test_user_function_module_outlives_its_function_and_deep_copies():
    x = C.input_variable(3)
    f = C.user_function(Doubling(Dense(2)(x)))
    module = f.torch_module()
    expected = _first(module(X)).detach().cpu().clone()
    del f, x
    gc.collect()
    np.testing.assert_allclose(_first(module(X)).detach().cpu(), expected)
    twin = copy.deepcopy(module)
    np.testing.assert_allclose(_first(twin(X)).detach().cpu(), expected)
    # the copy owns its own parameters
    with torch.no_grad():
        for p in twin.parameters():
            p.zero_()
    np.testing.assert_allclose(_first(module(X)).detach().cpu(), expected)


def test_module_pickles_with_torch_save_and_state_dict_round_trips():
    module = _model().torch_module()
    expected = _first(module(X)).detach().cpu().clone()
    buffer = io.BytesIO()
    torch.save(module, buffer)
    buffer.seek(0)
    again = torch.load(buffer, weights_only=False)
    np.testing.assert_allclose(_first(again(X)).detach().cpu(), expected)
    weights = io.BytesIO()
    torch.save(module.state_dict(), weights)
    weights.seek(0)
    fresh = _model().torch_module()
    fresh.load_state_dict(torch.load(weights, weights_only=True))
    np.testing.assert_allclose(_first(fresh(X)).detach().cpu(), expected)


def test_torch_export_with_a_dynamic_batch():
    module = _model().torch_module()
    batch = torch.export.Dim("batch", min=1, max=1024)
    exported = torch.export.export(module, (X,), dynamic_shapes=({0: batch},))
    for n in (1, 5, 17):
        x = torch.randn(n, 3, device=X.device)
        np.testing.assert_allclose(_first(exported.module()(x)).detach().cpu(), _first(module(x)).detach().cpu(),
                                   rtol=1e-6, atol=1e-6)


def test_torch_compile_fullgraph_has_no_graph_break():
    module = _model().torch_module()
    compiled = torch.compile(module, fullgraph=True, backend="eager")
    np.testing.assert_allclose(_first(compiled(X)).detach().cpu(), _first(module(X)).detach().cpu(),
                               rtol=1e-6, atol=1e-6)
