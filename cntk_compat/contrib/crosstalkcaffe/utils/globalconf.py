"""The converter's global configuration, read from a JSON file.

The file is an object with up to four sections, ``SourceSolver`` (``Source``: the adapter, ``"Caffe"``;
``ModelPath``: the network definition; ``WeightsPath``: the trained weights; ``PHASE``: 0 train / 1 test, which
layers' include/exclude rules keep), ``ModelSolver`` (``CNTKModelPath``: where the CNTK model is saved;
``CNTKTensor``: optional {input name: shape} overriding the inputs' shapes), ``ScriptSolver`` (unused) and
``ValidSolver`` (``SavePath``: a folder for validation arrays, none to skip validation; ``ValInputs``: {input name:
[[low, high]] or [values]}; ``ValNodes``: {CNTK node name: Caffe blob name}). Keys are matched after conversion to
snake case (``ModelPath`` -> ``model_path``, ``PHASE`` -> ``phase``); unknown keys are ignored.
"""
from . import format as _format


class GlobalConf(object):
    """All sections."""

    def __init__(self):
        self.source_solver = SourceSolverConf()
        self.script_solver = ScriptSolverConf()
        self.model_solver = ModelSolverConf()
        self.valid_solver = ValidConf()


class SourceSolverConf(object):
    """Where the foreign model comes from."""

    def __init__(self):
        self.source = None
        self.model_path = None
        self.weights_path = None
        self.tensor = None
        self.phase = None


class ScriptSolverConf(object):
    """Settings of a script converter (none are used)."""

    def __init__(self):
        pass


class ModelSolverConf(object):
    """Where the CNTK model goes, and optional input shapes."""

    def __init__(self):
        self.cntk_model_path = None
        self.cntk_tensor = None


class ValidConf(object):
    """What to compare between the converted and the original network."""

    def __init__(self):
        self.save_path = None
        self.val_inputs = []
        self.val_nodes = []


DICT_CONFIG_CLASSES = (GlobalConf, SourceSolverConf, ScriptSolverConf, ModelSolverConf, ValidConf)


def _load_sub_conf(meta_dict, target_type):
    conf = target_type()
    known = dir(conf)
    for key, value in meta_dict.items():
        attribute = _format.camel_to_snake(key)
        if attribute not in known:
            continue
        current = getattr(conf, attribute)
        if isinstance(current, DICT_CONFIG_CLASSES):
            value = _load_sub_conf(value, type(current))
        setattr(conf, attribute, value)
    return conf


def load_conf(conf_path):
    """Read the JSON configuration at ``conf_path`` into a :class:`GlobalConf`."""
    return _load_sub_conf(_format.json_parser(conf_path), GlobalConf)
