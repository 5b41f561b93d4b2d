"""cntk.internal: the helpers CNTK exposes to its own Python layer, its tests and advanced users."""
from .swig_helper import map_if_possible, typemap
from .sanitize import *  # noqa: F401,F403
from .sanitize import __all__ as _sanitize_all
from .sanitize import _as_tuple  # noqa: F401  (CNTK's tests and layers import it from here)


def _value_as_sequence_or_array(val, var):
    """A Value as numpy: a list of per-sequence arrays when var has a sequence axis, else one array."""
    if len(var.dynamic_axes) > 1:
        return val.as_sequences(var)
    return val.asarray()


# CNTK 2.7's public names here: the sanitize helpers, typemap, map_if_possible and the sub-modules it binds
__all__ = (["typemap", "map_if_possible"] + [n for n in _sanitize_all if n != "typemap"]
           + ["sanitize", "swig_helper", "utils"])


def _bind_sanitizers_in_ops():
    """CNTK 2.7's cntk.ops binds these sanitizers too (contrib converters reach them as cntk.ops.<name>); ops
    stands on a floor below this package, so this package puts them there."""
    from .. import ops
    for name in ("sanitize_axis", "sanitize_axis_list", "sanitize_convolution_args", "sanitize_dtype_cntk",
                 "sanitize_dynamic_axes", "sanitize_input", "sanitize_multi_axis_reduction_list",
                 "sanitize_permutation", "sanitize_pooling_args", "sanitize_shape"):
        setattr(ops, name, globals()[name])


_bind_sanitizers_in_ops()
