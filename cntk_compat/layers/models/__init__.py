"""Layers for specific model types (attention)."""
from .attention import *  # noqa: F401,F403
# the names CNTK's cntk.layers.models also exposes (its attention module's imports)
from .attention import (Dense, Function, Label, PastValueWindow, Stabilizer, default_options,  # noqa: F401
                        default_override_or, get_default_override, glorot_uniform)

# the public names: CNTK 2.7's (its incidental re-exports included) and its sub-modules; the package's
# helper modules and additions stay out of `import *`
__all__ = [
    "AttentionModel", "Dense", "Function", "Label", "PastValueWindow", "Stabilizer", "attention", "default_options",
    "default_override_or", "get_default_override", "glorot_uniform"
]
