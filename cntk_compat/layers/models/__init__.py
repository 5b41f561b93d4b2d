"""Layers for specific model types (attention)."""
from .attention import *  # noqa: F401,F403
# the names CNTK's cntk.layers.models also exposes (its attention module's imports)
from .attention import (Dense, Function, Label, PastValueWindow, Stabilizer, default_options,  # noqa: F401
                        default_override_or, get_default_override, glorot_uniform)
