"""Seed 004 ("How to use learners"): every code cell runs as printed and every number it prints matches the
seed's output to 4 decimals.

The seed inspects updates of all-zero parameters with all-one gradients, so all values of a parameter are
equal and the printed ``[0][0]`` row is one repeated number; the comparison is by printed label and the
numbers in the row (which parameter comes first in ``z.parameters`` decides only how many times it repeats).
"""
import re

import numpy as np
import pytest

from tests.seeds.cell_runner import cell_runner

CELL_1 = r"""
import cntk as C
import numpy as np
import math
np.set_printoptions(precision=4)

features = C.input_variable(3)
label = C.input_variable(2)
z = C.layers.Sequential([C.layers.Dense(4, activation=C.relu), C.layers.Dense(2)])(features)

lr_schedule_m = C.learning_rate_schedule(0.5, C.UnitType.minibatch)
lr_schedule_s = C.learning_rate_schedule(0.5, C.UnitType.sample)

sgd_learner_m = C.sgd(z.parameters, lr_schedule_m)
sgd_learner_s = C.sgd(z.parameters, lr_schedule_s)
"""

CELL_2 = r"""
def inspect_update(learner, mbsize, count=1):
    # Save current parameter values
    old_values = [p.value for p in learner.parameters]
    # Set current parameter values to all 0
    for p in learner.parameters:
        p.value = 0 * p.value
    # create all 1 gradients and associate them with the parameters
    updates = {p: p.value + 1 for p in learner.parameters}    
    # do 'count' many updates
    for i in range(count):
        learner.update(updates, mbsize)
    ret_values = [p.value for p in learner.parameters]
    # Restore values
    for p, o in zip(learner.parameters, old_values):
        p.value = o
    return ret_values

print('\nunit = sample\n', inspect_update(sgd_learner_s, mbsize=2))
print('\nunit = minibatch\n', inspect_update(sgd_learner_m, mbsize=2))
"""

CELL_3 = r"""
lr_schedule = C.learning_rate_schedule([0.05]*3 + [0.025]*2 + [0.0125], C.UnitType.minibatch, epoch_size=100)
sgd_learner = C.sgd(z.parameters, lr_schedule)
loss = C.cross_entropy_with_softmax(z, label)
trainer = C.Trainer(z, loss, sgd_learner)
# use the trainer with a minibatch source as in the trainer howto
"""

CELL_4 = r"""
mb_size = 10
time_constant = 300
momentum = math.exp(-mb_size/time_constant)

print('time constant for momentum of 0.967... = ', mb_size/math.log(1/momentum))
print('momentum for time constant of 300      = ', math.exp(-mb_size/time_constant))

lr_schedule = C.learning_rate_schedule(1, C.UnitType.minibatch)
ug_schedule = C.learning_rate_schedule(1/(1-momentum), C.UnitType.minibatch)

m_schedule = C.momentum_schedule(momentum)
t_schedule = C.momentum_as_time_constant_schedule(time_constant)

msgd = C.momentum_sgd(z.parameters, lr_schedule, m_schedule, unit_gain=False)
tsgd = C.momentum_sgd(z.parameters, lr_schedule, t_schedule, unit_gain=False)
usgd = C.momentum_sgd(z.parameters, ug_schedule, m_schedule, unit_gain=True)

print(inspect_update(msgd, mb_size, 5)[0][0])
print(inspect_update(tsgd, mb_size, 5)[0][0])
print(inspect_update(usgd, mb_size, 5)[0][0])
"""

CELL_5 = r"""
mb_size = 32
time_constant = 1000

lr_schedule = C.learning_rate_schedule(1, C.UnitType.minibatch)
t_schedule = C.momentum_as_time_constant_schedule(time_constant)

tsgd = C.momentum_sgd(z.parameters, lr_schedule, t_schedule, unit_gain=False)

adadelta  = C.adadelta(z.parameters, lr_schedule, 0.999, 1e-6)
adagrad   = C.adagrad(z.parameters, lr_schedule)
adam      = C.adam(z.parameters, lr_schedule, t_schedule, unit_gain=False)
adamax    = C.adam(z.parameters, lr_schedule, t_schedule, unit_gain=False, adamax=True)
fsadagrad = C.fsadagrad(z.parameters, lr_schedule, t_schedule, unit_gain=False)
rmsprop   = C.rmsprop(z.parameters, lr_schedule, gamma=0.999, inc=1.0+1e-9, dec=1.0-1e-9, max=np.inf, min=1e-30)

print('adadelta :', inspect_update(adadelta, mb_size, 10)[0][0])
print('agagrad  :', inspect_update(adagrad, mb_size, 10)[0][0])
print('adam     :', inspect_update(adam, mb_size, 10)[0][0])
print('adamax   :', inspect_update(adamax, mb_size, 10)[0][0])
print('fsadagrad:', inspect_update(fsadagrad, mb_size, 10)[0][0])
print('rmsprop  :', inspect_update(rmsprop, mb_size, 10)[0][0])

adadelta_schedule = C.learning_rate_schedule(1004, C.UnitType.minibatch)
adadelta_tuned  = C.adadelta(z.parameters, adadelta_schedule, 0.999, 1e-6)
print('adadelta2:', inspect_update(adadelta_tuned, mb_size, 10)[0][0])
"""

CELL_6 = r"""
def my_rmsprop(parameters, gradients):
    rho = 0.999
    lr = 0.01
    # We use the following accumulator to store the moving average of every squared gradient
    accumulators = [C.constant(1e-6, shape=p.shape, dtype=p.dtype) for p in parameters]
    update_funcs = []
    for p, g, a in zip(parameters, gradients, accumulators):
        # We declare that `a` will be replaced by an exponential moving average of squared gradients
        # The return value is the expression rho * a + (1-rho) * g * g 
        accum_new = C.assign(a, rho * a + (1-rho) * g * g)
        # This is the rmsprop update. 
        # We need to use accum_new to create a dependency on the assign statement above. 
        # This way, when we run this network both assigns happen.
        update_funcs.append(C.assign(p, p - lr * g / C.sqrt(accum_new)))
    return C.combine(update_funcs)

my_learner = C.universal(my_rmsprop, z.parameters)
print(inspect_update(my_learner, 10, 2)[0][0])
"""

CELL_7 = r"""
class MySgd(C.UserLearner):

    def __init__(self, parameters, lr_schedule):
        super(MySgd, self).__init__(parameters, lr_schedule, as_numpy=False)

        self.new_p = {}
        self.grad_input = {}

        self.sample_count_input = C.input_variable((), name='count')

        lr = lr_schedule[0]  # assuming constant learning rate
        eta = lr / self.sample_count_input

        # we need one graph per parameter shape
        for param in parameters:
            p_shape = param.shape
            self.grad_input[p_shape] = C.input_variable(p_shape)
            self.new_p[p_shape] = param - eta * self.grad_input[p_shape]

    def update(self, gradient_values, training_sample_count, sweep_end):
        for p, g in gradient_values.items():
            new_p = self.new_p[p.shape]
            grad_input = self.grad_input[p.shape]

            data = {
                    self.sample_count_input: np.asarray(training_sample_count),
                    grad_input: g
                    }
            result = new_p.eval(data, as_numpy=False)
            shape = result.shape

            # result has the shape of a complete minibatch, but contains
            # only one tensor, which we want to write to p. This means, we
            # have to slice off the leading dynamic axis.
            static_tensor = result.data.slice_view([0]*len(shape), shape[1:])
            p.set_value(static_tensor)
        return True
    
mb_size = 64
lr_schedule = C.learning_rate_schedule(1, C.UnitType.minibatch)
my_sgd = MySgd(z.parameters, lr_schedule)

def inspect_user_learner_update(learner, mbsize, count):
    easy_parameters = [C.Variable.as_parameter(p) for p in learner.parameters()]
    old_values = [p.value for p in easy_parameters]
    for p in easy_parameters:
        p.value = 0 * p.value
    updates = {p: p.value + 1 for p in easy_parameters}
    for i in range(count):
        learner.update(updates, np.float32(mbsize), sweep_end=False)
    ret_values = [p.value for p in easy_parameters]
    for p, o in zip(easy_parameters, old_values):
        p.value = o
    return ret_values

print(inspect_user_learner_update(my_sgd, mb_size, 10)[0][0])
"""

PRINTED_4 = """\
time constant for momentum of 0.967... =  300.00000000000006
momentum for time constant of 300      =  0.9672161004820059
[-1.436 -1.436]
[-1.436 -1.436]
[-1.436 -1.436]
"""

PRINTED_5 = """\
adadelta : [-0.0099 -0.0099]
agagrad  : [-0.3125 -0.3125]
adam     : [-9.9203 -9.9203]
adamax   : [-9.9227 -9.9227]
fsadagrad: [-8.8573 -8.8573]
rmsprop  : [-0.3125 -0.3125]
adadelta2: [-9.9228 -9.9228]
"""

PRINTED_6 = """\
[-0.5397 -0.5397]
"""

PRINTED_7 = """\
[-0.1562 -0.1562]
"""

_ROW = re.compile(r"^(.*?)\[([-+0-9.e ]+)\]$")


def _rows(text):
    """(label, the distinct numbers of the printed row to 4 decimals) per printed line."""
    result = []
    for line in text.strip().splitlines():
        m = _ROW.match(line)
        assert m, "not a printed row: %r" % line
        result.append((m.group(1), sorted({round(float(v), 4) for v in m.group(2).split()})))
    return result


@pytest.fixture
def seed(capsys):
    return cell_runner(capsys, CELL_1, CELL_2)


def test_cell_2_per_sample_and_per_minibatch(capsys):
    namespace = {}
    exec(CELL_1, namespace)
    capsys.readouterr()
    exec(CELL_2, namespace)
    out = capsys.readouterr().out
    sample_part, minibatch_part = out.split("unit = minibatch")
    assert sample_part.startswith("\nunit = sample\n [array(")
    assert set(re.findall(r"-?\d+\.\d*", sample_part)) == {"-0.5"}
    assert set(re.findall(r"-?\d+\.\d*", minibatch_part)) == {"-0.25"}
    # the parameters are restored, and each printed array had its parameter's shape
    inspect_update, z = namespace["inspect_update"], namespace["z"]
    before = [p.value.copy() for p in z.parameters]
    values = inspect_update(namespace["sgd_learner_m"], mbsize=2)
    assert sorted(v.shape for v in values) == sorted([(4, 2), (2,), (3, 4), (4,)])
    assert all(v.dtype == np.float32 and np.all(v == -0.25) for v in values)
    for b, p in zip(before, z.parameters):
        np.testing.assert_array_equal(b, p.value)


def test_cell_3_trainer_with_schedule(seed):
    namespace, run = seed
    assert run(CELL_3) == ""
    learner = namespace["sgd_learner"]
    assert [learner._learning_rate_schedule[i * 100] for i in (0, 2, 3, 4, 5, 9)] == \
        [0.05, 0.05, 0.025, 0.025, 0.0125, 0.0125]
    assert namespace["trainer"].parameter_learners == (learner,)


def test_cell_4_momentum_as_time_constant(seed):
    namespace, run = seed
    out = run(CELL_4).splitlines()
    expected = PRINTED_4.splitlines()
    # the two conversions print full-precision floats; libm may round the last digit differently
    for got, want in zip(out[:2], expected[:2]):
        label = want.split("=")[0]
        assert got.startswith(label)
        assert float(got[len(label) + 1:]) == pytest.approx(float(want[len(label) + 1:]), rel=1e-14)
    assert _rows("\n".join(out[2:])) == _rows("\n".join(expected[2:]))


def test_cell_5_adaptive_learners(seed):
    namespace, run = seed
    assert _rows(run(CELL_5)) == _rows(PRINTED_5)


def test_cell_6_universal_rmsprop(seed):
    namespace, run = seed
    assert _rows(run(CELL_6)) == _rows(PRINTED_6)


def test_cell_7_user_learner_with_slice_view(seed):
    namespace, run = seed
    assert _rows(run(CELL_7)) == _rows(PRINTED_7)


def test_printed_rows_are_compared_by_value():
    assert _rows("adam     : [-9.9203 -9.9203 -9.9203]") == [("adam     : ", [-9.9203])]
    assert _rows("x: [-9.9203 -9.9204]") != _rows("x: [-9.9203 -9.9203]")
