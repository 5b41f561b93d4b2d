"""cntk.layers.layers: CNTK's module of the primitive layers (Dense, Convolution, pooling, normalization, ...).
The layers live in one file per family beside this one; this module gathers them under CNTK's module name,
with the names CNTK's module imports for its own use (scripts reach for some of them through it)."""
from ..core.axis import Axis  # noqa: F401
from ..core.function import Function
from ..default_options import default_override_or, get_default_override, is_default_override
from ..ops import (batch_normalization, convolution, convolution_transpose, dropout, pooling, reduce_mean, reshape,
                   splice, sqrt, times, unpooling)
from ..ops.functions import BlockFunction
from ..ops.sampling import SentinelValueForAutoSelectRandomSeed
from ..variables import Constant, Parameter, Record
from .blocks import _INFERRED  # noqa: F401 (CNTK 2.7 binds it here; scripts import it from cntk.layers.layers)
from .building import UntestedBranchError, _initializer_for, identity  # noqa: F401 (_initializer_for: as UntestedBranchError)
from .convolution import (Convolution, Convolution1D, Convolution2D, Convolution3D, ConvolutionTranspose,
                          ConvolutionTranspose1D, ConvolutionTranspose2D, ConvolutionTranspose3D,
                          SequentialConvolution)
from .core import Activation, Dropout, Label
from .dense import Dense, Embedding
from .normalization import BatchNormalization, LayerNormalization
from .pooling import AveragePooling, GlobalAveragePooling, GlobalMaxPooling, MaxPooling, MaxUnpooling

__all__ = [
    # the layers
    "Dense", "Embedding", "SequentialConvolution", "Convolution", "Convolution1D", "Convolution2D", "Convolution3D",
    "ConvolutionTranspose", "ConvolutionTranspose1D", "ConvolutionTranspose2D", "ConvolutionTranspose3D",
    "MaxPooling", "AveragePooling", "GlobalMaxPooling", "GlobalAveragePooling", "MaxUnpooling", "Dropout",
    "Activation", "BatchNormalization", "LayerNormalization", "Label",
    # names CNTK's cntk.layers.layers (and so cntk.layers) re-exports
    "Function", "BlockFunction", "Parameter", "Record", "Constant", "times", "convolution", "convolution_transpose",
    "pooling", "unpooling", "batch_normalization", "dropout", "splice", "reshape", "reduce_mean", "sqrt",
    "SentinelValueForAutoSelectRandomSeed", "identity", "UntestedBranchError", "is_default_override",
    "get_default_override", "default_override_or",
]
