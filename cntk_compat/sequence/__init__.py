"""cntk.sequence: sequence inputs (the data model; sequence ops come with the recurrence work)."""
from ..core.variables import sequence_input_variable as input_variable

input = input_variable

__all__ = ["input_variable", "input"]
