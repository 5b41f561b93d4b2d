"""Model file formats beyond this package's own archive: CNTK's v2 protobuf format (read and write)."""
from ..core import serialization as _serialization
from . import cntkv2_reader

_serialization.register_model_reader("CNTKv2", cntkv2_reader.looks_like_cntkv2, cntkv2_reader.load)
