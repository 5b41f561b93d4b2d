import re

import numpy as np
import pytest

import cntk as C
from _models import data, logistic_regression


def _trainer(writers=None, lr=0.1):
    crit, z, x, y = logistic_regression()
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(lr))
    return C.Trainer(z, (crit.outputs[0], crit.outputs[1]), [learner], writers), crit, z, x, y


def test_explicit_loop_prints_cntk_table_and_loss_goes_down(capsys):
    X, Y = data(1600)
    trainer, crit, z, x, y = _trainer([C.logging.ProgressPrinter(10)])
    losses = []
    for i in range(0, len(X), 32):
        trainer.train_minibatch({x: X[i:i + 32], y: Y[i:i + 32]})
        losses.append(trainer.previous_minibatch_loss_average)
        assert trainer.previous_minibatch_sample_count == 32
    trainer.summarize_training_progress()
    out = capsys.readouterr().out
    assert re.search(r"^ Minibatch\[   1-  10\]: loss = \d+\.\d{6} \* 320, metric = \d+\.\d{2}% \* 320;$", out, re.M)
    assert re.search(r"^Finished Epoch\[1\]: loss = \d+\.\d{6} \* 1600, metric = \d+\.\d{2}% \* 1600 ", out, re.M)
    assert np.mean(losses[-10:]) < np.mean(losses[:10])
    assert trainer.total_number_of_samples_seen == 1600


def test_evaluator_prints_evaluation_summary(capsys):
    X, Y = data(100)
    crit, z, x, y = logistic_regression()
    writer = C.logging.ProgressPrinter(50)
    ev = C.Evaluator(crit.outputs[1], [writer])
    avg = ev.test_minibatch({x: X[:64], y: Y[:64]})
    ev.test_minibatch({x: X[64:], y: Y[64:]})
    ev.summarize_test_progress()
    W, b = np.array([[0.3, -0.2], [-0.1, 0.4]]), np.zeros(2)     # the model's initial values: nothing trained
    errors = np.argmax(X[:64] @ W + b, 1) != np.argmax(Y[:64], 1)
    assert avg == pytest.approx(errors.mean())
    assert re.search(r"Finished Evaluation \[1\]: Minibatch\[1-2\]: metric = \d+\.\d{2}% \* 100;",
                     capsys.readouterr().out)


def test_criterion_forms_and_properties():
    crit, z, x, y = logistic_regression()
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(0.1))
    t = C.Trainer(z, crit, [learner])
    assert t.loss_function.output == crit.outputs[0]
    assert t.evaluation_function.output == crit.outputs[1]
    assert t.model is z and t.parameter_learners == (learner,)
    t2 = C.Trainer(None, crit.outputs[0], C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    assert t2.evaluation_function is None
    with pytest.raises(ValueError, match="no evaluation function"):
        t2.test_minibatch({x: np.zeros((1, 2), np.float32), y: np.zeros((1, 2), np.float32)})


def test_name_keys_outputs_and_empty_minibatch():
    X, Y = data(8)
    trainer, crit, z, x, y = _trainer()
    updated, values = trainer.train_minibatch({"features": X, "labels": Y}, outputs=[z.output])
    assert updated and values[z.output].shape == (8, 2)
    assert trainer.train_minibatch({}) is False


def test_parameters_without_learner_stay_unchanged_and_disjoint_learners():
    X, Y = data(64)
    crit, z, x, y = logistic_regression()
    params = {p.name: p for p in z.parameters}
    b_before = params["b"].value.copy()
    t = C.Trainer(z, crit, [C.sgd([params["W"]], C.learning_parameter_schedule(0.1))])
    W_before = params["W"].value.copy()
    t.train_minibatch({x: X, y: Y})
    assert np.array_equal(params["b"].value, b_before)
    assert not np.array_equal(params["W"].value, W_before)
    with pytest.raises(ValueError, match="covered by 2 different learners"):
        C.Trainer(z, crit, [C.sgd([params["W"]], C.learning_parameter_schedule(0.1)),
                            C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])


def test_two_learners_match_one():
    X, Y = data(64)
    crit, z, x, y = logistic_regression()
    p = {q.name: q for q in z.parameters}
    lr = C.learning_parameter_schedule(0.1)
    C.Trainer(z, crit, [C.sgd([p["W"]], lr), C.sgd([p["b"]], lr)]).train_minibatch({x: X, y: Y})
    split = [p["W"].value.copy(), p["b"].value.copy()]
    crit, z, x, y = logistic_regression()
    C.Trainer(z, crit, [C.sgd(z.parameters, lr)]).train_minibatch({x: X, y: Y})
    q = {v.name: v for v in z.parameters}
    np.testing.assert_allclose(split[0], q["W"].value, rtol=1e-6)
    np.testing.assert_allclose(split[1], q["b"].value, rtol=1e-6)


def test_sum_gradient_matches_manual_sgd():
    X, Y = data(16)
    crit, z, x, y = logistic_regression()
    p = {q.name: q for q in z.parameters}
    W0 = p["W"].value.copy()
    t = C.Trainer(z, crit, [C.sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.01))])
    t.train_minibatch({x: X, y: Y})
    logits = X @ W0
    prob = np.exp(logits - logits.max(1, keepdims=True))
    prob /= prob.sum(1, keepdims=True)
    expected = W0 - 0.01 * X.T @ (prob - Y)
    np.testing.assert_allclose(p["W"].value, expected, rtol=1e-4, atol=1e-6)


def test_get_loss_metric_splits_a_criterion_as_cntk_does():
    # CNTK's CMUDict example builds its own evaluator with Trainer._get_loss_metric(criterion)
    x = C.input_variable(2)
    loss, metric = C.plus(x, 1), C.minus(x, 1)
    both = C.combine([loss, metric])
    got_loss, got_metric = C.Trainer._get_loss_metric(both)
    assert got_loss.output.uid == loss.output.uid and got_metric.output.uid == metric.output.uid
    assert C.Trainer._get_loss_metric(loss) == (loss, None)


def test_trainer_notes_parameters_no_learner_covers(capsys):
    # CNTK 2.7 prints this note on stderr when a Trainer is created (a GAN's two trainers, as in CNTK_206)
    import cntk as C
    z = C.input_variable(2)
    x = C.input_variable(3)
    g = C.layers.Sequential([C.layers.Dense(4), C.layers.Dense(3)])(z)
    d_real = C.layers.Sequential([C.layers.Dense(5), C.layers.Dense(1)])(x)
    d_fake = d_real.clone(method='share', substitutions={x: g.output})
    g_loss = 1.0 - C.log(d_fake)
    d_loss = -(C.log(d_real) + C.log(1.0 - d_fake))
    note = ("[Note:] Trainer ctor: 4 of the model parameters are not covered by any of the specified Learners; "
            "these parameters will not be learned\n")
    C.Trainer(g, (g_loss, None), C.sgd(g.parameters, C.learning_parameter_schedule(0.1)))
    C.Trainer(d_real, (d_loss, None), C.sgd(d_real.parameters, C.learning_parameter_schedule(0.1)))
    C.Trainer(d_real, (d_loss, None), C.sgd(d_real.parameters + g.parameters, C.learning_parameter_schedule(0.1)))
    captured = capsys.readouterr()
    assert captured.err == note * 2 and captured.out == ""


def test_learners_and_progress_writers_of_the_wrong_type_are_refused_with_cntks_swig_message():
    # CNTK 2.0 beta's Trainer(model, loss, metric, learner) (CNTK_206's early version) puts the metric where
    # CNTK 2.7 expects learners and the learner where it expects progress writers: CNTK 2.7's SWIG wrapper
    # raises NotImplementedError listing TrainerImpl's two overloads (a learner as a progress writer, or a
    # number, are refused the same way)
    x = C.input_variable(3)
    y = C.input_variable(2)
    z = C.layers.Dense(2)(x)
    ce = C.cross_entropy_with_softmax(z, y)
    err = C.classification_error(z, y)
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(0.1))
    for args in [(z, ce, err, learner), (z, (ce, err), learner, learner), (z, (ce, err), [learner, err]),
                 (z, (ce, err), learner, [C.logging.ProgressPrinter(1), 5]), (z, (ce, err), 3)]:
        with pytest.raises(NotImplementedError) as info:
            C.Trainer(*args)
        lines = str(info.value).split("\n")
        assert lines[0] == "Wrong number or type of arguments for overloaded function 'trainer_impl'."
        assert lines[1] == "  Possible C/C++ prototypes are:"
        assert [l.split("std::vector< CNTK::")[1].split(",")[0] for l in lines[2:4]] == ["DistributedLearnerPtr", "LearnerPtr"]
    C.Trainer(z, (ce, err), [learner], [C.logging.ProgressPrinter(1)])


def test_learner_parameters_must_belong_to_the_model_loss_or_metric(capsys):
    # CNTK 2.7's Trainer constructor: a learner's parameter outside the model, loss and metric is refused with
    # its message; one of the model that the loss does not reach is accepted (the model's parameters count in
    # the "not covered" note: here m2's two), and gets zero gradients (CNTK 2.7 itself crashes when training)
    x, y = C.input_variable(3), C.input_variable(2)
    m1, m2 = C.layers.Dense(2)(x), C.layers.Dense(2)(x)
    loss = C.squared_error(m2, y)
    with pytest.raises(ValueError, match=re.escape(
            "Trainer ctor: 2 of the learner parameters 'Parameter('W', [], [3 x 2]), Parameter('b', [], [2])' "
            "are not part of the model specified")):
        C.Trainer(m2, (loss, loss), [C.sgd(m1.parameters, C.learning_parameter_schedule(0.1))])
    capsys.readouterr()
    trainer = C.Trainer(m1, (loss, loss), [C.sgd(m1.parameters, C.learning_parameter_schedule(0.1))])
    assert "[Note:] Trainer ctor: 2 of the model parameters are not covered" in capsys.readouterr().err
    before = [p.value.copy() for p in m1.parameters]
    trainer.train_minibatch({x: np.ones((2, 3), np.float32), y: np.ones((2, 2), np.float32)})
    for p, v in zip(m1.parameters, before):
        np.testing.assert_array_equal(p.value, v)
