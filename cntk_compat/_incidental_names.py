"""The helpers, constants and modules that CNTK 2.7's modules bind by importing them (``typemap``,
``sanitize_input``, ``PoolingType_Max``, ``np``, ...), which ``cntk.X.name`` and ``from cntk.X import *`` hand on.

CNTK's modules define no ``__all__``: code written against CNTK uses these names through them (cntkx decorates its
ops with ``C.typemap``; after ``from cntk import *`` a script has ``C``, the cntk module, and ``np``; CNTK's ATIS
example calls ``np.argmax`` after only ``from cntk.layers import *``). Read from the
CNTK 2.7 wheel (its names missing here; ``inspect.getargspec`` and CNTK's native ``NDShape`` and dictionary-value
factories have no counterpart). The package applies the table once, after every module is imported, so that no
module imports from a floor above its own (``cntk.ops`` binds the sanitizers of ``cntk.internal``).
"""
import importlib

PoolingType_Average, PoolingType_Max = 1, 0   # CNTK's native enum values

# where a name comes from ("module" or "module:attribute"; "self:" is this module); a name not listed is the
# sanitizer of that name in cntk.internal.sanitize
SOURCES = {
    "C": "cntk_compat", "Dictionary": "cntk_compat.cntk_py:Dictionary",
    "DictionaryValue": "cntk_compat.cntk_py:DictionaryValue", "Enum": "enum:Enum",
    "FunctionType": "types:FunctionType", "InferredDimension": "cntk_compat.core.variables:InferredDimension",
    "PoolingType_Average": "self:PoolingType_Average", "PoolingType_Max": "self:PoolingType_Max",
    "_cntk_py": "cntk_compat.cntk_py", "cntk": "cntk_compat", "cntk_py": "cntk_compat.cntk_py",
    "collections": "collections", "core": "cntk_compat.core", "ctypes": "ctypes",
    "defaultdict": "collections:defaultdict", "distributed": "cntk_compat.distributed",
    "division": "__future__:division", "enum": "enum", "get_data_type": "cntk_compat.internal.utils:get_data_type",
    "get_python_function_arguments": "cntk_compat.internal.utils:get_python_function_arguments",
    "map_function_arguments": "cntk_compat.internal.utils:map_function_arguments",
    "map_if_possible": "cntk_compat.internal.swig_helper:map_if_possible", "np": "numpy", "numbers": "numbers",
    "os": "os", "path": "os.path", "platform": "platform", "print_function": "__future__:print_function",
    "sequence": "cntk_compat.ops.sequence", "sparse": "scipy.sparse", "sys": "sys", "time": "time",
    "trainer": "cntk_compat.train.trainer", "typemap": "cntk_compat.internal.swig_helper:typemap",
    "unique": "enum:unique", "utils": "cntk_compat.internal.utils", "uuid": "uuid", "warn": "warnings:warn",
    "warnings": "warnings", "wraps": "functools:wraps",
}

# the names each CNTK 2.7 module binds beyond the package's own
NAMES = {
    "cntk": ("C Enum PoolingType_Average PoolingType_Max _cntk_py cntk_py ctypes data_type_to_dtype distributed "
             "division enum get_data_type map_if_possible np numbers os platform print_function sanitize_axis "
             "sanitize_axis_list sanitize_batch sanitize_convolution_args sanitize_dtype_cntk sanitize_dynamic_axes "
             "sanitize_function sanitize_input sanitize_multi_axis_reduction_list sanitize_permutation "
             "sanitize_pooling_args sanitize_shape sanitize_var_map sparse sys typemap unique utils warnings"),
    "cntk.axis": "cntk_py typemap",
    "cntk.core": "cntk_py data_type_to_dtype np numbers sanitize_batch sparse typemap warnings",
    "cntk.debugging": "cntk_py defaultdict division map_if_possible print_function sys",
    "cntk.device": "Enum cntk_py typemap unique",
    "cntk.eval": "cntk_py sanitize_function sanitize_var_map typemap",
    "cntk.initializer": "cntk_py",
    "cntk.internal": "C cntk cntk_py collections np numbers",
    "cntk.internal.sanitize": "C cntk_py collections np numbers",
    "cntk.internal.swig_helper": "cntk_py wraps",
    "cntk.internal.utils": "Dictionary DictionaryValue cntk_py np",
    "cntk.io": "cntk cntk_py is_string np sanitize_dtype_cntk typemap uuid warnings",
    "cntk.io.transforms": "cntk_py sanitize_2d_number sanitize_range",
    "cntk.layers": ("C FunctionType InferredDimension PoolingType_Average PoolingType_Max division "
                    "get_python_function_arguments map_function_arguments np sanitize_shape warn"),
    "cntk.layers.blocks": "InferredDimension division np",
    "cntk.layers.higher_order_layers": "FunctionType",
    "cntk.layers.layers": "C PoolingType_Average PoolingType_Max division np sequence",
    "cntk.layers.models": "C division warn",
    "cntk.layers.models.attention": "C division warn",
    "cntk.layers.sequence": "InferredDimension division np",
    "cntk.layers.typing": "get_python_function_arguments map_function_arguments np sanitize_shape",
    "cntk.learners": "Enum cntk_py map_if_possible np typemap unique utils warnings",
    "cntk.logging": "Enum cntk_py core division os print_function sys time unique",
    "cntk.logging.graph": "os sys",
    "cntk.logging.progress_print": "cntk_py core division print_function sys time",
    "cntk.losses": ("C division get_data_type np print_function sanitize_axis sanitize_dynamic_axes sanitize_input "
                    "sanitize_shape typemap"),
    "cntk.metrics": "division get_data_type print_function sanitize_axis sanitize_input typemap",
    "cntk.misc": "C np",
    "cntk.misc.converter": "C",
    "cntk.ops": ("PoolingType_Average PoolingType_Max cntk_py division get_data_type np numbers print_function "
                 "sanitize_axis sanitize_axis_list sanitize_convolution_args sanitize_dtype_cntk sanitize_dynamic_axes "
                 "sanitize_input sanitize_multi_axis_reduction_list sanitize_permutation sanitize_pooling_args "
                 "sanitize_shape typemap"),
    "cntk.ops.functions": ("Enum cntk cntk_py collections get_python_function_arguments is_byte_buffer "
                           "map_function_arguments map_if_possible path sanitize_Function_attributes sanitize_batch "
                           "sanitize_dtype_cntk sanitize_var_map sanitize_variable_value_dict "
                           "sanitize_variables_or_functions sys typemap unique warnings"),
    "cntk.ops.sequence": "get_data_type np sanitize_input typemap",
    "cntk.random": "division np print_function sanitize_input sanitize_random_args typemap",
    "cntk.tensor": "sparse warnings",
    "cntk.train": "Enum cntk_py ctypes distributed enum platform sanitize_function sanitize_var_map sys typemap unique",
    "cntk.train.distributed": "cntk_py ctypes platform trainer typemap",
    "cntk.train.trainer": "cntk_py sanitize_function sanitize_var_map typemap",
    "cntk.train.training_session": "Enum cntk_py enum sanitize_function sanitize_var_map sys typemap unique",
    "cntk.variables": ("cntk_py np sanitize_dtype_cntk sanitize_dynamic_axes sanitize_precision sanitize_shape "
                       "sanitize_value typemap"),
    # CNTK's deep-RL helpers import cntk.ops as C
    "cntk.contrib.deeprl.agent.shared.cntk_utils": "C",
}


def _resolve(name, module):
    if module == "cntk.contrib.deeprl.agent.shared.cntk_utils" and name == "C":
        return importlib.import_module("cntk_compat.ops")
    source = SOURCES.get(name, "cntk_compat.internal.sanitize:" + name).replace("self:", __name__ + ":")
    path, _, attribute = source.partition(":")
    value = importlib.import_module(path)
    return getattr(value, attribute) if attribute else value


def bind_all():
    """Binds every name of the table in its module (where the module does not define it) and names the public
    ones in the module's ``__all__``, as CNTK's star import hands them on."""
    for public, names in NAMES.items():
        module = importlib.import_module("cntk_compat" + public[len("cntk"):])
        exported = getattr(module, "__all__", None)
        for name in names.split():
            if name not in vars(module):
                setattr(module, name, _resolve(name, public))
            if exported is not None and not name.startswith("_") and name not in exported:
                exported.append(name)
