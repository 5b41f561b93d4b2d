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

    def updated_with(self, **kwargs):
        """A new Record with the entries of this one, updated by ``kwargs``."""
        updated = Record(**self)
        updated.update(kwargs)
        return updated
