"""The order in which CNTK 2.7's CPU top_k returns equal values.

CNTK selects the k largest entries of a row with C++'s ``std::partial_sort`` over the indices 0..n-1, compared
by value (``v[a] > v[b]``). libstdc++ implements it as a heap selection (a binary heap of the first k indices,
each later index that beats the heap's top replacing it) followed by a heap sort of the k winners. Neither step
is stable, so among equal values the indices come out in an order of their own (for [1, 3, 3, 2, 3] and k=3:
4, 1, 2), which is what this module reproduces. Rows without ties come out as ``torch.topk`` returns them.
"""


def _sift(heap, hole, size, value, before):
    """Moves the hole at ``hole`` down to a leaf along the children that come first, then ``value`` up from
    there to its place (libstdc++'s __adjust_heap)."""
    top = hole
    child = hole
    while child < (size - 1) // 2:
        child = 2 * (child + 1)
        if before(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if size % 2 == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and before(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def top_k_indices(row, k):
    """The indices of the k largest values of ``row`` (a sequence of numbers), largest first, ties in the order
    of libstdc++'s ``std::partial_sort``."""
    def before(a, b):
        return row[a] > row[b]

    order = list(range(len(row)))
    for parent in range((k - 2) // 2, -1, -1):        # make the first k a heap
        _sift(order, parent, k, order[parent], before)
    for i in range(k, len(order)):                  # each later index that beats the top replaces it
        if before(order[i], order[0]):
            value = order[i]
            order[i] = order[0]
            _sift(order, 0, k, value, before)
    for last in range(k - 1, 0, -1):                # heap sort of the winners
        value = order[last]
        order[last] = order[0]
        _sift(order, 0, last, value, before)
    return order[:k]
