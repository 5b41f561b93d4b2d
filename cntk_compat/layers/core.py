"""Dropout, Activation, Label."""
from ..core.function import Function
from ..default_options import default_override_or, get_default_override
from ..ops import alias, dropout
from .building import block, identity

__all__ = ["Dropout", "Activation", "Label"]


def Dropout(dropout_rate=None, keep_prob=None, seed=None, name=""):
    """Dropout while training; give exactly one of dropout_rate and keep_prob (= 1 - dropout_rate)."""
    if dropout_rate is None and keep_prob is None:
        raise ValueError("Dropout: either dropout_rate or keep_prob must be specified.")
    if dropout_rate is not None and keep_prob is not None:
        raise ValueError("Dropout: dropout_rate and keep_prob cannot be specified at the same time.")
    if keep_prob is not None:
        if not 0.0 <= keep_prob < 1.0:  # CNTK 2.7's interval (keep_prob=0 then fails as dropout_rate=1 does)
            raise ValueError("Dropout: keep_prob must be in the interval [0,1)\n\n(cntk-compat: got keep_prob=%r)"
                             % (keep_prob,))
        dropout_rate = 1.0 - keep_prob
    kwargs = {} if seed is None else {"seed": seed}

    def dropout_f(x):
        return dropout(x, dropout_rate=dropout_rate, **kwargs)
    return block(dropout_f, "Dropout", name)


def Activation(activation=default_override_or(identity), name=""):
    """A layer that applies the activation function only."""
    activation = get_default_override(Activation, activation=activation)
    if not callable(activation):
        raise TypeError("Activation: activation must be a function, got %r" % (activation,))

    def activation_f(x):
        return activation(x)
    return block(activation_f, "Activation", name)


def Label(name):
    """Names its input (an alias), so that model.name finds this point of a Sequential. A Function (not a
    block, which would hide the name), as in CNTK 2.7."""
    @Function
    def label(x):
        return alias(x, name=name)
    return label
