"""Recognizing gym spaces without importing gym: a space is known by the module path of its class."""

_KINDS = {
    'gym.spaces.discrete.Discrete': 'discrete',
    'gym.spaces.box.Box': 'box',
    'gym.spaces.multi_binary.MultiBinary': 'multi_binary',
    'gym.spaces.multi_discrete.MultiDiscrete': 'multi_discrete',
    'gym.spaces.tuple_space.Tuple': 'tuple',
}


def class_path(obj):
    """'module.ClassName' of obj's class."""
    cls = type(obj)
    return cls.__module__ + '.' + cls.__name__


def space_kind(space):
    """'discrete', 'box', 'multi_binary', 'multi_discrete', 'tuple', or None for anything else."""
    return _KINDS.get(class_path(space))
