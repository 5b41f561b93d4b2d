"""cntk.ops.functions: the Function class and its helpers."""
import enum

from ..core.function import CloneMethod, Function
from ._user_function import UserFunction


class ModelFormat(enum.Enum):
    CNTKv2 = 0
    ONNX = 1


def BlockFunction(op_name, name):
    """Decorator: the Python function becomes a block Function named op_name (like a layer)."""
    def decorator(f):
        return Function._from_python(f, make_block=True, op_name=op_name, name=name)
    return decorator


__all__ = ["CloneMethod", "Function", "BlockFunction", "ModelFormat", "UserFunction"]
