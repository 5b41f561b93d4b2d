"""Printing the number of parameters of a model."""
from functools import reduce
from operator import mul

__all__ = ["log_number_of_parameters"]


def log_number_of_parameters(model, trace_level=0):
    """Prints how many parameter values ``model`` has (and each parameter's shape when ``trace_level > 0``)."""
    parameters = model.parameters
    if any(dim < 0 for p in parameters for dim in p.shape):
        total = "so far unspecified number of"
    else:
        total = sum(reduce(mul, p.shape, 1) for p in parameters)
    print("Training {} parameters in {} parameter tensors.".format(total, len(parameters)))
    if trace_level > 0:
        print()
        for p in parameters:
            print("\t{}".format(p.shape))
