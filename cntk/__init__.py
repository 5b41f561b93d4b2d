"""`import cntk` resolves to `cntk_compat`: the same module objects, one copy of all state.

`sys.modules['cntk']` becomes the `cntk_compat` package itself and a meta-path finder maps every
`cntk.x.y` import onto `cntk_compat.x.y`, so `cntk.layers is cntk_compat.layers`.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

_REAL = "cntk_compat"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self._target = target

    def create_module(self, spec):
        module = importlib.import_module(self._target)
        _name_cntk_in_attribute_errors(module)
        return module

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    """cntk.<x> -> cntk_compat.<x>, for modules that cntk_compat has."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("cntk."):
            return None
        real = _REAL + fullname[len("cntk"):]
        if real not in sys.modules and importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


def _install_finder():
    if any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        return
    # Finders installed before us (test harnesses) keep precedence; the file system does not, and neither does
    # pytest's assertion rewriter, which would otherwise load cntk_compat's own test_*.py helpers a second time.
    at = next((i for i, f in enumerate(sys.meta_path)
               if f is importlib.machinery.PathFinder or type(f).__name__ == "AssertionRewritingHook"),
              len(sys.meta_path))
    sys.meta_path.insert(at, _AliasFinder())


def _name_cntk_in_attribute_errors(module):
    """A missing attribute of a cntk module is reported under the module's cntk name, as CNTK 2.7 reports it
    ("module 'cntk' has no attribute 'init_bias_default_or_0'", not 'cntk_compat'); modules with their own
    __getattr__ keep it."""
    name = getattr(module, "__name__", "")
    if not (name == _REAL or name.startswith(_REAL + ".")) or "__getattr__" in vars(module):
        return
    public = "cntk" + name[len(_REAL):]

    def __getattr__(attribute):
        raise AttributeError("module %r has no attribute %r" % (public, attribute))
    module.__getattr__ = __getattr__


_install_finder()
_module = importlib.import_module(_REAL)
_name_cntk_in_attribute_errors(_module)
for _name, _mod in list(sys.modules.items()):
    if _name.startswith(_REAL + "."):
        sys.modules.setdefault("cntk" + _name[len(_REAL):], _mod)
        if not any(part.startswith("_") for part in _name.split(".")[1:]):
            _name_cntk_in_attribute_errors(_mod)
sys.modules[__name__] = _module
