"""CNTK entry points whose native parts have no counterpart here: they raise a NotImplementedError naming
themselves (the migration report lists the functions of this module as unsupported)."""


def register_native_user_function(op_id, module_name, factory_method_name):
    raise NotImplementedError("register_native_user_function: native (C++) user functions are not supported; "
                              "write the op as a Python UserFunction")


def native_user_function(op_id, operands, attributes=None, user_function_instance_name=''):
    raise NotImplementedError("native_user_function: native (C++) user functions are not supported; "
                              "write the op as a Python UserFunction")
