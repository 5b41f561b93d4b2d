"""clone(substitutions) where the substitute is computed from the graph being cloned (CNTK 2.7's results)."""
import numpy as np

import cntk as C
from cntk.logging.graph import depth_first_search
from tests._user_functions import Doubling


def _ops(f):
    return sorted(n.op_name for n in depth_first_search(f, lambda n: hasattr(n, "op_name")))


def test_a_parameter_inside_a_block_replaced_by_a_computed_value_becomes_a_block_input():
    # CNTK lists a block's parameters among its inputs: debug_model's substitutes for W and b of a Dense stay
    # visible in the clone (CNTK 2.7: 3 user functions for W, b and x), and the block computes with them
    x = C.input_variable(2)
    z = C.layers.Dense(3, init=C.glorot_uniform(seed=1))(x)
    W = [p for p in z.parameters if p.name == "W"][0]
    b = [p for p in z.parameters if p.name == "b"][0]
    b.value = np.array([1, 2, 3], np.float32)
    z2 = z.clone(C.CloneMethod.share, {W: C.user_function(Doubling(W)), b: C.user_function(Doubling(b)),
                                       x: C.user_function(Doubling(x))})
    assert _ops(z2) == ["Dense", "UserFunction", "UserFunction", "UserFunction"]
    assert all(i.is_output for i in z2.root_function.inputs)     # the doubled W, b and x
    data = np.array([[1, -2]], np.float32)
    np.testing.assert_allclose(z2.eval({z2.arguments[0]: data}), (2 * data) @ (2 * W.value) + 2 * b.value,
                               rtol=1e-6)
    np.testing.assert_allclose(z.eval({x: data}), data @ W.value + b.value, rtol=1e-6)  # the original unchanged


def test_a_substitute_over_a_delayed_value_closes_the_loop_in_the_clone():
    # h = past_value(h) + x, the delayed value replaced by f(delayed value): CNTK 2.7's clone has one Plus, one
    # PastValue and one user function (the substitute is cloned with the loop), not a copy reading the original
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    pv = C.sequence.past_value(ph)
    h = C.plus(pv, x)
    h.replace_placeholders({ph: h.output})
    h2 = h.clone(C.CloneMethod.share, {pv.output: C.user_function(Doubling(pv.output))})
    ops = _ops(h2)
    assert ops.count("Plus") == 1 and ops.count("PastValue") == 1 and ops.count("UserFunction") == 1
    assert len([i for i in h2.root_function.inputs if i.is_output]) == 1   # the doubled delayed value
    # (the values are not compared: CNTK 2.7 evaluates this clone to [1, 3, 6], as if the user function inside
    # the loop were not there; cntk-compat applies it, [1, 4, 11]. debug_model's stops are identities)
    data = [np.array([[1], [2], [3]], np.float32)]
    np.testing.assert_allclose(h.eval({x: data})[0], [[1], [3], [6]])   # the original unchanged


def test_a_substitute_that_depends_on_no_copied_node_is_used_as_it_is():
    y = C.input_variable(1)
    m = y * 2
    z = m + 1
    r = C.sqrt(m)
    z2 = z.clone(C.CloneMethod.share, {m.output: r.output})
    sqrt = [n for n in depth_first_search(z2, lambda n: getattr(n, "op_name", "") == "Sqrt")]
    assert len(sqrt) == 1 and sqrt[0].uid == r.root_function.uid
    np.testing.assert_allclose(z2.eval({z2.arguments[0]: np.array([[8]], np.float32)}), [[5]])


def test_calling_a_function_keeps_the_argument_values_as_they_are():
    # a decoder with attention inside a recurrence, unfolded greedily (the shape of CNTK's seq2seq tutorials):
    # the calls composing it must not copy the attention model, which scripts then find by name (CNTK 2.7: one)
    axis = C.Axis('in_axis')
    start = C.Constant(np.array([1, 0, 0, 0, 0], np.float32))
    encode, step = C.layers.Recurrence(C.layers.LSTM(4)), C.layers.LSTM(4)
    attention, project = C.layers.AttentionModel(3, name='attention_model'), C.layers.Dense(5)

    @C.Function
    def decode(history, input):
        encoded = encode(input)

        @C.Function
        def step_with_attention(dh, dc, x):
            return step(dh, dc, C.splice(x, attention(encoded.outputs[0], dh)))
        return project(C.layers.Recurrence(step_with_attention)(history))

    @C.Function
    @C.layers.Signature(C.layers.SequenceOver[axis][C.layers.Tensor[5]])
    def greedy(input):
        unfold = C.layers.UnfoldFrom(lambda history: decode(history, input) >> C.hardmax,
                                     until_predicate=lambda w: w[..., 4], length_increase=1.5)
        return unfold(initial_state=start, dynamic_axes_like=input)
    assert len(C.logging.graph.find_all_with_name(greedy, 'attention_model', depth=1)) == 1
    assert greedy.attention_model.attention_weights is not None
