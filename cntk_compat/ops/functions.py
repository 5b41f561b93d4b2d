"""cntk.ops.functions: the Function class and its helpers."""
from ..core.device import DeviceDescriptor, cpu
from ..core.function import CloneMethod, Function
from ..core.serialization import ModelFormat, allow_user_function_imports
from ..core.value import Value
from ..core.variables import Variable
from ..variables import Record
from ._user_function import UserFunction
from .unsupported import native_user_function, register_native_user_function  # noqa: F401 (cntk.ops.functions')


def load_model(model, device=None, format=ModelFormat.CNTKv2):
    """The Function saved by Function.save(): ``model`` is a file name or a bytes buffer."""
    return Function.load(model, device, format)


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
