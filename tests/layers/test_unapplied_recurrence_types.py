"""An unapplied recurrence (its input an untyped placeholder) shows its output untyped, as CNTK 2.7 does: shape
(-2,), unknown dynamic axes, printed [???] and Sequence[tensor], also for what is composed on it; the loop's guessed
types (from its parameters) stay the graph's own until the input is typed. Golden text from CNTK 2.7."""
import re

import numpy as np

import cntk as C
from cntk.layers import GRU, LSTM, Dense, Embedding, Fold, Recurrence, RNNStep, Sequential


def _untyped(f, argument='x'):
    assert f.shape == (-2,)
    assert f.output.dynamic_axes == (C.Axis('UnknownAxes'),)
    assert str(f) == "Composite(%s: Sequence[tensor]) -> Sequence[tensor]" % argument
    assert re.fullmatch(r"Composite\((Combine|Dense)\): Placeholder\('%s', \[\?\?\?\], \[\?\?\?\]\) -> "
                        r"Output\('Block\d+_Output_0', \[\?\?\?\], \[\?\?\?\]\)" % argument, repr(f)), repr(f)
    assert [repr(o) for o in f.outputs] == [repr(f.output)] and repr(f.output).endswith("[???], [???])")


def test_an_unapplied_recurrence_is_untyped():
    for layer, parameters in ((Recurrence(LSTM(4)), [('b', (16,)), ('W', (-1, 16)), ('H', (4, 16))]),
                              (Recurrence(GRU(3)), [('b', (9,)), ('W', (-1, 9)), ('H', (3, 6)), ('H1', (3, 3))]),
                              (Recurrence(RNNStep(2)), [('W', (-1, 2)), ('H', (2, 2)), ('b', (2,))]),
                              (Fold(LSTM(4)), [('b', (16,)), ('W', (-1, 16)), ('H', (4, 16))])):
        _untyped(layer)
        assert [(p.name, p.shape) for p in layer.parameters] == parameters


def test_what_is_composed_on_it_is_untyped_too():
    _untyped(Sequential([Embedding(300), Fold(GRU(128)), Dense(10)]), 'keep')
    _untyped(Dense(2)(Recurrence(LSTM(3))))
    _untyped(Recurrence(LSTM(4)).clone(C.CloneMethod.share, {}), 'x')


def test_typed_once_applied():
    r = Recurrence(LSTM(4))
    x = C.sequence.input_variable(3, name='x')
    y = r(x)
    assert (str(y), y.shape) == ("Composite(x: Sequence[Tensor[3]]) -> Sequence[Tensor[4]]", (4,))
    assert re.fullmatch(r"Composite\(Combine\): Input\('x', \[#, \*\], \[3\]\) -> Output\('Block\d+_Output_0', "
                        r"\[#, \*\], \[4\]\)", repr(y))
    assert [o.shape for o in y.eval({x: [np.ones((2, 3), np.float32)]})] == [(2, 4)]
    r2 = Recurrence(LSTM(4))
    r2.replace_placeholders({r2.placeholders[0]: C.sequence.input_variable(5)})
    assert (str(r2), r2.shape) == ("Composite(Sequence[Tensor[5]]) -> Sequence[Tensor[4]]", (4,))
    f = Sequential([Recurrence(LSTM(4)), C.sequence.last])
    assert (str(f), f.shape) == ("Composite(keep: Sequence[tensor]) -> Sequence[tensor]", (-2,))
    g = f(C.sequence.input_variable(2))
    assert (str(g), g.shape) == ("Composite(Sequence[Tensor[2]]) -> Tensor[4]", (4,))
