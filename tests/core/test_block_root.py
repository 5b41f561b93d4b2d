"""Function.block_root is, as in CNTK 2.7, the root Function of the block's body -- a primitive (the body's
last op, or a Combine of its outputs) -- not a composite. CNTK 2.7 prints, for the blocks below: Dense:
Function Plus, is_composite False, is_primitive True, its one output of shape (3,); Dense with relu: ReLU;
an LSTM step: Combine, with the two outputs (h, c) of the block."""
import pytest

import cntk as C


def _check_root(block, op_name):
    root = block.block_root
    assert type(root) is C.Function and root.op_name == op_name
    assert (root.is_composite, root.is_primitive, root.is_block) == (False, True, False)
    assert root.root_function is root
    assert len(root.outputs) == len(block.outputs)
    assert all(o.owner is root or op_name == "Combine" for o in root.outputs)
    assert [o.shape for o in root.outputs] == [o.shape for o in block.outputs]
    return root


def test_the_block_root_of_a_dense_layer_is_its_last_primitive():
    x = C.input_variable(2)
    dense = C.layers.Dense(3)(x).root_function
    root = _check_root(dense, "Plus")
    assert root.uid.startswith("Plus") and root.outputs[0].owner.uid == root.uid
    _check_root(C.layers.Dense(3, activation=C.relu)(x).root_function, "ReLU")


def test_the_block_root_of_a_block_with_several_outputs_is_a_combine():
    z = C.layers.Recurrence(C.layers.LSTM(3))(C.sequence.input_variable(2))
    step, = C.logging.graph.depth_first_search(z, lambda f: isinstance(f, C.Function) and f.is_block, depth=-1)
    root = _check_root(step, "Combine")
    assert [o.shape for o in root.outputs] == [(3,), (3,)]


def test_a_primitive_has_no_block_root():
    with pytest.raises(ValueError):
        C.plus(C.input_variable(2), 1).block_root
