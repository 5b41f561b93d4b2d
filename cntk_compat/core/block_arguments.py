"""What each inner placeholder of an applied block stands for: the variable the block binds to it. str() of a
block's inner Functions shows that variable as its operand, as CNTK prints them."""
import weakref

_BOUND = weakref.WeakValueDictionary()  # uid of an inner placeholder -> the variable bound to it (while it lives)


def note_block_arguments(mapping):
    """Remembers the (inner placeholder, bound variable) pairs of an applied block."""
    for inner, outer in mapping:
        try:
            _BOUND[inner.uid] = outer
        except TypeError:   # a value that takes no weak reference is not remembered
            pass


def block_argument_of(v):
    """The variable a block binds to placeholder ``v``, through nested blocks; ``v`` itself where none is."""
    seen = set()
    while v.is_placeholder and v.uid not in seen:
        seen.add(v.uid)
        outer = _BOUND.get(v.uid)
        if outer is None:
            break
        v = outer
    return v
