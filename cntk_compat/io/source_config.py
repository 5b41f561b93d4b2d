"""``MinibatchSourceConfig`` and its validated CNTK configuration dictionary (``cntk_py.to_dictionary``).

The dictionary has CNTK's keys, so scripts that inspect it keep working; ``MinibatchSource``
builds one of these configurations and validates it the same way.
"""
from ..core.native_errors import RuntimeValueError
from ._deserializer import Deserializer

INFINITELY_REPEAT = 2 ** 64 - 1
FULL_DATA_SWEEP = 2 ** 64 - 2  # CNTK 2.7: MinibatchSource.full_data_sweep
DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS = 128    # CNTK: 4 GB worth of 32 MB chunks
_TRACE_LEVEL_WARNING = 1
_IMAGE_TYPES = ('ImageDeserializer', 'Base64ImageDeserializer')


class OptionalBool(object):
    """A boolean that may be unset (CNTK's ``Optional<bool>``): ``set(v)``, ``get()``, ``has_value()``."""

    def __init__(self):
        self._value = None

    def set(self, value):
        self._value = bool(value)

    def get(self):
        if self._value is None:
            raise ValueError('the optional value is not set')
        return self._value

    def has_value(self):
        return self._value is not None

    def __repr__(self):
        return 'OptionalBool(%s)' % ('unset' if self._value is None else self._value)


class MinibatchSourceConfig(object):
    """What a composite minibatch source reads and how: deserializers, limits, randomization."""

    def __init__(self, deserializers=(), randomize=True):
        self.deserializers = list(deserializers)
        self.max_samples = INFINITELY_REPEAT
        self.max_sweeps = INFINITELY_REPEAT
        self.randomization_window_in_chunks = DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS if randomize else 0
        self.randomization_window_in_samples = 0
        self.randomization_seed = 0
        self.trace_level = _TRACE_LEVEL_WARNING
        self.is_multithreaded = OptionalBool()
        self.is_frame_mode_enabled = False
        self.truncation_length = 0
        self.max_errors = 0

    def add_deserializer(self, deserializer):
        """Append a deserializer; returns the configuration (calls chain)."""
        self.deserializers.append(deserializer)
        return self


def _deserializer_dict(d):
    if isinstance(d, Deserializer):
        return dict(d._config)
    if isinstance(d, dict):
        return dict(d)
    raise TypeError('MinibatchSourceConfig: expected deserializers (CTFDeserializer, ImageDeserializer, ...), '
                    'got %s' % type(d).__name__)


def is_multithreaded(config):
    """The multithreading setting, defaulting to on when any deserializer decodes images."""
    if config.is_multithreaded.has_value():
        return config.is_multithreaded.get()
    return any(_deserializer_dict(d).get('type') in _IMAGE_TYPES for d in config.deserializers)


class SourceConfigError(RuntimeValueError):
    """A MinibatchSource configuration CNTK 2.7 refuses (its RuntimeError)."""


def to_dictionary(config):
    """Validate ``config`` and return it as CNTK's configuration dictionary."""
    if not isinstance(config, MinibatchSourceConfig):
        raise TypeError('to_dictionary: expected a MinibatchSourceConfig, got %s' % type(config).__name__)
    if not config.deserializers:
        raise ValueError('cannot create a minibatch source: no deserializers specified')
    if config.max_samples != INFINITELY_REPEAT and config.max_sweeps != INFINITELY_REPEAT:
        raise SourceConfigError('MinibatchSourceConfig: max samples and max sweeps are mutually exclusive options '
                                'and cannot have non-default values at the same time.')
    chunks, samples = config.randomization_window_in_chunks, config.randomization_window_in_samples
    if chunks and samples:
        raise SourceConfigError('MinibatchSourceConfig: randomization window in chunks and randomization window '
                                'in samples are mutually exclusive options and cannot have non-zero values at the '
                                'same time.')
    if config.truncation_length and config.is_frame_mode_enabled:
        raise SourceConfigError('MinibatchSourceConfig: truncation and frame mode are mutually exclusive options.')
    trace_level = getattr(config.trace_level, 'value', config.trace_level)
    result = {'deserializers': [_deserializer_dict(d) for d in config.deserializers],
              'traceLevel': int(trace_level),
              'multiThreadedDeserialization': is_multithreaded(config),
              'frameMode': bool(config.is_frame_mode_enabled),
              'randomize': bool(chunks or samples)}
    if config.max_samples != INFINITELY_REPEAT:
        result['maxSamples'] = config.max_samples
    if config.max_sweeps != INFINITELY_REPEAT:
        result['maxSweeps'] = config.max_sweeps
    if chunks or samples:
        result['randomizationWindow'] = chunks or samples
        result['sampleBasedRandomizationWindow'] = bool(samples)
        result['randomizationSeed'] = config.randomization_seed
    if config.truncation_length:
        result['truncated'] = True
        result['truncationLength'] = config.truncation_length
    if config.max_errors:
        result['maxErrors'] = config.max_errors
    return result
