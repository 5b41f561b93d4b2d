import os
import shutil

import pytest

import cntk as C
import cntk.logging as logging
import cntk.ops as O
from cntk.logging import graph


def _graph():
    d = {}
    d['i1'] = O.input_variable(shape=(2, 3), name='i1')
    d['c1'] = O.constant(shape=(2, 3), value=6, name='c1')
    d['p1'] = O.parameter(shape=(3, 2), init=7, name='p1')
    d['op1'] = O.plus(d['i1'], d['c1'], name='op1')
    d['op2'] = O.times(d['op1'], d['p1'], name='op2')
    d['p2'] = O.parameter(shape=(2, 2))
    d['op3a'] = O.plus(d['op2'], d['p2'], name='op3')
    d['op3b'] = O.plus(d['op3a'], d['p2'], name='op3')
    d['root'] = d['op3b']
    return d


def test_find_nodes():
    d = _graph()
    for name in ['i1', 'c1', 'p1', 'op1', 'op2']:
        found = graph.find_all_with_name(d['root'], name)
        assert len(found) == 1 and found[0].name == name
        assert logging.find_by_name(d['root'], name).name == name
    assert graph.find_by_name(d['root'], 'p1') is d['p1']
    assert len(graph.find_all_with_name(d['root'], 'op3')) == 2
    with pytest.raises(ValueError, match="multiple"):
        graph.find_by_name(d['root'], 'op3')
    assert graph.find_by_name(d['root'], 'missing') is None
    with pytest.raises(ValueError, match="string"):
        graph.find_by_name(d['root'], 3)
    assert graph.find_by_uid(d['root'], d['p2'].uid) is d['p2']


def test_depth_first_order_and_outputs():
    d = _graph()
    names = [n.name for n in graph.depth_first_search(d['root'], lambda n: True)]
    assert names == ["op3", "op3", "op2", "op1", "i1", "c1", "p1", ""]  # p2 once
    names = [n.name for n in graph.depth_first_search(d['root'], lambda n: True)
             if getattr(n, 'is_parameter', False)]
    assert names == ['p1', '']
    outputs = graph.get_node_outputs(d['root'])
    assert [o.uid for o in outputs] == [d['op3b'].output.uid, d['op3a'].output.uid, d['op2'].output.uid,
                                        d['op1'].output.uid]


def test_plot_text_and_dot(tmp_path):
    d = _graph()
    text = graph.plot(d['op2'])
    assert text.splitlines() == [
        "Plus(%s, %s) -> %s;" % (d['i1'].uid, d['c1'].uid, d['op1'].output.uid), "",
        "Times(%s, %s) -> %s;" % (d['op1'].output.uid, d['p1'].uid, d['op2'].output.uid)]
    path = str(tmp_path / "g.dot")
    assert graph.plot(d['op2'], path) == text
    with open(path) as f:
        dot = f.read()
    assert dot.startswith("digraph network_graph {")
    assert '"%s" -> "%s"' % (d['p1'].uid, d['op2'].root_function.uid) in dot
    with pytest.raises(ValueError, match="extensions"):
        graph.plot(d['op2'], str(tmp_path / "g.txt"))
    if shutil.which("dot"):
        graph.plot(d['op2'], str(tmp_path / "g.svg"))
        assert os.path.getsize(str(tmp_path / "g.svg")) > 0


def test_log_number_of_parameters(capsys):
    d = _graph()
    logging.log_number_of_parameters(d['root'], trace_level=1)
    assert capsys.readouterr().out.splitlines() == [
        "Training 10 parameters in 2 parameter tensors.", "", "\t(3, 2)", "\t(2, 2)"]


def test_trace_level():
    old = logging.get_trace_level()
    logging.set_trace_level(logging.TraceLevel.Info)
    assert logging.get_trace_level() == logging.TraceLevel.Info == 2
    assert type(logging.get_trace_level()) is int   # CNTK 2.7 returns its native enum's int
    logging.set_trace_level(7)   # CNTK 2.7 takes any int
    assert logging.get_trace_level() == 7
    logging.set_trace_level(old)
    for bad in ('x', 2.0):
        with pytest.raises(TypeError, match="set_trace_level"):
            logging.set_trace_level(bad)


def test_functions_found_inside_blocks_print_their_own_operands():
    # as CNTK 2.7 prints them: a primitive or block shows its operands (not the model's arguments), a block's
    # inner placeholder as the variable the block is applied to (through nested blocks too)
    from cntk.layers import Convolution, Dense, MaxPooling, Sequential

    def blocked_dense(dim):
        dense = Dense(dim)

        @C.layers.BlockFunction('blocked_dense', 'blocked_dense')
        def func(x):
            return dense(x)
        return func

    with C.default_options(activation=C.relu):
        model = Sequential([Convolution((5, 5), 4, pad=True), MaxPooling((3, 3), strides=(2, 2)),
                            Dense(10, activation=None), blocked_dense(10)])
    img = model(C.input_variable((3, 16, 16), name='image'))
    found = sorted(str(f) for f in C.logging.graph.depth_first_search(img, lambda n: isinstance(n, C.Function),
                                                                      depth=-1))
    assert found == [
        'Convolution(image: Tensor[3,16,16]) -> Tensor[4,16,16]', 'Convolution(image: Tensor[3,16,16]) -> Tensor[4,16,16]',
        'Dense(Tensor[10]) -> Tensor[10]', 'Dense(Tensor[4,7,7]) -> Tensor[10]',
        'MaxPooling(Tensor[4,16,16]) -> Tensor[4,7,7]', 'Plus(Tensor[10]) -> Tensor[10]', 'Plus(Tensor[10]) -> Tensor[10]',
        'Plus(Tensor[4,16,16]) -> Tensor[4,16,16]', 'Pooling(Tensor[4,16,16]) -> Tensor[4,7,7]',
        'ReLU(Tensor[10]) -> Tensor[10]', 'ReLU(Tensor[4,16,16]) -> Tensor[4,16,16]', 'Times(Tensor[10]) -> Tensor[10]',
        'Times(Tensor[4,7,7]) -> Tensor[10]', 'blocked_dense: blocked_dense(Tensor[10]) -> Tensor[10]']
    assert str(img) == 'blocked_dense: Composite(image: Tensor[3,16,16]) -> Tensor[10]'


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_plot_draws_nodes_as_cntk_and_passes_dots_warnings_on(tmp_path, capsys):
    # CNTK 2.7's plot: a block in a fixed 1 x 1.3 inch box, so dot warns of BatchNormalization's long label, and the
    # warning reaches stdout followed by an empty line (pydot_ng prints dot's stderr); '+' in a small ellipse
    x = C.input_variable(3, name='x')
    m = C.layers.BatchNormalization()(x) + x
    C.logging.graph.plot(m, str(tmp_path / "g.svg"))
    bn = m.root_function.inputs[0].owner
    assert capsys.readouterr().out == \
        "Warning: node '%s', graph 'network_graph' size too small for label\n\n" % bn.uid
    C.logging.graph.plot(m, str(tmp_path / "g.dot"))
    dot = (tmp_path / "g.dot").read_text()
    assert '[label="BatchNormalization", fixedsize="true", height=1, width=1.3, penwidth=4]' in dot
    assert '[label="+", shape="ellipse", fixedsize="true", height=0.4, width=0.4, fontsize=20, penwidth=4]' in dot
    assert '[shape="egg", label="Input\\nx\\n[#](3,)", fixedsize="true", height=1, width=1.3, penwidth=4]' in dot
