"""The linear decay the agents use for their exploration and learning rates."""


def linearly_decayed(initial, minimum, decay_step_count, step_count):
    """``initial`` at step 0, falling linearly to ``minimum`` at ``decay_step_count`` steps, ``minimum`` after."""
    return minimum + max(0, (initial - minimum) * (1 - float(step_count) / decay_step_count))
