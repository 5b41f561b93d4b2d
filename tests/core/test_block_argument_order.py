"""A block's arguments are the leaves below it in graph order, as in CNTK 2.7, not the order of the operands
mapped to its placeholders: ``as_block(body, [(p1, x + w), (p2, y)])`` has arguments (x, w, y), and a criterion
block of ``(model(x), y)`` has (x, y), so that ``criterion.train((X, Y))`` feeds X to x (with the operands' order
the criteria blocks listed y first, and Function.train fed the labels to the features). Orders are CNTK 2.7's."""
import numpy as np

import cntk as C


def _names(f):
    return [a.name for a in f.arguments]


def test_as_block_arguments_follow_the_graph():
    x, y, w = (C.input_variable(2, name=n) for n in 'xyw')
    p1, p2 = C.placeholder(name='p1'), C.placeholder(name='p2')
    assert _names(C.as_block(p1 * 2 + p2, [(p1, x + w), (p2, y)], 'Blk', 'b1')) == ['x', 'w', 'y']
    p3, p4 = C.placeholder(name='p3'), C.placeholder(name='p4')
    assert _names(C.as_block(p3 * 2 + p4, [(p4, y), (p3, x)], 'Blk', 'b2')) == ['y', 'x']
    p5, p6 = C.placeholder(name='p5'), C.placeholder(name='p6')
    assert _names(C.as_block(p5 - p6, [(p5, C.sigmoid(w) * x), (p6, y)], 'Blk', 'b3')) == ['w', 'x', 'y']


def test_criteria_take_the_models_inputs_first():
    x, y = C.input_variable(2, name='x'), C.input_variable(2, is_sparse=True, name='y')
    m = C.layers.Dense(2)
    assert _names(C.cross_entropy_with_softmax(m(x), y)) == ['x', 'y']
    assert _names(C.squared_error(m(x), y)) == ['x', 'y']
    assert _names(C.classification_error(m(x), y)) == ['x', 'y']
    assert _names(C.binary_cross_entropy(C.sigmoid(m(x)), y)) == ['x', 'y']
    assert _names(C.cross_entropy_with_softmax(y, m(x))) == ['y', 'x']


def test_training_a_criterion_on_a_tuple_feeds_its_arguments_in_order():
    np.random.seed(0)
    labels = np.random.randint(0, 2, 256)
    features = ((np.random.randn(256, 2) + 3) * (labels[:, None] + 1)).astype(np.float32)
    onehot = np.eye(2, dtype=np.float32)[labels]

    def criterion():
        x, y = C.input_variable(2), C.input_variable(2)
        model = C.layers.Dense(2, init=C.glorot_uniform(seed=1))
        loss = C.cross_entropy_with_softmax(model(x), y)
        return x, y, model, loss, C.sgd(model.parameters, C.learning_rate_schedule(0.1, C.UnitType.minibatch))

    x, y, model, loss, learner = criterion()
    loss.train((features, onehot), minibatch_size=32, parameter_learners=[learner])
    x2, y2, model2, loss2, learner2 = criterion()
    trainer = C.Trainer(model2(x2), loss2, learner2)
    for k in range(0, 256, 32):   # the same minibatches, features to the model's input
        trainer.train_minibatch({x2: features[k:k + 32], y2: onehot[k:k + 32]})
    np.testing.assert_allclose(model.W.value, model2.W.value, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.b.value, model2.b.value, rtol=1e-5, atol=1e-6)
