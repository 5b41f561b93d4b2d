"""MinibatchSource.next_minibatch empties the dict its previous call with an input_map returned, as CNTK 2.7's
does (it frees that minibatch's data): CNTK_101_FunctionApproximation reads ``data[label]`` of the last
training minibatch after fetching a test minibatch, which fails in CNTK 2.7 with a KeyError. Without an
input_map the result is not kept (nothing to empty). Checked against CNTK 2.7 (lengths 2, 2, 0, 0 below)."""
import numpy as np
import pytest

import cntk as C


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "d.ctf"
    path.write_text("".join("|labels %d |features %d 0 0\n" % (i, i) for i in range(50)))
    return C.io.MinibatchSource(C.io.CTFDeserializer(str(path), C.io.StreamDefs(
        labels=C.io.StreamDef(field='labels', shape=1), features=C.io.StreamDef(field='features', shape=3))),
        randomize=True, max_sweeps=C.io.INFINITELY_REPEAT)


def test_the_next_call_empties_the_previous_input_map_minibatch(source):
    feature, label = C.input_variable(3), C.input_variable(1)
    z = C.layers.Dense(1)(feature)
    loss = C.squared_error(z, label)
    trainer = C.Trainer(z, (loss, loss), C.sgd(z.parameters, C.learning_rate_schedule(0.001, C.UnitType.minibatch)))
    input_map = {label: source.streams.labels, feature: source.streams.features}
    data = source.next_minibatch(10, input_map=input_map)
    trainer.train_minibatch(data)
    assert len(data) == 2 and data[label].num_samples == 10   # training does not touch it
    test = source.next_minibatch(10, input_map=input_map)
    assert len(data) == 0 and len(test) == 2
    with pytest.raises(KeyError):
        data[label]
    trainer.test_minibatch(test)
    raw = source.next_minibatch(10)          # a call without input_map empties it too
    assert len(test) == 0 and len(raw) == 2
    source.next_minibatch(10)
    assert len(raw) == 2                     # results without input_map are not kept
