"""hierarchical_softmax_layer: a two-level softmax. The labels are split into label_classes classes of
ceil(label_dim / label_classes) labels; P(label) = P(class) * P(label | class), each level a softmax."""
import math

from ..core.variables import Parameter
from ..initializer import glorot_normal
from ..ops import constant, floor, one_hot, reshape, round, softmax, times, times_transpose

__all__ = ["hierarchical_softmax_layer"]


def hierarchical_softmax_layer(input_var, label_index, label_dim, label_classes=None):
    """Returns (output_prob: P(label_index) (1,), class_probs (label_classes,), all_probs: per class c, the
    probabilities of all its labels (labels per class,))."""
    if input_var.shape is None or len(input_var.shape) != 1 or input_var.shape[0] < 1:
        raise ValueError("hierarchical_softmax_layer: input_var must be a vector of known dimension, got shape %s"
                         % (input_var.shape,))
    input_dim = input_var.shape[0]
    label_classes = label_classes or int(math.ceil(math.sqrt(float(label_dim))))
    per_class = int(math.ceil(label_dim / label_classes))

    w1 = Parameter((input_dim, label_classes), init=glorot_normal(), name="hsoftmax_w1")
    b1 = Parameter((label_classes,), init=glorot_normal(), name="hsoftmax_b1")
    w2s = Parameter((label_classes, input_dim, per_class), init=glorot_normal(), name="hsoftmax_w2s")
    b2s = Parameter((label_classes, per_class), init=glorot_normal(), name="hsoftmax_b2s")

    class_probs = softmax(b1 + times(input_var, w1))

    def probs_within(class_one_hot):
        w2 = times(class_one_hot, w2s, output_rank=2)
        b2 = times(class_one_hot, b2s, output_rank=1)
        return softmax(b2 + times(input_var, reshape(w2, (input_dim, per_class))))

    target_class = floor((label_index + 0.5) / per_class)
    target_in_class = round(label_index - target_class * per_class)
    class_one_hot = one_hot(target_class, num_classes=label_classes, sparse_output=False)
    prob_in_class = times_transpose(one_hot(target_in_class, num_classes=per_class, sparse_output=False),
                                    probs_within(class_one_hot))
    output_prob = prob_in_class * times_transpose(class_one_hot, class_probs)

    all_probs = []
    for c in range(label_classes):
        c_one_hot = one_hot(constant(c), num_classes=label_classes, sparse_output=False)
        all_probs.append(probs_within(c_one_hot) * times_transpose(c_one_hot, class_probs))
    return output_prob, class_probs, all_probs
