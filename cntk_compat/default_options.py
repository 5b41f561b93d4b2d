"""default_options / default_options_for: scoped overrides of the defaults of layer constructors.

A layer declares an overridable default as ``default_override_or(value)`` and resolves it with
``get_default_override(Layer, name=value)``; the innermost ``with`` scope that sets the option (and, for
default_options_for, names the layer) wins.
"""
import inspect

__all__ = ["default_options", "default_options_for", "default_override_or", "is_default_override",
           "get_default_override", "set_global_option", "get_global_option"]

_scopes = []  # innermost last: (set of functions or None, {option: value})
_global_options = {}


class _OptionsScope(object):
    def __init__(self, functions, options):
        if "_scope" in options or "_outer" in options:
            raise ValueError("default_options: _scope and _outer are reserved names")
        self.functions = functions
        self.options = options

    def __enter__(self):
        _scopes.append((self.functions, self.options))
        return self

    def __exit__(self, *exc):
        _scopes.pop()


def default_options(**kwargs):
    return _OptionsScope(None, kwargs)


def default_options_for(functions, **kwargs):
    if not isinstance(functions, list):
        functions = [functions]
    return _OptionsScope(set(functions), kwargs)


class default_override_or(object):
    """Marks a parameter default that default_options may override."""

    def __init__(self, value):
        self.value = value


def is_default_override(value):
    return isinstance(value, default_override_or)


def get_default_override(function_or_class, **kwargs):
    """The value of the one keyword argument: as given, else the innermost override, else its default."""
    if len(kwargs) != 1:
        raise TypeError("get_default_override() takes 1 keyword argument but %d were given" % len(kwargs))
    key, value = next(iter(kwargs.items()))
    if function_or_class is not None:
        if not (inspect.isfunction(function_or_class) or inspect.isclass(function_or_class)):
            raise ValueError("get_default_override() expects the first argument to be a Python function or class")
        target = function_or_class.__init__ if inspect.isclass(function_or_class) else function_or_class
        if key not in inspect.signature(target).parameters:
            raise TypeError("%s() has no argument named '%s'" % (function_or_class.__name__, key))
    if not is_default_override(value):
        return value
    for functions, options in reversed(_scopes):
        if functions is None or function_or_class is None or function_or_class in functions:
            if key in options:
                return options[key]
    return value.value


def set_global_option(key, value):
    _global_options[key] = value


def get_global_option(key, default_value):
    return _global_options.get(key, default_value)
