"""The initial state of a delay in a recurrent loop, laid out as time steps."""


def initial_state_steps(init, init_dynamic, batch, steps, shape, dtype):
    """A delay's initial state laid out as ``steps`` steps (B, steps, *shape): a constant broadcast, or one
    value per sequence (init_dynamic). Leading 1s of its shape that ``shape`` has no axes for are dropped (a
    scalar initial_state is often given as shape (1,))."""
    lead = init.shape[0] if init_dynamic else 1
    static = tuple(init.shape[1:] if init_dynamic else init.shape)
    extra = len(static) - len(shape)
    if extra > 0 and all(d == 1 for d in static[:extra]):
        static = static[extra:]
    full = init.reshape((lead, 1) + (1,) * (len(shape) - len(static)) + static)
    # a free dimension (known only from the data) stays as the initial state has it (1 for a broadcast
    # constant): the step's ops broadcast it against the inputs' actual size
    return full.expand((batch, steps) + tuple(d if d >= 0 else -1 for d in shape)).to(dtype)
