"""Normal-family initializers draw CNTK 2.7's numbers (Boost's ziggurat over std::mt19937_64); golden values
come from running CNTK 2.7 (CPU)."""
import hashlib

import numpy as np
import pytest

import cntk as C
from cntk_compat.core import cntk_rng


def hexes(values):
    return [float(v).hex() for v in np.asarray(values).ravel()]


def sha(values, dtype):
    return hashlib.sha256(np.asarray(values).astype(dtype).tobytes()).hexdigest()


pytestmark = pytest.mark.usefixtures("fresh_automatic_seeds")  # golden values drawn from seed 0 on


def test_ziggurat_layers_close():
    # the 128 layers, built from r = x[1], end where the curve meets x = 0, and their wedges match Boost's
    table_x, table_y = cntk_rng._ziggurat_tables()
    assert (len(table_x), len(table_y)) == (129, 129)
    assert table_x[1] == 3.4426198558966521214 and table_x[128] == 0 and table_y[128] == 1
    assert np.all(np.diff(table_x) < 0) and np.all(np.diff(table_y) > 0)
    assert table_y[127] == 0.96359969315576759960


def test_20000_normals_are_cntks_bit_for_bit():
    # covers the fast path, the wedge tests and the tail (e.g. element 1565 comes from beyond x[1])
    p64 = C.parameter((20000,), init=C.initializer.normal(1.0, seed=1), dtype=np.float64).value
    assert sha(p64, '<f8') == 'd98de13c2884f74d5796e4b11f54c786491636a6adc927fc0fb31074fce1ddd9'
    assert hexes(p64[1565]) == ['-0x1.c40ef476b1b9ep+1']
    p32 = C.parameter((20000,), init=C.initializer.normal(1.0, seed=1), dtype=np.float32).value
    assert sha(p32, '<f4') == '613c3c760d4f6d765d49f3f841e17f0e520c158c60db39069b1c21fb04cb51d9'


def test_truncated_normal_redraws_beyond_two_deviations():
    t = C.parameter((20000,), init=C.initializer.truncated_normal(1.0, seed=2), dtype=np.float64).value
    assert sha(t, '<f8') == '35e7880158aa11881e480231d01501fcfd430a9c4549276da6f0c1e208f7d112'
    t = C.parameter((3000,), init=C.initializer.truncated_normal(0.05, seed=6)).value
    assert hexes(t[:3]) == ['-0x1.5b30d00000000p-5', '0x1.82e2f40000000p-5', '0x1.0bf0560000000p-4']
    assert float(t.astype(np.float64).sum()) == pytest.approx(-5.289930075570169, abs=1e-9)


@pytest.mark.parametrize('init, shape, dtype, first, total', [
    (C.initializer.glorot_normal(seed=3), (784, 128), np.float32,
     ['0x1.0bd4f00000000p-5', '0x1.c524440000000p-8', '0x1.adb9200000000p-6'], -9.735598207129783),
    (C.initializer.he_normal(seed=4), (16, 3, 5, 5), np.float32,
     ['0x1.3360260000000p-4', '-0x1.52ffce0000000p-5', '-0x1.2dc7280000000p-4'], 1.4690642890018353),
    (C.initializer.normal(0.1, seed=5), (10, 20), np.float64,
     ['-0x1.4144b185f68cfp-4', '-0x1.bbf3a9b001e65p-8', '-0x1.39e67763d5587p-5'], -0.8954016516391677),
])
def test_fan_scaled_normals(init, shape, dtype, first, total):
    v = C.parameter(shape, init=init, dtype=dtype).value
    assert hexes(v.ravel()[:3]) == first
    assert float(v.astype(np.float64).sum()) == pytest.approx(total, abs=1e-9)


def test_layers_with_normal_initializers_take_cntk_seeds_and_values():
    x = C.input_variable((1, 28, 28))
    conv = C.layers.Convolution2D((5, 5), 8, init=C.initializer.he_normal(), pad=True)(x)
    kernel = [p for p in conv.parameters if len(p.shape) == 4][0].value
    assert hexes(kernel.ravel()[:3]) == ['-0x1.7a4e440000000p-4', '0x1.a520ac0000000p-2', '-0x1.c4587a0000000p-4']
    assert float(kernel.astype(np.float64).sum()) == pytest.approx(-0.25118728034431115, abs=1e-9)
    dense = C.layers.Dense(10, init=C.initializer.glorot_normal())(C.input_variable(50))
    w = [p for p in dense.parameters if len(p.shape) == 2][0].value
    assert hexes(w.ravel()[:3]) == ['-0x1.548ffa0000000p-5', '-0x1.83efde0000000p-5', '-0x1.ca47c80000000p-4']
    assert float(w.astype(np.float64).sum()) == pytest.approx(2.4332991010160185, abs=1e-9)
