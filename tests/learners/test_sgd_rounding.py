"""SGD rounds its update as CNTK 2.7 does: the scaled gradient in the parameter's dtype, then the difference.
Under CNTK 2.7 the built-in sgd and the same rule written for `universal` train bit for bit alike (its
learner_test.py::test_universal relies on it); a fused multiply-add would drift an ulp away."""
import numpy as np

import cntk as C
from cntk.layers import Dense, Sequential
from cntk.learners import learning_parameter_schedule, sgd, universal


def test_sgd_update_is_two_float32_roundings():
    rng = np.random.RandomState(3)
    start = rng.randn(64, 32).astype(np.float32)
    grad = rng.randn(64, 32).astype(np.float32) * 7
    w = C.parameter(init=start)
    learner = sgd([w], lr=learning_parameter_schedule(0.125))
    learner.update({w: grad}, 25)
    lr = np.float32(0.125 / 25)
    expected = start - lr * grad  # numpy float32: product rounded, then the difference
    assert np.array_equal(w.value, expected)
    fused = (start.astype(np.float64) - np.float64(lr) * grad.astype(np.float64)).astype(np.float32)
    assert not np.array_equal(expected, fused)  # the data tells the two roundings apart


def _train(make_learner, steps=30):
    np.random.seed(98052)
    features = C.input_variable(5, np.float32)
    label = C.input_variable(3, np.float32)
    z = Sequential([Dense(3, activation=C.sigmoid, init=C.glorot_uniform(seed=98052)),
                    Dense(3, init=C.glorot_uniform(seed=98052))])(features)
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, label), C.classification_error(z, label)),
                        [make_learner(z.parameters)])
    losses = []
    for _ in range(steps):
        y = np.random.randint(size=(25, 1), low=0, high=3)
        x = ((np.random.randn(25, 5) + 3) * (y + 1)).astype(np.float32)
        trainer.train_minibatch({features: x, label: np.hstack([y == c for c in range(3)]).astype(np.float32)})
        losses.append(trainer.previous_minibatch_loss_average)
    return losses, [p.value for p in z.parameters]


def test_builtin_sgd_and_universal_sgd_train_identically():
    builtin_losses, builtin_params = _train(lambda ps: sgd(ps, lr=learning_parameter_schedule(0.125)))
    rule = lambda ps, gs: C.combine([C.assign(p, p - 0.125 / 25 * g) for p, g in zip(ps, gs)])
    universal_losses, universal_params = _train(lambda ps: universal(rule, ps))
    assert builtin_losses == universal_losses
    for a, b in zip(builtin_params, universal_params):
        assert np.array_equal(a, b)


def test_gradients_the_caller_gives_up_are_scaled_in_place_with_the_same_roundings():
    from cntk_compat.learners.learner import OwnedGradients
    import torch
    rng = np.random.RandomState(5)
    start = rng.randn(16, 8).astype(np.float32)
    grad = rng.randn(16, 8).astype(np.float32) * 3
    kept, given = C.parameter(init=start), C.parameter(init=start)
    mine = torch.from_numpy(grad.copy())
    sgd([kept], lr=learning_parameter_schedule(0.125)).update({kept: mine}, 7)
    assert np.array_equal(mine.numpy(), grad)  # a plain dict's gradients are left as they were
    theirs = torch.from_numpy(grad.copy()).to(given.tensor.device)  # a scratch only on the parameter's device
    sgd([given], lr=learning_parameter_schedule(0.125)).update(OwnedGradients({given: theirs}), 7)
    assert np.array_equal(kept.value, given.value)
    assert np.array_equal(kept.value, start - np.float32(0.125 / 7) * grad)
    assert not np.array_equal(theirs.cpu().numpy(), grad)  # overwritten: the learner's scratch


def test_gradients_autograd_shares_between_parameters_or_expands_are_not_overwritten():
    """Autograd gives two added parameters one gradient tensor, and a bias summed over a broadcast an expanded
    one: the Trainer's step must scale each once and not fail on the expansion (CNTK's learner_test
    test_sweep_based_schedule)."""
    x = C.input_variable(3)
    a, b, bias = C.parameter(3, init=1.0), C.parameter(3, init=2.0), C.parameter(3, init=0.5)
    loss = C.reduce_sum(a + b) + C.reduce_sum(C.reshape(x, 3) * 0 + bias)
    trainer = C.Trainer(loss, (loss, None), [sgd([a, b, bias], learning_parameter_schedule(0.25))])
    trainer.train_minibatch({x: np.ones((2, 3), np.float32)})
    # CNTK 2.7 prints these (a rate for the whole minibatch: the summed gradient 2 times 0.25 / 2 samples)
    np.testing.assert_array_equal(a.value, [0.75] * 3)
    np.testing.assert_array_equal(b.value, [1.75] * 3)
    np.testing.assert_array_equal(bias.value, [0.25] * 3)
