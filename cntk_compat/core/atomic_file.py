"""Writing files so that a crash, a kill or a full disk never leaves a half-written one in place.

A file is first written to a temporary file in its own directory (``.<name>.<tag>.tmp``, created with mode
0666 less the umask, as ``open`` would), flushed and fsync'ed; renaming it over the target is the atomic step,
after which the directory is fsync'ed so the rename itself survives a power cut. At every instant the target is
either the previous complete file or the new complete one. Missing parent folders are created, as CNTK does.

``write_atomically`` does all of that for one file. Writers that must replace several files together (a
checkpoint's model and ``.ckp`` pair) call ``stage`` for each, then ``commit`` them in an order their reader
can recover from; a staged file can be found again by its tag (``temp_path``).
"""
import errno
import os
import re
import secrets

_CHUNK = 1 << 26  # bytes per os.write call


def new_tag():
    """A random tag naming one write's temporary files."""
    return secrets.token_hex(16)


def temp_path(filename, tag):
    """The temporary file a write tagged ``tag`` stages ``filename`` in."""
    directory, base = os.path.split(os.path.abspath(os.fspath(filename)))
    return os.path.join(directory, ".%s.%s.tmp" % (base, tag))


def _failure(e, filename, what, action):
    message = "cannot %s %s '%s': %s; the previous file is unchanged" % (action, what, filename,
                                                                          e.strerror or e)
    return OSError(e.errno, message)


def stage(filename, data, tag, what="file"):
    """Writes ``data`` (bytes-like, or a list of bytes-like parts written one after the other) to
    ``temp_path(filename, tag)``, fsync'ed; returns that path. On failure the temporary file is removed and an
    OSError naming ``filename`` is raised (ENOSPC: the disk is full)."""
    filename = os.fspath(filename)
    directory = os.path.dirname(os.path.abspath(filename))
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise _failure(e, filename, what, "create the folder of") from None
    if os.path.isdir(filename):
        raise IsADirectoryError(errno.EISDIR, "cannot write %s '%s': it is a directory" % (what, filename))
    tmp = temp_path(filename, tag)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except OSError as e:
        raise _failure(e, filename, what, "write") from None
    try:
        try:
            for part in (data if isinstance(data, list) else [data]):
                view = memoryview(part).cast("B")
                while view:
                    written = os.write(fd, view[:_CHUNK])
                    view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        discard(tmp)
        raise _failure(e, filename, what, "write") from None
    except BaseException:
        discard(tmp)
        raise
    return tmp


def commit(tmp, filename, what="file"):
    """Renames the staged ``tmp`` over ``filename`` (the atomic step) and fsyncs the folder. If the rename
    fails, ``tmp`` is left for the caller to discard or keep, and ``filename`` is unchanged."""
    filename = os.fspath(filename)
    try:
        os.replace(tmp, filename)
    except OSError as e:
        raise _failure(e, filename, what, "replace") from None
    sync_folder_of(filename, what)


def sync_folder_of(filename, what="file"):
    """fsync of the folder holding ``filename``, so that its rename survives a power cut."""
    try:
        fsync_directory(os.path.dirname(os.path.abspath(filename)))
    except OSError as e:
        raise OSError(e.errno, "%s '%s' was replaced, but its folder could not be synced to disk (%s)"
                      % (what, filename, e.strerror or e)) from None


def discard(tmp):
    try:
        os.remove(tmp)
    except FileNotFoundError:
        pass


def write_atomically(filename, data, what="file"):
    """Replaces ``filename`` by ``data`` (bytes-like, or a list of parts) atomically; temporary files left by
    killed writes of the same file are removed first."""
    remove_stale_temps(filename)
    tmp = stage(filename, data, new_tag(), what)
    try:
        commit(tmp, filename, what)
    finally:
        discard(tmp)  # a no-op once the rename happened


def stale_temps(filename):
    """The temporary files that writes of ``filename`` staged and never committed or removed (killed writes)."""
    directory, base = os.path.split(os.path.abspath(os.fspath(filename)))
    pattern = re.compile(r"\.%s\.[0-9a-f]{32}\.tmp$" % re.escape(base))
    try:
        entries = os.listdir(directory)
    except FileNotFoundError:
        return []
    return [os.path.join(directory, e) for e in entries if pattern.match(e)]


def remove_stale_temps(filename):
    for tmp in stale_temps(filename):
        discard(tmp)


def fsync_directory(directory):
    """fsync of a folder (so renames in it are durable); a no-op where the platform cannot do it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except (PermissionError, IsADirectoryError):  # Windows cannot open folders
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):  # file systems without directory fsync
            raise
    finally:
        os.close(fd)
