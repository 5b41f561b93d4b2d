"""Function.op_name of the sequence ops and transpose as CNTK 2.7 reports them; the sequence ops, which CNTK builds
as blocks of primitives, have Block uids as there (cntk-compat computes each as one op)."""
import cntk as C

S = C.sequence.input_variable(3)
CASES = [  # (node, CNTK 2.7's op_name)
    (lambda: C.sequence.first(S), "Sequence::Slice"), (lambda: C.sequence.last(S), "Sequence::Slice"),
    (lambda: C.sequence.slice(S, 0, 2), "Sequence::Slice"),
    (lambda: C.sequence.reduce_sum(S), "Sequence::ReduceElements"),
    (lambda: C.sequence.reduce_max(S), "Sequence::ReduceElements"),
    (lambda: C.sequence.is_first(S), "Sequence::IsFirst"), (lambda: C.sequence.is_last(S), "Sequence::IsLast"),
    (lambda: C.sequence.broadcast_as(C.input_variable(3), S), "Sequence::BroadcastAs"),
    (lambda: C.sequence.softmax(S), "Sequence::Softmax"),
    (lambda: C.sequence.gather(S, C.sequence.input_variable(1)), "Sequence::Gather"),
    (lambda: C.sequence.scatter(S, C.sequence.input_variable(1)), "Sequence::Scatter"),
]


def test_sequence_ops_are_named_as_cntks_blocks():
    for make, op_name in CASES:
        root = make().root_function
        assert root.op_name == op_name
        assert root.uid.startswith("Block") and root.output.uid == root.uid + "_Output_0"


def test_transpose_is_transpose_axes():
    x = C.input_variable((2, 3, 4))
    for f in (C.transpose(x, (2, 0, 1)), C.swapaxes(x, 0, 2)):
        assert f.root_function.op_name == "TransposeAxes" and f.root_function.uid.startswith("TransposeAxes")
