"""CNTK entry points whose native parts have no counterpart here: they raise a NotImplementedError naming
themselves (the migration report lists the functions of this module as unsupported)."""


def register_native_user_function(op_id, module_name, factory_method_name):
    """CNTK loads the shared library ``module_name`` (a plugin built against its C++ API); cntk-compat cannot load
    CNTK's native plugins, so it fails as CNTK fails for a plugin it cannot load: "Plugin not found: '<module>.so'
    (error: ...)", announced on stderr (a NotImplementedError, which is a RuntimeError as CNTK's is)."""
    from ..core.native_errors import announce
    message = ("Plugin not found: '%s.so' (error: cntk-compat cannot load CNTK's native (C++) plugins)"
               % module_name)
    announce(message)
    raise NotImplementedError(message + "\n\n(cntk-compat) register_native_user_function: native (C++) user "
                              "functions are not supported; write the op as a Python UserFunction")


def native_user_function(op_id, operands, attributes=None, user_function_instance_name=''):
    raise NotImplementedError("native_user_function: native (C++) user functions are not supported; "
                              "write the op as a Python UserFunction")
