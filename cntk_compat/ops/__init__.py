"""cntk.ops: the primitive operations (each registered once in cntk_compat.core.registry)."""
from ..core.axis import Axis
from ..core.function import as_block
from ..core.variables import (constant, input_variable, output_variable, parameter, placeholder)
from .elementwise import (abs, acos, alias, asin, asinh, associative_multi_arg, atan, atanh, ceil, clip, cos, cosh,
                          element_and, element_divide, element_max, element_min, element_not, element_or,
                          element_select, element_times, element_xor, elu, equal, exp, floor, greater, greater_equal,
                          hard_sigmoid, image_scaler, leaky_relu, less, less_equal, log, log_add_exp, mean, minus,
                          negate, not_equal, param_relu, plus, pow, reciprocal, relu, round, selu, sigmoid, sin,
                          sinh, softplus, softsign, sqrt, square, stop_gradient, straight_through_impl, sum, tan,
                          tanh)
from .linear import (TIMES_NO_INFERRED_INPUT_RANK, TIMES_REDUCE_SEQUENCE_AXIS_WITHOUT_INFERRED_INPUT_RANK,
                     times, times_transpose)
from .misc import (as_composite, assign, cast, combine, eye_like, gather, mean_variance_normalization,
                   one_hot, ones_like, per_dim_mean_variance_normalize, top_k, zeros_like)
from .dropout import dropout
from .sampling import SentinelValueForAutoSelectRandomSeed, random_sample, random_sample_inclusion_frequency
from .softmax import hardmax, log_softmax, softmax
from .reductions import (argmax, argmin, reduce_l1, reduce_l2, reduce_log_sum_exp, reduce_max, reduce_mean,
                         reduce_min, reduce_prod, reduce_sum, reduce_sum_square)
from .shaping import (CONSTANT_PAD, REFLECT_PAD, SYMMETRIC_PAD, depth_to_space, expand_dims, flatten, getitem,
                      pad, reshape, slice, space_to_depth, splice, squeeze, swapaxes, transpose)


def input(shape, dtype=None, needs_gradient=False, is_sparse=False, dynamic_axes=(Axis.default_batch_axis(),),
          name=""):
    """Deprecated alias of input_variable (kept because CNTK 2.x scripts still call it)."""
    import numpy as np
    return input_variable(shape, dtype or np.float32, needs_gradient, is_sparse, dynamic_axes, name)
from .convolution import convolution, convolution_transpose  # noqa: E402
from .normalization import batch_normalization, local_response_normalization  # noqa: E402
from .pooling import AVG_POOLING, MAX_POOLING, MAX_UNPOOLING, pooling, unpooling  # noqa: E402
from .roi import roipooling  # noqa: E402
from .sequence._layout import reconcile_dynamic_axes, to_sequence, to_sequence_like  # noqa: E402
from ._user_function import user_function  # noqa: E402
from .functions import (BlockFunction, CloneMethod, Function, ModelFormat, load_model,  # noqa: E402,F401
                        native_user_function, register_native_user_function)
from .batch_axis import to_batch, unpack_batch  # noqa: E402,F401
from .crop import crop_automatic, crop_automatic_with_ancestors, crop_manual  # noqa: E402,F401
from .ctc import forward_backward, labels_to_graph  # noqa: E402,F401
from .custom_proxy import custom_proxy_op  # noqa: E402,F401
from .optimized_rnnstack import optimized_rnnstack  # noqa: E402,F401
from ..core.device import use_default_device  # noqa: E402,F401
from ..default_options import default_override_or, get_default_override  # noqa: E402,F401
from ..io.source_config import INFINITELY_REPEAT  # noqa: E402,F401
from ..core.hooks import provide as _provide  # noqa: E402

# what Variables' and Functions' Python operators (core.operators) and @Function call
_provide(plus=plus, minus=minus, element_times=element_times, element_divide=element_divide, times=times, abs=abs,
         negate=negate, pow=pow, getitem=getitem, alias=alias, user_function=user_function)

# the public names: CNTK 2.7's (its incidental re-exports included) and its sub-modules; the package's
# helper modules and additions stay out of `import *`
__all__ = [
    "AVG_POOLING", "Axis", "BlockFunction", "CONSTANT_PAD", "CloneMethod", "Function", "INFINITELY_REPEAT",
    "MAX_POOLING", "MAX_UNPOOLING", "ModelFormat", "REFLECT_PAD", "SYMMETRIC_PAD",
    "SentinelValueForAutoSelectRandomSeed", "TIMES_NO_INFERRED_INPUT_RANK",
    "TIMES_REDUCE_SEQUENCE_AXIS_WITHOUT_INFERRED_INPUT_RANK", "abs", "acos", "alias", "argmax", "argmin",
    "as_block", "as_composite", "asin", "asinh", "assign", "associative_multi_arg", "atan", "atanh",
    "batch_normalization", "cast", "ceil", "clip", "combine", "constant", "convolution", "convolution_transpose",
    "cos", "cosh", "crop_automatic", "crop_automatic_with_ancestors", "crop_manual", "custom_proxy_op",
    "default_override_or", "depth_to_space", "dropout", "element_and", "element_divide", "element_max",
    "element_min", "element_not", "element_or", "element_select", "element_times", "element_xor", "elu", "equal",
    "exp", "expand_dims", "eye_like", "flatten", "floor", "forward_backward", "functions", "gather",
    "get_default_override", "greater", "greater_equal", "hard_sigmoid", "hardmax", "image_scaler", "input",
    "input_variable", "labels_to_graph", "leaky_relu", "less", "less_equal", "load_model",
    "local_response_normalization", "log", "log_add_exp", "log_softmax", "mean", "mean_variance_normalization",
    "minus", "native_user_function", "negate", "not_equal", "one_hot", "ones_like", "optimized_rnnstack",
    "output_variable", "pad", "param_relu", "parameter", "per_dim_mean_variance_normalize", "placeholder", "plus",
    "pooling", "pow", "random_sample", "random_sample_inclusion_frequency", "reciprocal", "reconcile_dynamic_axes",
    "reduce_l1", "reduce_l2", "reduce_log_sum_exp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_sum", "reduce_sum_square", "register_native_user_function", "relu", "reshape", "roipooling", "round",
    "selu", "sequence", "sigmoid", "sin", "sinh", "slice", "softmax", "softplus", "softsign", "space_to_depth",
    "splice", "sqrt", "square", "squeeze", "stop_gradient", "straight_through_impl", "sum", "swapaxes", "tan",
    "tanh", "times", "times_transpose", "to_batch", "to_sequence", "to_sequence_like", "top_k", "transpose",
    "unpack_batch", "unpooling", "use_default_device", "zeros_like"
]

# names CNTK 2.7's cntk.ops module carries from its internals (not in `import *`): the pooling-type codes (and the
# argument sanitizers, which cntk_compat._incidental_names binds here)
PoolingType_Max = MAX_POOLING
PoolingType_Average = AVG_POOLING
