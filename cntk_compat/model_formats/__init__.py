"""Model file formats beyond this package's own archive: CNTK's v2 protobuf format, read and written (the
default format of Function.save), and CNTK's legacy v1 (CNTK 1.x / BrainScript) format, read."""
from ..core import atomic_file as _atomic_file, serialization as _serialization
from ..core.hooks import provide as _provide
from . import cntkv1_reader, cntkv1_writer, cntkv2_reader, cntkv2_writer, dictionary_value  # noqa: F401

_serialization.register_model_reader("CNTKv2", cntkv2_reader.looks_like_cntkv2, cntkv2_reader.load)
_serialization.register_model_reader("CNTKv1", cntkv1_reader.looks_like_cntkv1, cntkv1_reader.load)
_serialization.register_file_reader("CNTKv2", cntkv2_reader.looks_like_cntkv2, cntkv2_reader.load_file)
_serialization.register_default_writer(cntkv2_writer.model_parts, cntkv2_writer.NotExpressible)


def _save_as_legacy_model(root_op, filename):
    _atomic_file.write_atomically(filename, cntkv1_writer.model_bytes(root_op), "legacy model file")


_provide(save_as_legacy_model=_save_as_legacy_model)  # cntk_py.save_as_legacy_model (a lower floor) calls it


def _read_cntk_dictionary_file(path, what):
    """A file holding one CNTK v2 Dictionary (a checkpoint's training state) as plain Python values."""
    from .cntkv2_values import plain_values
    from .cntkv2_wire import read_file
    return plain_values(read_file(path, what))


# Trainer.restore_from_checkpoint (a lower floor) reads CNTK's checkpoints through these
_provide(looks_like_cntk_dictionary=cntkv2_reader.looks_like_cntkv2, read_cntk_dictionary_file=_read_cntk_dictionary_file)

try:
    import onnx  # noqa: F401  (the [onnx] extra)
except ImportError:
    pass
else:
    from . import onnx_export, onnx_import
    _serialization.register_onnx(onnx_export.export, onnx_import.load)
