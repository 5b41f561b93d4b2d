"""The message types of CNTK's v2 model format, described in Python and parsed by the protobuf runtime.

The schema (package CNTK.proto, proto3) is CNTK's: a model file is one ``Dictionary`` whose values are
``DictionaryValue``s (bool, int, size_t, float, double, string, NDShape, Axis, Vector, Dictionary,
NDArrayView). Field numbers and types below are the format's facts; the descriptor is built here so no
generated code or protoc run is needed.
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "CNTK.proto"


def _field(message, name, number, type_, label=_F.LABEL_OPTIONAL, type_name=None, packed=False, oneof=None):
    f = message.field.add(name=name, number=number, type=type_, label=label)
    if type_name:
        f.type_name = type_name
    if packed:
        f.options.packed = True
    if oneof is not None:
        f.oneof_index = oneof
    return f


def _enum(parent, name, values):
    e = parent.enum_type.add(name=name)
    for value_name, number in values:
        e.value.add(name=value_name, number=number)


def _file():
    fd = descriptor_pb2.FileDescriptorProto(name="cntk_compat/CNTK.proto", package=_PACKAGE, syntax="proto3")
    q = "." + _PACKAGE + "."

    shape = fd.message_type.add(name="NDShape")
    _field(shape, "shape_dim", 1, _F.TYPE_UINT64, _F.LABEL_REPEATED, packed=True)

    axis = fd.message_type.add(name="Axis")
    _field(axis, "static_axis_idx", 1, _F.TYPE_INT32)
    _field(axis, "name", 2, _F.TYPE_STRING)
    _field(axis, "is_ordered_dynamic_axis", 3, _F.TYPE_BOOL)

    view = fd.message_type.add(name="NDArrayView")
    _enum(view, "DataType", [("Unknown", 0), ("Float", 1), ("Double", 2), ("Float16", 4), ("Int8", 5),
                             ("Int16", 6)])
    _enum(view, "StorageFormat", [("Dense", 0), ("SparseCSC", 1), ("SparseBlockCol", 2)])
    for name, number, type_ in (("FloatValues", 1, _F.TYPE_FLOAT), ("DoubleValues", 1, _F.TYPE_DOUBLE),
                                ("IntValues", 1, _F.TYPE_SINT32)):
        inner = view.nested_type.add(name=name)
        _field(inner, "value", number, type_, _F.LABEL_REPEATED, packed=True)
    inner = view.nested_type.add(name="BytesValue")
    _field(inner, "value", 1, _F.TYPE_BYTES)
    view.oneof_decl.add(name="values")
    vq = q + "NDArrayView."
    _field(view, "data_type", 1, _F.TYPE_ENUM, type_name=vq + "DataType")
    _field(view, "storage_format", 2, _F.TYPE_ENUM, type_name=vq + "StorageFormat")
    _field(view, "shape", 3, _F.TYPE_MESSAGE, type_name=q + "NDShape")
    _field(view, "float_values", 4, _F.TYPE_MESSAGE, type_name=vq + "FloatValues", oneof=0)
    _field(view, "double_values", 5, _F.TYPE_MESSAGE, type_name=vq + "DoubleValues", oneof=0)
    _field(view, "bytes_value", 6, _F.TYPE_MESSAGE, type_name=vq + "BytesValue", oneof=0)
    _field(view, "sint32_values", 7, _F.TYPE_MESSAGE, type_name=vq + "IntValues", oneof=0)

    vector = fd.message_type.add(name="Vector")
    _field(vector, "value", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, type_name=q + "DictionaryValue")

    dictionary = fd.message_type.add(name="Dictionary")
    _field(dictionary, "version", 1, _F.TYPE_UINT64)
    entry = dictionary.nested_type.add(name="DataEntry")
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_STRING)
    _field(entry, "value", 2, _F.TYPE_MESSAGE, type_name=q + "DictionaryValue")
    _field(dictionary, "data", 2, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, type_name=q + "Dictionary.DataEntry")

    value = fd.message_type.add(name="DictionaryValue")
    _enum(value, "Type", [("None", 0), ("Bool", 1), ("Int", 2), ("SizeT", 3), ("Float", 4), ("Double", 5),
                          ("String", 6), ("NDShape", 7), ("Axis", 8), ("Vector", 9), ("Dictionary", 10),
                          ("NDArrayView", 11)])
    value.oneof_decl.add(name="value")
    _field(value, "version", 1, _F.TYPE_UINT64)
    _field(value, "value_type", 2, _F.TYPE_ENUM, type_name=q + "DictionaryValue.Type")
    for name, number, type_, type_name in (
            ("bool_value", 3, _F.TYPE_BOOL, None), ("int_value", 4, _F.TYPE_INT32, None),
            ("size_t_value", 5, _F.TYPE_UINT64, None), ("float_value", 6, _F.TYPE_FLOAT, None),
            ("double_value", 7, _F.TYPE_DOUBLE, None), ("string_value", 8, _F.TYPE_STRING, None),
            ("nd_shape_value", 9, _F.TYPE_MESSAGE, q + "NDShape"), ("axis_value", 10, _F.TYPE_MESSAGE, q + "Axis"),
            ("vector_value", 11, _F.TYPE_MESSAGE, q + "Vector"),
            ("dictionary_value", 12, _F.TYPE_MESSAGE, q + "Dictionary"),
            ("nd_array_view_value", 13, _F.TYPE_MESSAGE, q + "NDArrayView")):
        _field(value, name, number, type_, type_name=type_name, oneof=0)
    return fd


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())


def _message(name):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(_PACKAGE + "." + name))


Dictionary = _message("Dictionary")
DictionaryValue = _message("DictionaryValue")
NDArrayView = _message("NDArrayView")
NDShape = _message("NDShape")
Axis = _message("Axis")
Vector = _message("Vector")
