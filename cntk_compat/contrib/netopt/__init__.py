"""cntk.contrib.netopt: network optimizations (CNTK 2.7's API).

``factorization.factor_dense`` replaces Dense layers by two thinner products (a rank-k SVD by default);
``quantization.convert_to_binary_convolution`` replaces the convolutions of Convolution layers by 1-bit
(binarized, straight-through-estimator) ones, which train as ordinary Python user functions. CNTK lowers a
trained binarized network to its native Halide plugin (``Cntk.BinaryConvolution-2.7``) through
``register_native_user_function``; native plugins cannot be loaded here, so, as in a CNTK installation whose
plugin does not load, ``native_convolve_function_registered`` is False and
``quantization.convert_to_native_binary_convolution`` raises CNTK's "Could not find ... library" exception.
"""
import sys

import cntk_compat as _C

native_convolve_function_registered = False


def try_register_native_convolve_function():
    """Tries to register CNTK's native binary convolution plugin; records the outcome in
    ``native_convolve_function_registered``."""
    try:
        _C.ops.register_native_user_function('NativeBinaryConvolveFunction',
                                             'Cntk.BinaryConvolution-' + _C.__version__.rstrip('+'),
                                             'CreateBinaryConvolveFunction')
        registered = True
    except Exception:
        registered = False
    setattr(sys.modules[__name__], 'native_convolve_function_registered', registered)


try_register_native_convolve_function()
