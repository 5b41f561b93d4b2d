"""cntk.io: readers (minibatch sources and deserializers) and data transforms."""
from ..core.value import Value
from ..device import use_default_device
from ..logging.trace import TraceLevel, get_trace_level
from ..tensor import ArrayMixin
from . import transforms
from ._record import Record
from .cbf import CBFDeserializer
from .ctf import CTFDeserializer
from .ctf_format import _is_tensor, sequence_to_cntk_text_format
from .htk import HTKFeatureDeserializer, HTKMLFBinaryDeserializer, HTKMLFDeserializer, LatticeDeserializer
from .image import Base64ImageDeserializer, ImageDeserializer
from .minibatch_data import MinibatchData
from .minibatch_source import MinibatchSource
from .source_config import DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS, FULL_DATA_SWEEP, INFINITELY_REPEAT
from .streams import StreamConfiguration, StreamDef, StreamDefs, StreamInformation
from .user_source import MinibatchSourceFromData, UserDeserializer, UserMinibatchSource

__all__ = [
    "MinibatchSource", "MinibatchData", "MinibatchSourceFromData", "UserMinibatchSource", "UserDeserializer",
    "StreamInformation", "StreamDef", "StreamDefs", "StreamConfiguration", "CTFDeserializer", "CBFDeserializer",
    "ImageDeserializer", "Base64ImageDeserializer", "HTKFeatureDeserializer", "HTKMLFDeserializer",
    "HTKMLFBinaryDeserializer", "LatticeDeserializer", "INFINITELY_REPEAT", "FULL_DATA_SWEEP",
    "DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS", "sequence_to_cntk_text_format", "transforms", "ArrayMixin", "Record",
    "TraceLevel", "Value", "get_trace_level", "use_default_device"
]
