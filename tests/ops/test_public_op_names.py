"""Function.op_name as CNTK 2.7 reports it (names read from CNTK 2.7), also the prefix of a node's uid."""
import numpy as np
import pytest

import cntk as C

CASES = [
    (lambda x, s: C.reduce_sum(x), "ReduceElements"),
    (lambda x, s: C.reduce_mean(x, C.Axis.default_batch_axis()), "ReduceElements"),
    (lambda x, s: C.reduce_log_sum_exp(x), "ReduceElements"),
    (lambda x, s: C.reduce_max(s, C.Axis.all_axes()), "ReduceElements"),
    (lambda x, s: C.argmax(x), "ReduceElements"),
    (lambda x, s: C.sigmoid(x), "StableSigmoid"),
    (lambda x, s: C.alias(x), "NoOp"),
    (lambda x, s: C.one_hot(C.reshape(C.argmax(x), (1,)), 3), "OneHotOp"),
    (lambda x, s: C.to_batch(C.constant(np.ones((2, 3), np.float32))), "ToBatchAxis"),
    (lambda x, s: C.unpack_batch(x), "UnpackBatchAxis"),
    (lambda x, s: C.sequence.unpack(s, 0), "UnpackSequenceOp"),
    (lambda x, s: C.random.normal((2,)), "RandomDistribution"),
    (lambda x, s: C.random.uniform_like(x), "RandomDistribution"),
    (lambda x, s: C.zeros_like(x), "ConstantOp"),
    (lambda x, s: C.tanh(x), "Tanh"),
    (lambda x, s: C.times(x, np.ones((3, 2), np.float32)), "Times"),
]


@pytest.mark.parametrize("build, name", CASES)
def test_op_name_and_uid_prefix_are_cntks(build, name):
    f = build(C.input_variable(3), C.sequence.input_variable(3)).root_function
    assert f.op_name == name
    assert f.uid.rstrip("0123456789") == name
