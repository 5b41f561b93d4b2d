"""Implementations the core calls but does not import: CNTK methods whose work lives elsewhere.

CNTK puts on Function and Variable some methods whose work lives above the core (``a + b`` is
``cntk.ops.plus``, ``f.train`` is in ``cntk.train``) or in a core
module built on Function itself (``f.eval`` runs the engine, ``f.save`` the serializer). The method stays
declared where CNTK has it; its body calls ``hook(name)``, and the module that does the work registers the
implementation with ``provide`` when it is imported. So no module imports one on a floor above it (see
docs/ARCHITECTURE.md), and ``import cntk`` wires everything.
"""

# hook name -> the module that provides it
PROVIDERS = {
    "plus": "cntk_compat.ops", "minus": "cntk_compat.ops", "element_times": "cntk_compat.ops",
    "element_divide": "cntk_compat.ops", "times": "cntk_compat.ops", "abs": "cntk_compat.ops",
    "negate": "cntk_compat.ops", "pow": "cntk_compat.ops", "getitem": "cntk_compat.ops",
    "alias": "cntk_compat.ops", "user_function": "cntk_compat.ops",
    "signature": "cntk_compat.layers",
    "train": "cntk_compat.train", "test": "cntk_compat.train",
    "evaluate": "cntk_compat.core.engine", "forward": "cntk_compat.core.engine",
    "backward": "cntk_compat.core.engine", "grad": "cntk_compat.core.engine", "has_run": "cntk_compat.core.engine",
    "to_value": "cntk_compat.core.feeding", "create_value": "cntk_compat.core.feeding",
    "save": "cntk_compat.core.serialization", "load": "cntk_compat.core.serialization",
    "restore": "cntk_compat.core.serialization",
    "save_as_legacy_model": "cntk_compat.model_formats",
    "dictionary_value": "cntk_compat.model_formats.dictionary_value",
    # reading checkpoints CNTK wrote (Trainer.restore_from_checkpoint)
    "looks_like_cntk_dictionary": "cntk_compat.model_formats",
    "read_cntk_dictionary_file": "cntk_compat.model_formats",
}

_IMPLEMENTATIONS = {}


def provide(**implementations):
    """Register implementations by hook name (each name once)."""
    for name, implementation in implementations.items():
        if name not in PROVIDERS:
            raise ValueError("provide: %r is not a core hook (known: %s)" % (name, ", ".join(sorted(PROVIDERS))))
        if name in _IMPLEMENTATIONS and _IMPLEMENTATIONS[name] is not implementation:
            raise ValueError("provide: the hook %r is already provided" % name)
        _IMPLEMENTATIONS[name] = implementation


def hook(name):
    """The implementation registered for ``name``."""
    try:
        return _IMPLEMENTATIONS[name]
    except KeyError:
        raise RuntimeError("%s is implemented in %s, which has not been imported; import cntk (or cntk_compat) "
                           "first" % (name, PROVIDERS.get(name, "no module"))) from None
