"""cntk.layers: layer factories (each returns a block Function over a placeholder) and their options."""
from .typing import *  # noqa: F401,F403
from . import typing  # noqa: F401
from ..default_options import default_options, default_options_for, default_override_or  # noqa: F401
from .blocks import *  # noqa: F401,F403
from .higher_order_layers import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from . import layers  # noqa: F401
from .sequence import *  # noqa: F401,F403
from .models import *  # noqa: F401,F403
from . import models  # noqa: F401
# further names CNTK's cntk.layers re-exports from the modules it is built of
from ..core.axis import Axis  # noqa: F401,E402
from ..core.variables import Variable  # noqa: F401,E402
from ..initializer import glorot_uniform  # noqa: F401,E402
from ..ops import (alias, combine, placeholder, reconcile_dynamic_axes, sigmoid, slice, softplus,  # noqa: F401,E402
                   tanh)
# CNTK's `from .sequence import *` (its layers/sequence.py has no __all__) rebinds cntk.layers.sequence to the
# cntk.ops.sequence module that file imports; scripts that star-import cntk.layers call sequence.slice etc. on it
from ..ops import sequence  # noqa: F401,E402

# the public names: CNTK 2.7's (its incidental re-exports included) and its sub-modules; the package's
# helper modules and additions stay out of `import *`
__all__ = [
    "Activation", "AttentionModel", "AveragePooling", "Axis", "BatchNormalization", "BlockFunction", "Constant",
    "Convolution", "Convolution1D", "Convolution2D", "Convolution3D", "ConvolutionTranspose",
    "ConvolutionTranspose1D", "ConvolutionTranspose2D", "ConvolutionTranspose3D", "Delay", "Dense", "Dropout",
    "Embedding", "Fold", "For", "ForwardDeclaration", "Function", "GRU", "GlobalAveragePooling", "GlobalMaxPooling",
    "LSTM", "Label", "LayerNormalization", "MaxPooling", "MaxUnpooling", "Parameter", "ParameterTensor",
    "PastValueWindow", "RNNStep", "RNNUnit", "Record", "Recurrence", "RecurrenceFrom", "ResNetBlock",
    "SentinelValueForAutoSelectRandomSeed", "Sequence", "SequenceOver", "SequenceOverMeta", "Sequential",
    "SequentialClique", "SequentialConvolution", "Signature", "SparseTensor", "Stabilizer", "Tensor", "UnfoldFrom",
    "UntestedBranchError", "Variable", "alias", "batch_normalization", "blocks", "combine", "convolution",
    "convolution_transpose", "default_options", "default_override_or", "dropout", "get_default_override",
    "glorot_uniform", "higher_order_layers", "identity", "is_default_override", "layers", "models", "placeholder",
    "pooling", "reconcile_dynamic_axes", "reduce_mean", "reshape", "sequence", "sigmoid", "slice", "softplus",
    "splice", "sqrt", "tanh", "tensor", "times", "typing", "unpooling", "attention"
]
