"""Arrays handed out by eval, forward, grad and Value are fresh C-ordered copies, as CNTK 2.7's are: writing into
them changes no Parameter, Constant, fed array or later result (values checked against CNTK 2.7)."""
import numpy as np

import cntk as C


def test_eval_of_views_of_a_parameter_gives_fresh_arrays():
    p = C.parameter(init=np.ones((2, 3), np.float32))
    for f in (C.reshape(p, (3, 2)), C.transpose(p, (1, 0)), C.alias(p), C.slice(p, 0, 0, 1)):
        a = f.eval()
        assert a.flags.c_contiguous and a.flags.owndata
        a[...] = 7
        assert p.value.sum() == 6.0  # CNTK 2.7: 6.0 after each write


def test_forward_value_grad_and_sequences_do_not_alias_storage():
    p = C.parameter(init=np.ones((2, 3), np.float32))
    f = C.alias(p)
    _, out = f.forward({}, [f.output], as_numpy=False)
    out[f.output].asarray()[...] = 5
    x = C.input_variable(3)
    g = C.reduce_sum(x * p).grad({x: np.ones((1, 3), np.float32)}, wrt=[p])
    g[...] = 9
    assert p.value.sum() == 6.0
    xd = np.ones((2, 3), np.float32)
    val = C.Value(batch=xd)
    val.asarray()[...] = 2
    assert xd.sum() == 6.0 and val.asarray().sum() == 6.0
    s = C.sequence.input_variable(2)
    _, out = C.alias(s).forward({s: [np.ones((3, 2), np.float32), np.ones((1, 2), np.float32)]}, as_numpy=False)
    v = list(out.values())[0]
    v.as_sequences(s)[0][...] = 5
    assert [q.sum() for q in v.as_sequences(s)] == [6.0, 2.0]


def test_one_hot_along_the_first_axis_is_c_contiguous():
    # a transposed result (CNTK 2.7 hands out C-ordered arrays; feeding a strided one warns about its layout)
    x = C.input_variable((4, 4))
    oh = C.one_hot(x, 5, False, axis=0)
    z = oh.eval({x: np.arange(32, dtype=np.float32).reshape(2, 4, 4) % 5})
    assert z.shape == (2, 5, 4, 4) and z.flags.c_contiguous and z.sum() == 32.0
