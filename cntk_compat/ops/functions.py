"""cntk.ops.functions: the Function class and its helpers."""
from ..core.device import DeviceDescriptor, cpu
from ..core.function import CloneMethod, Function
from ..core.serialization import ModelFormat, allow_user_function_imports
from ..core.value import Value
from ..core.variables import Variable
from ..variables import Record
from ._user_function import UserFunction


def load_model(model, device=None, format=ModelFormat.CNTKv2):
    """The Function saved by Function.save(): ``model`` is a file name or a bytes buffer."""
    return Function.load(model, device, format)


def register_native_user_function(op_id, module_name, factory_method_name):
    raise NotImplementedError("register_native_user_function: native (C++) user functions are not supported; "
                              "write the op as a Python UserFunction")


def native_user_function(op_id, operands, attributes=None, user_function_instance_name=''):
    raise NotImplementedError("native_user_function: native (C++) user functions are not supported; "
                              "write the op as a Python UserFunction")


def BlockFunction(op_name, name):
    """Decorator: the Python function becomes a block Function named op_name (like a layer)."""
    def decorator(f):
        return Function._from_python(f, make_block=True, op_name=op_name, name=name)
    return decorator


__all__ = [
    "CloneMethod", "Function", "BlockFunction", "ModelFormat", "UserFunction", "load_model",
    "register_native_user_function", "native_user_function", "DeviceDescriptor", "Record", "Value", "Variable",
    "cpu"
]
