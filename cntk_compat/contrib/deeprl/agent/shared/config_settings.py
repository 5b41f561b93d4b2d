"""Reading an agent's settings from an INI-style config file.

A settings table lists (attribute, section, key, kind, default) rows; kind picks the ConfigParser reader
('text', 'int', 'float' or 'bool'). Keys are case-sensitive and a missing section or key gives the default.
"""
import configparser

_READERS = {
    'text': configparser.ConfigParser.get,
    'int': configparser.ConfigParser.getint,
    'float': configparser.ConfigParser.getfloat,
    'bool': configparser.ConfigParser.getboolean,
}

# the rows both agents' settings share: the discount and preprocessing, and the learning-rate schedule
GENERAL_SETTINGS = (
    ('gamma', 'General', 'Gamma', 'float', 0.95),
    ('preprocessing', 'General', 'PreProcessing', 'text', ''),
    ('preprocessing_args', 'General', 'PreProcessingArgs', 'text', '()'),
)
OPTIMIZATION_SETTINGS = (
    ('initial_eta', 'Optimization', 'InitialEta', 'float', 0.001),
    ('eta_decay_step_count', 'Optimization', 'EtaDecayStepCount', 'int', 100000),
    ('eta_minimum', 'Optimization', 'EtaMinimum', 'float', 0.001),
    ('momentum', 'Optimization', 'Momentum', 'float', 0.95),
)


class ConfigSettings:
    """Base of the parameter classes: reads the rows of ``_SETTINGS`` into attributes and keeps the parsed file
    in ``config`` (what ``save`` writes back)."""

    _SETTINGS = ()

    def __init__(self, config_file):
        self.config = configparser.ConfigParser()
        self.config.optionxform = str
        self.config.read(config_file)
        for attribute, section, key, kind, default in self._SETTINGS:
            setattr(self, attribute, _READERS[kind](self.config, section, key, fallback=default))

    def save(self, config_file):
        """Writes the settings read from the config file (not the defaults filled in) to ``config_file``."""
        with open(config_file, 'w') as out:
            self.config.write(out)
