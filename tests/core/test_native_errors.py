"""Errors of the entry points standing where CNTK's native library works end with a call stack section, as
CNTK 2.7's native errors do (its message, a blank line, "[CALL STACK]", then one frame a line)."""
import pytest

import cntk as C
from cntk_compat.core import native_errors
from cntk_compat.core.native_errors import native_entry_point
from cntk_compat.learners.schedules import EmptyScheduleError
from cntk_compat.train.checkpoint import CheckpointError


def test_device_and_reader_errors_carry_the_call_stack():
    with pytest.raises(ValueError) as e:
        C.device.gpu(99999)
    assert str(e.value).startswith("Specified GPU device id (99999) is invalid.")
    assert "\n\n[CALL STACK]\n[device.py:" in str(e.value)
    with pytest.raises(ValueError) as e:
        C.io.MinibatchSource(C.io.CTFDeserializer("", streams={}))
    message = str(e.value)
    assert message.startswith("CTFDeserializer: ParseValue: No value given for 'file'.\n\n[CALL STACK]\n")
    frames = message.split("[CALL STACK]\n")[1].splitlines()
    assert frames[0].startswith("[_deserializer.py:") and frames[-1].endswith("CTFDeserializer")


@native_entry_point
def _failing_entry_point():
    raise RuntimeError("inner failed")


@native_entry_point
def _nested_entry_points():
    _failing_entry_point()


def test_the_section_is_added_once_and_only_to_plain_messages():
    with pytest.raises(RuntimeError) as e:
        _nested_entry_points()
    assert str(e.value).count("[CALL STACK]") == 1

    @native_entry_point
    def with_errno():
        raise FileNotFoundError(2, "No such file")

    with pytest.raises(FileNotFoundError) as e:
        with_errno()
    assert "[CALL STACK]" not in str(e.value)


def test_native_errors_are_announced_on_stderr_even_when_caught(capsys):
    # CNTK 2.7 prints "About to throw exception '<message>'" (after an empty line) for each exception its native
    # library throws, before the caller sees it: a script that catches gpu(0) still shows the line
    try:
        C.device.gpu(99999)
    except ValueError:
        pass
    assert capsys.readouterr().err == "\nAbout to throw exception 'Specified GPU device id (99999) is invalid.'\n"

    with pytest.raises(RuntimeError):
        _nested_entry_points()
    assert capsys.readouterr().err == "\nAbout to throw exception 'inner failed'\n"   # once, not per entry point


def test_a_value_of_sequences_for_a_non_sequence_input_is_announced(capsys):
    import numpy as np
    x = C.input_variable(5)
    with pytest.raises(ValueError) as e:
        (x * 1).eval({x: C.Value.one_hot([[1, 2, 3]], 5)})
    err = capsys.readouterr().err
    assert err.startswith("\nAbout to throw exception 'The dimension size (3) of the axis (1) of the Value "
                          "('[1 x 3 x 5]') must be 1")
    assert str(e.value) in err


def test_errors_cntk_raises_as_runtime_errors_are_value_errors_too():
    # scripts written against CNTK 2.7 catch RuntimeError; code written against earlier releases of this package
    # caught ValueError: both keep catching
    with pytest.raises(RuntimeError) as info:
        C.learning_parameter_schedule([])
    assert isinstance(info.value, ValueError) and isinstance(info.value, EmptyScheduleError)
    for cls in (EmptyScheduleError, CheckpointError):
        assert issubclass(cls, native_errors.RuntimeValueError)
