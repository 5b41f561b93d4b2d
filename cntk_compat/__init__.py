"""cntk-compat: the CNTK 2.x Python API implemented on PyTorch. ``import cntk`` gives this package."""
__version__ = "2.7"
import numpy as _np  # noqa: E402

DATATYPE = _np.float32  # CNTK's default element type

from . import cntk_py, device, internal, ops, sequence, variables  # noqa: E402
from . import axis  # noqa: E402
from .core.axis import Axis  # noqa: E402
from .core.function import CloneMethod, Function  # noqa: E402
from .core import *  # noqa: E402,F401,F403
from .device import *  # noqa: E402,F401,F403
from .ops import functions  # noqa: E402,F401
from .core.variables import FreeDimension, InferredDimension  # noqa: E402
from .ops import *  # noqa: E402,F401,F403
from .ops import input, user_function  # noqa: E402,F401
from .variables import Constant, Parameter, Variable  # noqa: E402
from . import initializer, layers, losses, metrics  # noqa: E402
from .initializer import *  # noqa: E402,F401,F403
from .losses import *  # noqa: E402,F401,F403
from .metrics import *  # noqa: E402,F401,F403
# as in CNTK, cntk.default_options is the function (the module stays importable as cntk.default_options)
from .default_options import *  # noqa: E402,F401,F403
from .learners import *  # noqa: E402,F401,F403
from .train import *  # noqa: E402,F401,F403
from .eval import *  # noqa: E402,F401,F403
from . import eval, io, learners, logging, random, train  # noqa: E402
from . import debugging  # noqa: E402
from . import model_formats  # noqa: E402,F401
from .model_formats.dictionary_value import to_dictionary_value as _to_cntk_dict_value  # noqa: E402,F401
from . import misc  # noqa: E402
# CNTK star-imports cntk.train, whose distributed module (and its names) thereby become cntk's
from . import distributed  # noqa: E402
from .distributed import *  # noqa: E402,F401,F403
from .io import INFINITELY_REPEAT, MinibatchData  # noqa: E402
from . import tests  # noqa: E402
# CNTK's top-level names for its native library folder (none here: cntk-compat has no native library), the
# automatic-seed value, its trainer module and the sample installer
cntk_library_path = ""
from .core.cntk_rng import SentinelValueForAutoSelectRandomSeed as auto_select  # noqa: E402
from .train import trainer  # noqa: E402
from . import sample_installer  # noqa: E402
from .sample_installer import install_samples  # noqa: E402
# numpy scalars print as under the numpy 1.x CNTK ran with (see numpy_printing.py and docs/NUMBERS.md)
from . import numpy_printing as _numpy_printing  # noqa: E402
_numpy_printing.apply_default()

# the public names: CNTK 2.7's (its incidental re-exports included) and its sub-modules; the package's
# helper modules and additions stay out of `import *`
__all__ = [
    "AVG_POOLING", "Axis", "BlockFunction", "CONSTANT_PAD", "CheckpointConfig", "CloneMethod", "Communicator",
    "Constant", "CrossValidationConfig", "DATATYPE", "DataUnit", "DefaultParamInitScale", "DeviceDescriptor",
    "DeviceKind", "DistributedLearner", "Evaluator", "FreeDimension", "Function", "IGNORE", "INFINITELY_REPEAT",
    "InferredDimension", "Learner", "MAX_POOLING", "MAX_UNPOOLING", "MinibatchData", "ModelFormat", "NDArrayView",
    "Parameter", "REFLECT_PAD", "SYMMETRIC_PAD", "SentinelValueForAutoSelectRandomSeed",
    "SentinelValueForInferParamInitRank", "TIMES_NO_INFERRED_INPUT_RANK",
    "TIMES_REDUCE_SEQUENCE_AXIS_WITHOUT_INFERRED_INPUT_RANK", "TestConfig", "Trainer", "TrainingSession",
    "UnitType", "UserLearner", "Value", "Variable", "WorkerDescriptor", "abs", "acos", "adadelta", "adagrad",
    "adam", "alias", "all_devices", "argmax", "argmin", "as_block", "as_composite", "asarray", "asin", "asinh",
    "assign", "associative_multi_arg", "asvalue", "atan", "atanh", "auto_select", "axis", "batch_normalization",
    "bilinear", "binary_cross_entropy", "block_momentum_distributed_learner", "cast", "ceil",
    "classification_error", "clip", "cntk_library_path", "combine", "constant", "convolution",
    "convolution_transpose", "core", "cos", "cosh", "cosine_distance", "cosine_distance_with_negative_samples",
    "cpu", "crop_automatic", "crop_automatic_with_ancestors", "crop_manual", "cross_entropy_with_softmax",
    "custom_proxy_op", "data_parallel_distributed_learner", "debugging", "default_options", "default_options_for",
    "default_override_or", "default_unit_gain_value", "depth_to_space", "device", "dropout", "edit_distance_error",
    "element_and", "element_divide", "element_max", "element_min", "element_not", "element_or", "element_select",
    "element_times", "element_xor", "elu", "equal", "eval", "exp", "expand_dims", "eye_like", "flatten", "floor",
    "fmeasure", "forward_backward", "fsadagrad", "gather", "get_default_override", "get_global_option",
    "get_gpu_properties", "glorot_normal", "glorot_uniform", "gpu", "greater", "greater_equal", "hard_sigmoid",
    "hardmax", "he_normal", "he_uniform", "hierarchical_softmax_layer", "image_scaler", "initializer",
    "initializer_with_rank", "input", "input_variable", "install_samples", "internal", "io", "is_default_override",
    "labels_to_graph", "lambda_rank", "lattice_sequence_with_softmax", "layers", "leaky_relu", "learners",
    "learning_parameter_schedule", "learning_parameter_schedule_per_sample", "learning_rate_schedule", "less",
    "less_equal", "load_model", "local_response_normalization", "log", "log_add_exp", "log_softmax", "logging",
    "losses", "mean", "mean_variance_normalization", "metrics", "minibatch_size_schedule", "minus", "misc",
    "momentum_as_time_constant_schedule", "momentum_schedule", "momentum_schedule_per_sample", "momentum_sgd",
    "mpi_communicator", "native_user_function", "nce_loss", "ndcg_at_1", "negate", "nesterov", "normal",
    "not_equal", "one_hot", "ones_like", "ops", "optimized_rnnstack", "output_variable", "pad", "param_relu",
    "parameter", "per_dim_mean_variance_normalize", "placeholder", "plus", "pooling", "pow", "random",
    "random_sample", "random_sample_inclusion_frequency", "reciprocal", "reconcile_dynamic_axes", "reduce_l1",
    "reduce_l2", "reduce_log_sum_exp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
    "reduce_sum_square", "register_native_user_function", "relu", "reshape", "rmsprop", "roipooling", "round",
    "sample_installer", "selu", "sequence", "set_default_unit_gain_value", "set_excluded_devices",
    "set_global_option", "sgd", "sigmoid", "sin", "sinh", "slice", "softmax", "softplus", "softsign",
    "space_to_depth", "splice", "sqrt", "square", "squared_error", "squeeze", "stop_gradient",
    "straight_through_impl", "sum", "swapaxes", "tan", "tanh", "tensor", "times", "times_transpose", "to_batch",
    "to_sequence", "to_sequence_like", "top_k", "train", "trainer", "training_parameter_schedule",
    "training_session", "transpose", "truncated_normal", "try_set_default_device", "uniform", "universal",
    "unpack_batch", "unpooling", "use_default_device", "user_function", "variables",
    "weighted_binary_cross_entropy", "xavier", "zeros_like", "functions", "evaluator"
]

from . import _incidental_names as _incidental_names  # noqa: E402
_incidental_names.bind_all()   # the helpers and constants CNTK 2.7's modules bind by importing them
