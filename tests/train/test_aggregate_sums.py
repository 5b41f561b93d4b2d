"""The Trainer's and Evaluator's minibatch sums of a criterion are CNTK 2.7's aggregation nodes: the float64 sum
of the per-sample values rounded to float32 (values from CNTK 2.7; a float32 sum was an ulp or more off, so a
script printing previous_minibatch_loss_average differed in its last digits from the first minibatch on)."""
import numpy as np

import cntk as C


def test_loss_and_metric_sums_are_cntks():
    rs = np.random.RandomState(1)
    x = C.input_variable(1)
    p = C.parameter((1,), init=1.0)
    m = C.reduce_sum(x * p)
    s = C.sequence.input_variable(1)
    ms = C.reduce_sum(s * p)
    trainer = C.Trainer(ms, (ms, ms), [C.sgd(ms.parameters, 0.0)])
    batch, sequences = C.eval.Evaluator(m), C.eval.Evaluator(ms)
    cntk27 = {25: -31.8247089, 1000: 3152.9043, 4096: 9332.89648}
    for n in (25, 1000, 4096):
        v = (rs.randn(n, 1) * 100).astype(np.float32)
        seqs = [v[i:i + 50] for i in range(0, n, 50)]
        trainer.train_minibatch({s: seqs})
        got = [batch.test_minibatch({x: v}) * n, sequences.test_minibatch({s: seqs}) * n,
               trainer.previous_minibatch_loss_average * n, trainer.previous_minibatch_evaluation_average * n]
        assert ['%.9g' % g for g in got] == ['%.9g' % cntk27[n]] * 4


def test_the_first_loss_of_a_logistic_regression_is_cntks():
    # 25 samples of log(2) (a zero-initialized linear layer): CNTK 2.7 reports 0.693147201538086, the float32 sum
    # 0.6931471252441406
    x, y = C.input_variable(2), C.input_variable(2)
    z = C.times(x, C.parameter((2, 2))) + C.parameter(2)
    criterion = (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y))
    trainer = C.Trainer(z, criterion, [C.sgd(z.parameters, 0.25)])
    trainer.train_minibatch({x: np.ones((25, 2), np.float32), y: np.eye(2, dtype=np.float32)[np.arange(25) % 2]})
    assert trainer.previous_minibatch_loss_average == 0.693147201538086
