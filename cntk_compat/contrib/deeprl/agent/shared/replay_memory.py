"""Experience replay: a bounded store of transitions, sampled uniformly or in proportion to their priorities."""
import random
from collections import namedtuple

_Transition = namedtuple('Transition', ['state', 'action', 'reward', 'next_state', 'priority'])


class ReplayMemory:
    """Holds the latest ``capacity`` transitions (state, action, reward, next_state, priority); once full, each new
    transition replaces the oldest one.

    Uniform memory: ``_memory`` is the plain list of transitions and a transition's position is its list index.
    Prioritized memory: ``_memory`` is a sum tree stored as an array, node k having children 2k+1 and 2k+2; the
    first ``capacity - 1`` entries are inner nodes holding the priority sum below them (``_memory[0]`` is the
    total), the transitions are the leaves from index ``capacity - 1`` on, and a transition's position is its
    leaf index. Positions are what ``sample_minibatch`` returns and ``update_priority`` takes.
    """

    def __init__(self, capacity, prioritized=False):
        self._capacity = capacity
        self._use_prioritized_replay = prioritized
        self._first_leaf = capacity - 1 if prioritized else 0
        self._memory = [0] * self._first_leaf
        self._position = 0          # slot (0 .. capacity - 1) that the next transition goes to

    def size(self):
        """Number of transitions held."""
        return len(self._memory) - self._first_leaf

    def store(self, *transition):
        """Adds a transition given as (state, action, reward, next_state, priority)."""
        new = _Transition(*transition)
        index = self._first_leaf + self._position
        self._position = (self._position + 1) % self._capacity
        if index == len(self._memory):
            self._memory.append(new)
            replaced_priority = 0
        else:
            replaced_priority = self._memory[index].priority
            self._memory[index] = new
        if self._use_prioritized_replay:
            self._add_to_ancestors(index, new.priority - replaced_priority)

    def update_priority(self, map_from_position_to_priority):
        """Sets new priorities, given as {position: priority} with positions from ``sample_minibatch``; a uniform
        memory ignores them."""
        if not self._use_prioritized_replay:
            return
        for index, priority in map_from_position_to_priority.items():
            old = self._memory[index]
            self._memory[index] = old._replace(priority=priority)
            self._add_to_ancestors(index, priority - old.priority)

    def sample_minibatch(self, batch_size):
        """A list of (position, transition) pairs. Uniform memory: ``batch_size`` distinct transitions (all of
        them when no more are held). Prioritized memory: ``batch_size`` draws, one from each of ``batch_size``
        equal slices of the total priority, so a transition can come more than once."""
        held = self.size()
        if held == 0:
            return []
        if self._use_prioritized_replay:
            positions = self._stratified_positions(batch_size)
        elif held <= batch_size:
            positions = range(held)
        else:
            positions = random.sample(range(held), batch_size)
        return [(k, self._memory[k]) for k in positions]

    def _stratified_positions(self, batch_size):
        total = self._memory[0]
        width = total / batch_size
        return [self._leaf_at(random.uniform(max(0, k * width), min((k + 1) * width, total)))
                for k in range(batch_size)]

    def _leaf_at(self, mass):
        """Walks down from the root to the node where the running priority sum reaches ``mass``."""
        node = 0
        while 2 * node + 1 < len(self._memory):
            left = 2 * node + 1
            left_mass = self._priority_below(left)
            if mass <= left_mass:
                node = left
                continue
            if left + 1 >= len(self._memory):
                raise RuntimeError('sum tree of the replay memory has a node without its right child')
            mass -= left_mass
            node = left + 1
        return node

    def _priority_below(self, node):
        return self._memory[node] if node < self._first_leaf else self._memory[node].priority

    def _add_to_ancestors(self, node, delta):
        while node > 0:
            node = (node - 1) // 2
            self._memory[node] += delta
