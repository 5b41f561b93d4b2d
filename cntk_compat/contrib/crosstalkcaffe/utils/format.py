"""String and file-format helpers of the converter."""
import json
import re

_WORD_START = re.compile(r'(.)([A-Z][a-z]+)')
_DIGITS = re.compile(r'(.)([0-9]+)')
_LOWER_UPPER = re.compile(r'([a-z0-9])([A-Z])')


def camel_to_snake(camel_string):
    """``'BatchNorm'`` -> ``'batch_norm'``, ``'LRN'`` -> ``'lrn'``, ``'Conv2D'`` -> ``'conv_2_d'``: an underscore
    before each capitalized word and before each run of digits, then lower case."""
    text = _WORD_START.sub(r'\1_\2', camel_string)
    text = _DIGITS.sub(r'\1_\2', text)
    return _LOWER_UPPER.sub(r'\1_\2', text).lower()


def json_parser(path):
    """The first JSON value in the file at ``path`` (text after it is ignored), as Python objects."""
    with open(path, 'r') as handle:
        value, _ = json.JSONDecoder().raw_decode(handle.read())
    return value
