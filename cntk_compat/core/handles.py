"""What copy and pickle do with graph objects (Variables, Parameters, Constants, Functions), as in CNTK 2.7.

CNTK's Python objects are handles on native graph nodes: ``copy.copy`` gives another handle on the same node
(equal to it, sharing its value and its graph), while pickling and ``copy.deepcopy`` raise a TypeError (the
native node cannot be pickled). Here the Python object is the node itself, so a shallow copy is the object.
A graph is copied with ``Function.clone`` and stored with ``Function.save``."""


class GraphHandle(object):
    __slots__ = ()

    def _refuse_pickling(self):
        return TypeError("can't pickle %s objects ('%s'): copy a graph with Function.clone and store it with "
                         "Function.save" % (type(self).__name__, self.name or self.uid))

    def __reduce_ex__(self, protocol):
        raise self._refuse_pickling()

    def __reduce__(self):
        raise self._refuse_pickling()

    def __deepcopy__(self, memo):
        raise self._refuse_pickling()

    def __copy__(self):
        return self
