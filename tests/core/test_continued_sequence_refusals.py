"""A sequence whose start flag is False continues the previous call's (truncated BPTT). CNTK 2.7 refuses it, when it
evaluates, in the ops it computes on whole unpacked sequences (sequence reductions, sequence softmax, unpack) and in
those that read steps by their place in the sequence (first, last, slice, where), each with its RuntimeError;
elementwise ops, delays and recurrences take it."""
import numpy as np
import pytest

import cntk as C

REDUCTION = "node cannot perform sequence axis reduction for truncated sequence"
STEP = ("GetColumnIndex: Attempted to access a time step that is accessing a portion of a sequence that is not "
        "included in current minibatch")


def _continued(x):
    return C.Value.create(x, [np.arange(6, dtype=np.float32).reshape(3, 2)], seq_starts=[False])


@pytest.mark.parametrize("build, message", [
    (lambda x: C.sequence.reduce_sum(x), REDUCTION),
    (lambda x: C.sequence.reduce_max(x), REDUCTION),
    (lambda x: C.sequence.softmax(x), REDUCTION),
    (lambda x: C.sequence.broadcast_as(C.sequence.reduce_sum(x), x), REDUCTION),
    (lambda x: C.sequence.unpack(x, 0), REDUCTION),
    (lambda x: C.sequence.first(x), STEP),
    (lambda x: C.sequence.last(x), STEP),
    (lambda x: C.sequence.slice(x, 0, 2), STEP),
    (lambda x: C.sequence.where(C.greater(C.reduce_sum(x), 3)), STEP),
])
def test_whole_sequence_ops_refuse_a_continued_sequence(build, message, capfd):
    x = C.sequence.input_variable(2, name="x")
    f = build(x)
    started = C.Value.create(x, [np.arange(6, dtype=np.float32).reshape(3, 2)], seq_starts=[True])
    f.eval({x: started})
    with pytest.raises(RuntimeError, match=message) as e:
        f.eval({x: _continued(x)})
    assert type(e.value) is RuntimeError and "start flag is False" in str(e.value)
    assert "About to throw exception '" in capfd.readouterr().err


@pytest.mark.parametrize("build, expected", [
    (lambda x: x * 2, [[[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]]),
    (lambda x: C.sequence.past_value(x), [[[4.0, 5.0], [0.0, 1.0], [2.0, 3.0]]]),
    (lambda x: C.sequence.future_value(x), [[[2.0, 3.0], [4.0, 5.0], [0.0, 0.0]]]),
])
def test_other_ops_take_it(build, expected):
    # CNTK 2.7's values (the continued sequence reads the end of the previous call's)
    x = C.sequence.input_variable(2, name="x")
    f = build(x)
    f.eval({x: C.Value.create(x, [np.arange(6, dtype=np.float32).reshape(3, 2)], seq_starts=[True])})
    assert [np.asarray(a).tolist() for a in f.eval({x: _continued(x)})] == expected


def test_a_delay_with_no_previous_call_to_continue_is_a_runtime_error():
    x = C.sequence.input_variable(2, name="x")
    for f in (C.sequence.past_value(x), C.sequence.past_value(x, time_step=2)):
        with pytest.raises(RuntimeError, match="No matching sequence found in the saved previous MBLayout to determine "
                                               "the real tBegin from for a truncated sequence in the current MBLayout"):
            f.eval({x: _continued(x)})
