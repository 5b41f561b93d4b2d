"""The parts of CNTK's native module (cntk.cntk_py) that scripts call directly."""
import importlib as _importlib
import os as _os
import warnings as _warnings

import numpy as _np
import torch as _torch

from . import initializer as _initializer
from .core import cntk_rng as _rng
from .core import variables as _variables
from .core.hooks import hook as _hook
from .learners.adadelta import LearnerAdaDelta as _AdaDelta
from .learners.adagrad import LearnerAdaGrad as _AdaGrad
from .learners.adam import LearnerAdam as _Adam
from .learners.fsadagrad import LearnerFSAdaGrad as _FSAdaGrad
from .learners.momentum import LearnerMomentumSGD as _MomentumSGD, LearnerNesterov as _Nesterov
from .learners.rmsprop import LearnerRMSProp as _RMSProp
from .learners.sgd import LearnerSGD as _SGD
from .learners.defaults import default_unit_gain_value, set_default_unit_gain_value  # noqa: F401
from .learners.learner import Learner  # noqa: F401 (the base of every learner, as CNTK's native Learner)
from .learners.options import AdditionalLearningOptions
from .learners.schedules import TrainingParameterSchedule as _Schedule
from .core.dtypes import (DataType_Double, DataType_Float, DataType_Float16, DataType_Int8,  # noqa: F401
                          DataType_Int16, DataType_UChar, DataType_Unknown)
sentinel_value_for_auto_select_random_seed = _rng.SentinelValueForAutoSelectRandomSeed
DataUnit_Sweep, DataUnit_Sample, DataUnit_Minibatch = 0, 1, 2     # the values of cntk.train.DataUnit
StorageFormat_Dense, StorageFormat_SparseCSC, StorageFormat_SparseBlockCol = range(3)  # CNTK's StorageFormat enum
VariableKind_Input, VariableKind_Output, VariableKind_Parameter, VariableKind_Constant, VariableKind_Placeholder = \
    (_variables.KIND_NUMBERS[k] for k in ("Input", "Output", "Parameter", "Constant", "Placeholder"))  # kind()

_state = {"deterministic": False, "force_setting_device": False, "checked_mode": False,
          "gpu_memory_trace_level": 0, "math_lib_trace_level": 0, "synchronous_gpu": False,
          "forward_values_sharing": True, "gradient_accumulation_optimization": True,
          "sparse_gradient_aggregation": False}


default_param_init_scale = _initializer.DefaultParamInitScale
sentinel_value_for_infer_param_init_rank = _initializer.SentinelValueForInferParamInitRank
_INFER_RANK = sentinel_value_for_infer_param_init_rank
_AUTO_SEED = sentinel_value_for_auto_select_random_seed


# the native initializer constructors that cntk.initializer wraps (positional, C++ parameter order)
def constant_initializer(value=0.0):
    return _initializer._Constant(value)


def uniform_initializer(scale, seed=_AUTO_SEED):
    return _initializer.uniform(scale, seed)


def normal_initializer(scale, output_rank=_INFER_RANK, filter_rank=_INFER_RANK, seed=_AUTO_SEED):
    return _initializer.normal(scale, output_rank, filter_rank, seed)


def _fan_scaled(make):
    def native(scale=default_param_init_scale, output_rank=_INFER_RANK, filter_rank=_INFER_RANK, seed=_AUTO_SEED):
        return make(scale, output_rank, filter_rank, seed)
    return native


xavier_initializer = _fan_scaled(_initializer.xavier)
glorot_uniform_initializer = _fan_scaled(_initializer.glorot_uniform)
glorot_normal_initializer = _fan_scaled(_initializer.glorot_normal)
he_uniform_initializer = _fan_scaled(_initializer.he_uniform)
he_normal_initializer = _fan_scaled(_initializer.he_normal)


def bilinear_initializer(kernel_width, kernel_height):
    return _initializer.bilinear(kernel_width, kernel_height)


def random_initializer_with_rank(initializer, output_rank, filter_rank):
    return _initializer.initializer_with_rank(initializer, output_rank, filter_rank)


def truncated_normal_initializer(stdev=1.0, seed=_AUTO_SEED):
    return _initializer.truncated_normal(stdev, seed)


def set_fixed_random_seed(value):
    """Every automatic seed (of random initializers and random nodes) becomes ``value``, as in CNTK; torch's
    global generator, which a few of cntk-compat's own operations draw from, is seeded with it too. numpy's
    and Python's generators are left alone: CNTK does not touch them, so a script's own data stays the same."""
    _rng.set_fixed_random_seed(value)
    _torch.manual_seed(int(value))


def reset_random_seed(value=0):
    """The automatic seeds restart at ``value`` and are no longer fixed."""
    _rng.reset_random_seed(value)


def generate_random_seed(perWorkerLocalValue=False):
    """The next automatic seed (and the counter moves on unless the seed is fixed)."""
    return _rng.generate_random_seed(perWorkerLocalValue)


def is_random_seed_fixed():
    return _rng.is_random_seed_fixed()


def force_deterministic_algorithms(enable=True):
    _state["deterministic"] = bool(enable)
    _torch.use_deterministic_algorithms(bool(enable), warn_only=True)


def should_force_deterministic_algorithms():
    return _state["deterministic"]


def always_allow_setting_default_device():
    _state["force_setting_device"] = True


def get_random_seed():
    """The value the next automatic seed takes."""
    return _rng.get_random_seed()


_READER_NAMES = ("MinibatchSourceConfig", "to_dictionary")

# CNTK's SWIG classes that its Python classes derive from: every instance of the Python class is one of these
# (Keras' CNTK backend tests isinstance(x, C.cntk_py.Function)), so each names the class the package uses
_NATIVE_BASES = {
    "Function": "core.function:Function", "Variable": "core.variables:Variable", "Axis": "core.axis:Axis",
    "DeviceDescriptor": "core.device:DeviceDescriptor", "Learner": "learners.learner:Learner",
    "Trainer": "train.trainer:Trainer", "Evaluator": "eval.evaluator:Evaluator",
    "MinibatchSource": "io.minibatch_source:MinibatchSource", "MinibatchData": "io.minibatch_data:MinibatchData",
    "StreamInformation": "io.streams:StreamInformation", "StreamConfiguration": "io.streams:StreamConfiguration",
    "CheckpointConfig": "train.training_session:CheckpointConfig",
    "CrossValidationConfig": "train.training_session:CrossValidationConfig",
    "TestConfig": "train.training_session:TestConfig", "TrainingSession": "train.training_session:TrainingSession",
    "DistributedLearner": "distributed.learner:DistributedLearner",
    "DistributedCommunicator": "distributed.communicator:Communicator",
    "DistributedWorkerDescriptor": "distributed.communicator:WorkerDescriptor",
    "SwigMinibatchSource": "io.user_source:UserMinibatchSource",
    "SwigDataDeserializer": "io.user_source:UserDeserializer",
}


def __getattr__(name):
    # these live in packages that import cntk_py themselves, so they are imported on demand
    if name == "ProgressWriter":
        from .logging.progress_writer import ProgressWriter
        return ProgressWriter
    if name in _READER_NAMES:
        from .io import source_config
        return getattr(source_config, name)
    if name in ("Value", "NDArrayView"):  # the bases of cntk.Value / cntk.NDArrayView, as CNTK's SWIG classes
        from .core import value
        return getattr(value, "_Native" + name)
    if name in ("DeviceKind_CPU", "DeviceKind_GPU"):
        from .core.device import DeviceKind
        return DeviceKind.CPU if name == "DeviceKind_CPU" else DeviceKind.GPU
    if name in ("Parameter", "Constant"):
        return _native_holder(name)
    if name == "DictionaryValue":
        return _hook("dictionary_value")
    if name in _NATIVE_BASES:
        module, _, attribute = _NATIVE_BASES[name].partition(":")
        import importlib
        return getattr(importlib.import_module(__package__ + "." + module), attribute)
    raise AttributeError("module 'cntk.cntk_py' has no attribute %r" % name)


class Dictionary(dict):
    """CNTK's native Dictionary (configuration keys to values): here a plain dict."""


def _native_holder(kind):
    """The native constructors Parameter(shape, data_type, init_value=0, device=None, name='') and
    Parameter(value, name='') (Constant alike): they give cntk.variables.Parameter / Constant."""
    from .core import variables as _variables
    cls = _variables.Parameter if kind == "Parameter" else _variables.Constant

    def make(shape_or_value, *args, **kwargs):
        if isinstance(shape_or_value, (tuple, list, int)) and args and isinstance(args[0], int):
            data_type, rest = args[0], args[1:]
            init = rest[0] if rest else kwargs.pop("init_value", 0)
            device = rest[1] if len(rest) > 1 else kwargs.pop("device", None)
            name = rest[2] if len(rest) > 2 else kwargs.pop("name", "")
            if kind == "Parameter":
                return cls(shape_or_value, init, data_type, device, name)
            return cls(init, shape_or_value, data_type, device, name)
        value = getattr(shape_or_value, "asarray", lambda: shape_or_value)()
        name = args[0] if args else kwargs.pop("name", "")
        return cls(None, value, None, None, name) if kind == "Parameter" else cls(value, None, None, None, name)
    make.__name__ = kind
    return make


class SizeTWrapper(object):
    """A size_t for a Dictionary (CNTK's learner factories wrap the reference minibatch size in one)."""

    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, _np.integer)) or value < 0:
            raise TypeError("SizeTWrapper: expected a non-negative integer, got %r" % (value,))
        self.value = int(value)


def _native_options(factory, schedules, options):
    """(reference minibatch size or None, options) of a learner made the way CNTK's native factories make it:
    every hyper-parameter schedule given as a schedule, the reference minibatch size (if any) in
    ``options.dict_options`` as a SizeTWrapper."""
    options = AdditionalLearningOptions() if options is None else options
    wrong = [s for s in schedules if not isinstance(s, _Schedule)]
    if wrong or not isinstance(options, AdditionalLearningOptions):
        raise NotImplementedError("Wrong number or type of arguments for overloaded function '%s': %r is not a %s"
                                  % (factory, wrong[0] if wrong else options, "training parameter schedule"
                                     if wrong else "cntk_py.AdditionalLearningOptions"))
    size = options.dict_options.get(Learner._MINIBATCH_SIZE)
    if size is not None and not isinstance(size, SizeTWrapper):
        raise TypeError("%s: dict_options[%r] must be a SizeTWrapper, got %r"
                        % (factory, Learner._MINIBATCH_SIZE, size))
    return (None if size is None else size.value), options


# CNTK's native learner factories (what cntk.learners' factories call once they have made the schedules)
def sgd_learner(parameters, lr, additional_options=None):
    reference, options = _native_options("sgd_learner", (lr,), additional_options)
    return _SGD(parameters, lr, reference, options)


def momentum_sgd_learner(parameters, lr, momentum, unit_gain, additional_options=None):
    reference, options = _native_options("momentum_sgd_learner", (lr, momentum), additional_options)
    return _MomentumSGD(parameters, lr, momentum, unit_gain, reference, options, None)


def nesterov_learner(parameters, lr, momentum, unit_gain, additional_options=None):
    reference, options = _native_options("nesterov_learner", (lr, momentum), additional_options)
    return _Nesterov(parameters, lr, momentum, unit_gain, reference, options, None)


def ada_delta_learner(parameters, lr, rho, epsilon, additional_options=None):
    reference, options = _native_options("ada_delta_learner", (lr,), additional_options)
    return _AdaDelta(parameters, lr, rho, epsilon, reference, options)


def ada_grad_learner(parameters, lr, need_ave_multiplier, additional_options=None):
    reference, options = _native_options("ada_grad_learner", (lr,), additional_options)
    return _AdaGrad(parameters, lr, need_ave_multiplier, reference, options)


def fsada_grad_learner(parameters, lr, momentum, unit_gain, variance_momentum, additional_options=None):
    reference, options = _native_options("fsada_grad_learner", (lr, momentum, variance_momentum), additional_options)
    return _FSAdaGrad(parameters, lr, momentum, unit_gain, variance_momentum, reference, options, None)


def adam_learner(parameters, lr, momentum, unit_gain, variance_momentum, epsilon, adamax,
                 additional_options=None):
    reference, options = _native_options("adam_learner", (lr, momentum, variance_momentum), additional_options)
    return _Adam(parameters, lr, momentum, unit_gain, variance_momentum, epsilon, adamax, reference, options,
                 None)


def rmsprop_learner(parameters, lr, gamma, inc, dec, max, min, need_ave_multiplier, additional_options=None):
    reference, options = _native_options("rmsprop_learner", (lr,), additional_options)
    return _RMSProp(parameters, lr, gamma, inc, dec, max, min, need_ave_multiplier, reference, options)


def universal_learner(parameters, gradients, update_function):
    """The native constructor behind :func:`cntk.learners.universal`: a learner that copies each parameter's
    gradient into the matching constant of ``gradients`` and then evaluates ``update_function`` (whose
    ``assign`` operations write the new values)."""
    from .learners.learner import _check_parameters
    from .learners.universal import LearnerUniversal
    parameters, gradients = _check_parameters(parameters), list(gradients)
    if len(parameters) != len(gradients):
        raise ValueError("universal_learner: %d parameters but %d gradient constants"
                         % (len(parameters), len(gradients)))
    return LearnerUniversal(parameters, gradients, update_function)


def are_equal(first, second):
    """Whether two data holders (NDArrayView, Value, numpy array) have the same shape and values."""
    a, b = (_np.asarray(x.asarray() if hasattr(x, "asarray") else x) for x in (first, second))
    return a.shape == b.shape and bool(_np.array_equal(a, b))


def allow_renaming_functions():
    """Lets a Function that already has a name be renamed (CNTK refuses by default)."""
    from .core.function import allow_renaming_functions as allow
    allow()


def is_native_user_function_registered(op_id):
    """Native (C++) user functions cannot be registered in cntk-compat, so none ever is."""
    return False


# ---- the native engine's debugging and performance switches (CNTK's debugging guide calls them) ----

def set_gpumemory_allocation_trace_level(trace_level):
    """Above 0, GPU memory allocations are recorded: torch's CUDA allocator keeps the history (with stack
    traces) that ``torch.cuda.memory._snapshot()`` returns. Without a GPU there are none to record."""
    if isinstance(trace_level, bool) or not isinstance(trace_level, int) or trace_level < 0:
        raise ValueError("set_gpumemory_allocation_trace_level: trace level must be a non-negative int, got %r"
                         % (trace_level,))
    _state["gpu_memory_trace_level"] = trace_level
    if _torch.cuda.is_available():
        _torch.cuda.memory._record_memory_history(enabled="all" if trace_level > 0 else None)


def set_math_lib_trace_level(trace_level):
    """The verbosity of CNTK's math library (its own matrix kernels); torch's kernels report nothing, so
    the level is only remembered."""
    if isinstance(trace_level, bool) or not isinstance(trace_level, int) or trace_level < 0:
        raise ValueError("set_math_lib_trace_level: trace level must be a non-negative int, got %r"
                         % (trace_level,))
    _state["math_lib_trace_level"] = trace_level


def enable_synchronous_gpukernel_execution():
    """Every GPU kernel launch waits for the kernel to finish, so errors surface where they happen
    (CUDA_LAUNCH_BLOCKING=1). CUDA reads it once, when it starts: call this before any GPU work."""
    if _torch.cuda.is_available() and _torch.cuda.is_initialized() and \
            _os.environ.get("CUDA_LAUNCH_BLOCKING") != "1":
        _warnings.warn("enable_synchronous_gpukernel_execution: CUDA has already started in this process, so "
                       "kernel launches stay asynchronous; call it before any GPU work (or set "
                       "CUDA_LAUNCH_BLOCKING=1 in the environment)")
    _os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
    _state["synchronous_gpu"] = True


def is_synchronous_gpukernel_execution_enabled():
    return _state["synchronous_gpu"]


def disable_forward_values_sharing():
    """CNTK reuses the memory of forward values that no later node reads, which hides them from
    debugging. torch frees a value only when nothing can read it any more, so there is no such sharing to
    turn off; the setting is remembered."""
    _state["forward_values_sharing"] = False


def enable_forward_values_sharing():
    _state["forward_values_sharing"] = True


def disable_gradient_accumulation_optimization():
    """CNTK's in-place accumulation of gradients into shared buffers; autograd accumulates gradients
    itself, so the setting is only remembered."""
    _state["gradient_accumulation_optimization"] = False


def enable_gradient_accumulation_optimization():
    _state["gradient_accumulation_optimization"] = True


def use_sparse_gradient_aggregation_in_data_parallel_sgd(enable):
    """CNTK's switch for aggregating sparse gradients (e.g. of an embedding fed one-hot input) as sparse
    matrices among the workers of data-parallel SGD. cntk-compat's gradients are dense tensors that DDP always
    aggregates densely, so there is nothing to switch; the setting is remembered."""
    if not isinstance(enable, bool):
        raise TypeError("use_sparse_gradient_aggregation_in_data_parallel_sgd: expected a bool, got %r" % (enable,))
    _state["sparse_gradient_aggregation"] = enable


def disable_cpueval_optimization():
    """CNTK's optimized CPU kernels (MKL-DNN) off: torch's oneDNN (MKL-DNN) kernels off."""
    _torch.backends.mkldnn.enabled = False


def enable_cpueval_optimization():
    _torch.backends.mkldnn.enabled = True


def set_max_num_cputhreads(num_cpu_threads):
    """The number of threads CPU kernels may use (torch's intra-op thread pool)."""
    if isinstance(num_cpu_threads, bool) or not isinstance(num_cpu_threads, int) or num_cpu_threads < 1:
        raise ValueError("set_max_num_cputhreads: expected a positive int, got %r" % (num_cpu_threads,))
    _torch.set_num_threads(num_cpu_threads)


def get_max_num_cputhreads():
    return _torch.get_num_threads()


def set_checked_mode(enable):
    """See cntk.debugging.set_checked_mode."""
    if not isinstance(enable, bool):
        raise TypeError("set_checked_mode: enable must be a bool, got %s" % type(enable).__name__)
    from .core.lowering import set_checked
    _state["checked_mode"] = enable
    set_checked(enable)


def is_checked_mode():
    return _state["checked_mode"]


def set_computation_network_trace_level(trace_level):
    from .debugging.tracing import set_computation_network_trace_level as set_level
    set_level(trace_level)


def enable_node_timing():
    from .debugging.tracing import set_node_timing
    set_node_timing(True)


def disable_node_timeing():  # sic: CNTK's native name
    from .debugging.tracing import set_node_timing
    set_node_timing(False)


def set_trace_level(value):
    from .logging.trace import set_trace_level as set_level
    set_level(value)


def get_trace_level():
    from .logging.trace import get_trace_level as get_level
    return get_level()


def print_built_info():
    """What this build is, as CNTK prints its build information (to stderr)."""
    from .logging.progress_print import _print_built_info
    _print_built_info()


def save_as_legacy_model(root_op, filename):
    """Writes ``root_op`` to ``filename`` in CNTK's legacy v1 model format (cntk.debugging.save_as_legacy_model
    calls it); a graph with an op the v1 writer has no node type for raises ValueError naming it."""
    _hook("save_as_legacy_model")(root_op, filename)


# CNTK's native op constructors whose arguments are the Python op's operands and then a name, which scripts import
# from here (``from cntk.cntk_py import squared_error``): native name -> (the op in cntk, operands, whether the
# name must be given). Like CNTK's, they take Variables and Functions only (a number or an array raises its
# overload error, NotImplementedError) and return the op's Function (CNTK's return a bare native Function that
# its Trainer and ops accept).
_NATIVE_OPS = dict(
    [(name, (name, 1, False)) for name in (
        "abs", "acos", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "floor", "log", "negate",
        "reciprocal", "round", "sigmoid", "sin", "sinh", "softplus", "softsign", "sqrt", "square", "tan", "tanh",
        "elu", "element_not", "stop_gradient", "log_softmax", "softmax", "hardmax", "alias")] +
    [(name, (name, 2, False)) for name in (
        "plus", "minus", "element_times", "element_divide", "equal", "not_equal", "less", "less_equal", "greater",
        "greater_equal", "element_and", "element_or", "element_xor", "log_add_exp", "pow", "squared_error",
        "binary_cross_entropy", "cosine_distance")] +
    [("re_lu", ("relu", 1, False)), ("pre_lu", ("param_relu", 2, False)),
     ("element_max", ("element_max", 2, True)), ("element_min", ("element_min", 2, True))])


def _native_op(native_name, op_name, operands, name_required):
    def native(*args):
        if name_required and len(args) != operands + 1:
            raise TypeError("%s() takes exactly %d arguments (%d given)" % (native_name, operands + 1, len(args)))
        from . import ops
        if len(args) not in (operands, operands + 1) or \
                not all(isinstance(a, (_variables.Variable, ops.functions.Function)) for a in args[:operands]) or \
                (len(args) > operands and not isinstance(args[operands], str)):
            raise NotImplementedError("Wrong number or type of arguments for overloaded function '%s'." % native_name)
        op = getattr(ops, op_name, None) or getattr(_importlib.import_module(__package__ + ".losses"), op_name)
        return op(*args[:operands], name=args[operands] if len(args) > operands else "")
    native.__name__ = native_name
    native.__doc__ = "CNTK's native %s(%s, name=''): cntk.%s." % (
        native_name, ", ".join("operand%d" % i for i in range(operands)), op_name)
    return native


for _name, (_op, _operands, _name_required) in _NATIVE_OPS.items():
    globals()[_name] = _native_op(_name, _op, _operands, _name_required)
del _name, _op, _operands, _name_required
