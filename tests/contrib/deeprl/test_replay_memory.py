"""Replay memory: the sum tree of a prioritized memory, overwriting the oldest transition, and the positions
sampled under random.seed(7) as CNTK 2.7 sampled them."""
import random

from cntk.contrib.deeprl.agent.shared.replay_memory import ReplayMemory, _Transition


def test_prioritized_tree_and_samples_are_cntk27s():
    random.seed(7)
    memory = ReplayMemory(4, True)
    for k, priority in enumerate([1.0, 2.0, 0.5, 4.0, 3.0, 1.5]):
        memory.store(k, 0, 0.0, None, priority)
    # leaves 3..6 hold transitions 4, 5, 2, 3 (4 and 5 replaced 0 and 1); inner nodes hold the sums below
    assert memory.size() == 4 and memory._memory[:3] == [9.0, 4.5, 4.5]
    assert [t.state for t in memory._memory[3:]] == [4, 5, 2, 3]
    assert [(i, t.state) for i, t in memory.sample_minibatch(5)] == [(3, 4), (3, 4), (5, 2), (6, 3), (6, 3)]
    memory.update_priority({3: 0.25, 6: 6.0})
    assert memory._memory[:3] == [8.25, 1.75, 6.5]
    assert [(i, t.state) for i, t in memory.sample_minibatch(3)] == [(4, 5), (6, 3), (6, 3)]


def test_uniform_memory_samples_distinct_transitions_as_cntk27():
    random.seed(7)
    memory = ReplayMemory(5)
    assert memory.sample_minibatch(3) == []
    for k in range(7):
        memory.store(k, 1, 0.0, None, None)
    assert memory.size() == 5 and [t.state for t in memory._memory] == [5, 6, 2, 3, 4]
    assert [(i, t.state) for i, t in memory.sample_minibatch(3)] == [(2, 2), (1, 6), (3, 3)]
    assert sorted(i for i, _ in memory.sample_minibatch(9)) == [0, 1, 2, 3, 4]
    memory.update_priority({0: 5.0})     # ignored without prioritization
    assert memory._memory[0].priority is None


def test_transition_fields():
    t = _Transition('s', 1, 0.5, 's2', 0.1)
    assert type(t).__name__ == 'Transition' and t._fields == ('state', 'action', 'reward', 'next_state', 'priority')
