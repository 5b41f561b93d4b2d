"""A dict whose entries are also attributes (CNTK's ``Record``), used for stream definitions."""


class Record(dict):
    """``Record(a=1).a == Record(a=1)['a']``."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("record has no entry '%s' (entries: %s)" % (name, ", ".join(sorted(self))))

    def __setattr__(self, name, value):
        self[name] = value
