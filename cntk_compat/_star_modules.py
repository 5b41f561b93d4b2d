"""The third-party and standard modules that CNTK 2.7's ``from cntk.X import *`` hands over with its names.

CNTK 2.7's modules define no ``__all__``, so a star import also binds the modules they import, and scripts
use them without importing them: Examples/LanguageUnderstanding/ATIS calls ``np.argmax`` after only
``from cntk.layers import *``. Read from the CNTK 2.7 wheel (the module-valued names each star import binds);
a public module calls :func:`export` at its end to bind them and name them in its ``__all__``.
"""
import importlib

CNTK27_STAR_MODULES = {
    "cntk": {"ctypes": "ctypes", "enum": "enum", "np": "numpy", "numbers": "numbers", "os": "os",
             "platform": "platform", "sparse": "scipy.sparse", "sys": "sys", "warnings": "warnings"},
    "cntk.io": {"np": "numpy", "uuid": "uuid", "warnings": "warnings"},
    "cntk.layers": {"np": "numpy"},
    "cntk.layers.typing": {"np": "numpy"},
    "cntk.learners": {"np": "numpy", "warnings": "warnings"},
    "cntk.logging": {"os": "os", "sys": "sys", "time": "time"},
    "cntk.losses": {"np": "numpy"},
    "cntk.ops": {"np": "numpy", "numbers": "numbers"},
    "cntk.random": {"np": "numpy"},
    "cntk.variables": {"np": "numpy"},
}


def export(module_globals):
    """Binds the modules CNTK 2.7's star import of this module gives and adds them to its ``__all__``."""
    name = "cntk" + module_globals["__name__"][len("cntk_compat"):]
    exported = module_globals["__all__"]
    for alias, target in CNTK27_STAR_MODULES.get(name, {}).items():
        module_globals.setdefault(alias, importlib.import_module(target))
        if alias not in exported:
            exported.append(alias)
