"""cntk.losses: training criteria, shaped as in CNTK 2.7: cross_entropy_with_softmax reduces a sample to shape (1,);
squared_error and cosine_distance give a scalar per sample, weighted_binary_cross_entropy one scalar for the minibatch
(CNTK's Logistic); binary_cross_entropy is elementwise."""
from ..ops import (Axis, element_divide, element_times, log, minus, negate, plus, reduce_log_sum_exp, reduce_sum,
                   reshape, square, times_transpose)
from ..ops._common import block_of, has_matrix_operand, require_matching_dynamic_axes, sanitize_operands

from ..ops.cos_distance import cosine_distance
from ..ops.cosine_negative import cosine_distance_with_negative_samples
from ..ops.logistic import weighted_binary_cross_entropy
from ..ops.ranking import lambda_rank
from .hierarchical_softmax import hierarchical_softmax_layer
from .nce import nce_loss
# names CNTK's cntk.losses imports for its own use
from ..core.function import CloneMethod, Function  # noqa: F401,E402
from ..ops import parameter, softmax, times  # noqa: F401,E402
from ..ops.sampling import SentinelValueForAutoSelectRandomSeed as auto_select  # noqa: F401,E402
from ..variables import Constant, Parameter, Variable  # noqa: F401,E402

__all__ = [
    "cross_entropy_with_softmax", "binary_cross_entropy", "weighted_binary_cross_entropy", "squared_error",
    "cosine_distance", "cosine_distance_with_negative_samples", "lambda_rank", "nce_loss",
    "lattice_sequence_with_softmax", "hierarchical_softmax_layer", "fmeasure", "Axis", "CloneMethod", "Constant",
    "Function", "Parameter", "Variable", "auto_select", "parameter", "softmax", "times"
]


def lattice_sequence_with_softmax(label, prediction, loglikelihood, lattice, symListPath, phonePath, stateListPath,
                                  transProbPath, latticeConfigPath="LatticeNode.config", hSmoothingWeight=0.95,
                                  frameDropThresh=1e-10, doReferenceAlign=False, seqGammarUsesMBR=False,
                                  seqGammarAMF=14.0, seqGammarLMF=14.0, seqGammarBMMIFactor=0.0,
                                  seqGammarWordPen=0.0, name=""):
    """Sequence training on speech lattices needs CNTK's native lattice reader and decoder."""
    raise NotImplementedError("lattice_sequence_with_softmax: sequence training on speech lattices (CNTK's native "
                              "lattice decoder) is not supported by cntk-compat")


def _all_axes():
    return Axis.all_static_axes()


def _scalar(x, name):
    """x (all of whose static axes have size 1) as a scalar per sample."""
    return reshape(x, (), name=name)


def cross_entropy_with_softmax(output_vector, target_vector, axis=-1, name=""):
    """-sum(target * log_softmax(output)) along axis: log_sum_exp(output) - sum(target * output).

    With the default axis CNTK 2.7 takes the product as TransposeTimes(output, target): for matrix samples the
    result is the matrix of log_sum_exp(output row a) - output row a . target row b (its diagonal is the per-row
    cross entropy), and targets of rank above 2 are refused."""
    z, y = sanitize_operands(output_vector, target_vector, names=["output_vector", "target_vector"])
    require_matching_dynamic_axes("TransposeTimes" if axis == -1 else "ElementTimes", (y, z))
    if axis == -1 and has_matrix_operand(z, y):
        return block_of("CrossEntropyWithSoftmax", lambda z, y: minus(reduce_log_sum_exp(z, axis=-1),
                                                                      times_transpose(z, y)), [z, y], name)
    return block_of("CrossEntropyWithSoftmax", lambda z, y: minus(reduce_log_sum_exp(z, axis=axis),
                                                                  reduce_sum(element_times(y, z), axis=axis)),
                    [z, y], name)


def binary_cross_entropy(output, target, name=""):
    """-(target * log(output + 1e-6) + (1 - target) * log(1.000001 - output)) per element, CNTK 2.7's formula and
    shape (a Trainer sums a loss over its elements); output holds probabilities."""
    p, y = sanitize_operands(output, target, names=["output", "target"])
    require_matching_dynamic_axes("ElementTimes", (y, p))

    def body(p, y):
        return negate(plus(element_times(y, log(plus(1e-6, p))), element_times(minus(1.0, y), log(minus(1.000001, p)))))
    return block_of("BinaryCrossEntropy", body, [p, y], name)


def squared_error(output, target, name=""):
    """sum((output - target)^2)."""
    o, t = sanitize_operands(output, target, names=["output", "target"])
    require_matching_dynamic_axes("Minus", (o, t))
    return block_of("SquaredError", lambda o, t: reduce_sum(square(minus(o, t)), axis=_all_axes()),
                    [o, t], name)


def fmeasure(output, target, beta=1):
    """1 - the F-beta score of output against target with soft counts (output's values, not thresholded), as CNTK
    2.7: summed over all static axes, or over axes 1 and 2 of rank-3 (image) data, whose axis 0 holds classes."""
    o, t = sanitize_operands(output, target, names=["output", "target"])
    if len(t.shape) != len(o.shape):
        raise ValueError("fmeasure: output %r and target %r must have the same rank" % (o, t))
    axis = (1, 2) if len(o.shape) == 3 else None
    correct = reduce_sum(element_times(o, t), axis=axis)
    precision = element_divide(correct, reduce_sum(o, axis=axis))
    recall = element_divide(correct, reduce_sum(t, axis=axis))
    b2 = float(beta) ** 2
    return 1 - element_divide((1 + b2) * element_times(precision, recall), plus(b2 * precision, recall))
