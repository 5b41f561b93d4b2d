"""The outputs of a checkpoint's model file are CNTK 2.7's: its combined training function lists the model's
outputs, then the loss and 'aggregateLoss' (its sum over all axes), then the metric and 'aggregateEvalMetric'.
CNTK's BiDAF example loads the model its training saved with save_checkpoint and takes outputs 0 and 1 as the
model's and output 2's owner as the loss."""
import numpy as np

import cntk as C


def _trainer(metric=True):
    x = C.input_variable(3, name='x')
    y = C.input_variable(2, name='y')
    z = C.layers.Dense(2, name='out')(x)
    loss = C.cross_entropy_with_softmax(z, y, name='ce')
    m = C.classification_error(z, y, name='err') if metric else None
    tr = C.Trainer(z, (loss, m), C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    data = {x: np.array([[1, 2, 3], [0, 1, 0]], np.float32), y: np.array([[1, 0], [0, 1]], np.float32)}
    tr.train_minibatch(data)
    return z, tr, data


def test_outputs_are_the_combined_training_functions(tmp_path):
    z, tr, data = _trainer()
    path = str(tmp_path / "Models" / "model.cmf")
    tr.save_checkpoint(path)
    f = C.load_model(path)
    # CNTK 2.7: ['out', 'ce', 'aggregateLoss', 'err', 'aggregateEvalMetric'] [(2,), (1,), (), (1,), ()]
    assert [o.name for o in f.outputs] == ['out', 'ce', 'aggregateLoss', 'err', 'aggregateEvalMetric']
    assert [o.shape for o in f.outputs] == [(2,), (1,), (), (1,), ()]
    args = {a.name: a for a in f.arguments}
    out = f.eval({args['x']: data[z.arguments[0]]}, outputs=[f.outputs[0]])
    assert np.allclose(out, z.eval(data[z.arguments[0]]), atol=1e-6)


def test_without_a_metric_the_loss_follows_the_models_outputs(tmp_path):
    z, tr, data = _trainer(metric=False)
    path = str(tmp_path / "m.model")
    tr.save_checkpoint(path)
    f = C.load_model(path)
    assert [o.name for o in f.outputs] == ['out', 'ce', 'aggregateLoss']
    assert f.outputs[1].owner.name == 'ce'
