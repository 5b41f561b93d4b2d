"""cntk.io: readers (minibatch sources and deserializers) and data transforms."""
from . import transforms
from .cbf import CBFDeserializer
from .ctf import CTFDeserializer
from .ctf_format import _is_tensor, sequence_to_cntk_text_format
from .htk import HTKFeatureDeserializer, HTKMLFDeserializer
from .image import Base64ImageDeserializer, ImageDeserializer
from .minibatch_data import MinibatchData
from .minibatch_source import (DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS, FULL_DATA_SWEEP, INFINITELY_REPEAT,
                               MinibatchSource)
from .streams import StreamConfiguration, StreamDef, StreamDefs, StreamInformation
from .user_source import MinibatchSourceFromData, UserDeserializer, UserMinibatchSource

__all__ = ['MinibatchSource', 'MinibatchData', 'MinibatchSourceFromData', 'UserMinibatchSource',
           'UserDeserializer', 'StreamInformation', 'StreamDef', 'StreamDefs', 'StreamConfiguration',
           'CTFDeserializer', 'CBFDeserializer', 'ImageDeserializer', 'Base64ImageDeserializer',
           'HTKFeatureDeserializer', 'HTKMLFDeserializer', 'INFINITELY_REPEAT', 'FULL_DATA_SWEEP',
           'DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS', 'sequence_to_cntk_text_format', 'transforms']
