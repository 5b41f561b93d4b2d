"""CNTK's native library ends the message of each error it raises with the call stack where the error arose
(a "[CALL STACK]" section, one frame a line), and scripts and tests look for it. The entry points standing where
CNTK's native library works (device selection, reader construction) raise their errors the same way, with the
Python frames from the entry point down to the raise."""
import functools
import os
import sys
import traceback

CALL_STACK = "[CALL STACK]"


def _frames(tb):
    return "".join("[%s:%d]    %s\n" % (os.path.basename(f.filename), f.lineno, f.name)
                   for f in reversed(traceback.extract_tb(tb.tb_next or tb)))


class RuntimeValueError(RuntimeError, ValueError):
    """Input CNTK 2.7 refuses with a RuntimeError where this package raised a ValueError before: the base of the
    package's specific errors of that kind, so code catching either type keeps working."""


class MissingFileError(FileNotFoundError, RuntimeError):
    """A file to read that does not exist (a reader's input, a checkpoint): an IOError, and the RuntimeError
    CNTK 2.7 raises for it."""


_held = []   # the lists of announcements held by the HeldAnnouncements in force, innermost last


def announce(message):
    """CNTK's native library says on stderr what it is about to throw, whether or not the caller then catches
    it: "About to throw exception '<message>'" after an empty line. cntk-compat's own notes after a message
    (a paragraph starting "(cntk-compat") are not part of what CNTK says."""
    if _held:
        _held[-1].append(message)
        return
    sys.stderr.write("\nAbout to throw exception '%s'\n" % message.split("\n\n(cntk-compat")[0])
    sys.stderr.flush()


def announced(error_class, message):
    """error_class(message), announced first as CNTK's native library announces each exception it throws."""
    announce(message)
    return error_class(message)


class HeldAnnouncements(object):
    """A context in which announcements are kept instead of written: for work of this package's own that CNTK
    does not do and that catches the errors it may raise (a shape rule tried while a loop's types are being
    worked out). ``release()`` writes them, when such an error is raised to the caller after all."""

    def __init__(self):
        self.messages = []

    def __enter__(self):
        _held.append(self.messages)
        return self

    def __exit__(self, *exc):
        _held.remove(self.messages)
        return False

    def release(self):
        messages, self.messages = self.messages, []
        for message in messages:
            announce(message)


def director_failure():
    """What CNTK's native code makes of an exception raised by Python code it calls back through a SWIG
    director (a user function's forward/backward, a user minibatch source's methods in a training session): the
    Python error is printed (its traceback, on stderr) and a RuntimeError('SWIG director method error.') is
    raised in its place. Call inside the ``except`` block and ``raise director_failure() from None``."""
    traceback.print_exc()
    sys.stderr.flush()
    return RuntimeError("SWIG director method error.")


def native_entry_point(function):
    """Decorator: a ValueError, RuntimeError or TypeError with a plain message that ``function`` raises is
    announced on stderr as CNTK's native library announces its exceptions, and gets CNTK's call stack section
    appended to its message (innermost frame first, as CNTK prints it)."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except NotImplementedError:
            raise   # SWIG's refusal of an argument's type: raised before the native library is reached
        except (ValueError, RuntimeError, TypeError) as e:
            if len(e.args) == 1 and isinstance(e.args[0], str) and CALL_STACK not in e.args[0]:
                announce(e.args[0])
                e.args = ("%s\n\n%s\n%s" % (e.args[0], CALL_STACK, _frames(e.__traceback__)),)
            raise
    return call
