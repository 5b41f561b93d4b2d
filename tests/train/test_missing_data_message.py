"""A Trainer or Evaluator given no data for an input the criterion needs raises CNTK 2.7's error for missing data,
which names the outputs CNTK's own network computes there: the loss with its aggregation nodes
'aggregateLoss' (and 'aggregateEvalMetric' with a metric) and the requested outputs when training, the metric
with 'aggregateEvalMetric' when testing. CNTK lists them in a hash order that changes with the graph, so they are
compared as sets; the texts are CNTK 2.7's for the same calls."""
import re

import numpy as np
import pytest

import cntk as C


def _parts(error):
    m = re.fullmatch(r"Values for 1 required arguments '(.*)', that the requested output\(s\) '(.*)' depend on, have "
                     r"not been provided\.", str(error.value).split("\n\n[CALL STACK]")[0])
    assert m, str(error.value)
    return m.group(1), set(re.findall(r"Output\('[^']*', \[[^]]*\], \[[^]]*\]\)", m.group(2)))


@pytest.fixture
def net():
    x, y = C.input_variable(2, name='x'), C.input_variable(2, name='y')
    z = C.layers.Dense(2, name='d')(x)
    return x, y, z, C.cross_entropy_with_softmax(z, y, name='ce'), C.classification_error(z, y, name='err')


def _sgd(z):
    return C.sgd(z.parameters, C.learning_rate_schedule(0.1, C.UnitType.minibatch))


def test_training_names_the_loss_its_aggregates_and_the_requested_outputs(net):
    x, y, z, ce, err = net
    data = {x: np.ones((2, 2), np.float32)}
    with pytest.raises(ValueError) as e:
        C.Trainer(z, (ce, err), _sgd(z)).train_minibatch(data)
    assert _parts(e) == ("Input('y', [#], [2])", {"Output('ce', [#], [1])", "Output('aggregateLoss', [], [])",
                                                  "Output('aggregateEvalMetric', [], [])"})
    with pytest.raises(ValueError) as e:
        C.Trainer(z, ce, _sgd(z)).train_minibatch(data, outputs=[z])
    assert _parts(e)[1] == {"Output('ce', [#], [1])", "Output('aggregateLoss', [], [])", "Output('d', [#], [2])"}


def test_testing_names_the_metric_and_its_aggregate(net):
    x, y, z, ce, err = net
    data = {x: np.ones((2, 2), np.float32)}
    expected = ("Input('y', [#], [2])", {"Output('aggregateEvalMetric', [], [])", "Output('err', [#], [1])"})
    with pytest.raises(ValueError) as e:
        C.Trainer(z, (ce, err), _sgd(z)).test_minibatch(data)
    assert _parts(e) == expected
    with pytest.raises(ValueError) as e:
        C.Evaluator(err).test_minibatch(data)
    assert _parts(e) == expected
