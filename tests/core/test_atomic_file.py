import errno
import os

import numpy as np
import pytest

import cntk as C
from cntk_compat.core import atomic_file


def test_writes_follow_the_umask_and_create_missing_folders(tmp_path):
    old = os.umask(0o027)
    try:
        target = tmp_path / "Models" / "deeper" / "m.bin"
        atomic_file.write_atomically(str(target), b"abc")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"abc"
    assert os.stat(str(target)).st_mode & 0o777 == 0o640


def test_a_full_disk_names_the_file_and_keeps_the_previous_one(tmp_path, monkeypatch):
    target = tmp_path / "m.bin"
    atomic_file.write_atomically(str(target), b"previous")

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError, match=r"cannot write model file '.*m\.bin': No space left on device; the previous "
                                      r"file is unchanged") as e:
        atomic_file.write_atomically(str(target), b"new", "model file")
    assert e.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"previous"
    assert os.listdir(str(tmp_path)) == ["m.bin"]


def test_the_next_write_removes_temporary_files_of_killed_writes(tmp_path):
    target = tmp_path / "m.bin"
    stale = atomic_file.temp_path(str(target), atomic_file.new_tag())
    open(stale, "wb").write(b"half")
    other = tmp_path / ".m.bin2.0123456789abcdef0123456789abcdef.tmp"
    other.write_bytes(b"another file's")
    atomic_file.write_atomically(str(target), b"x")
    assert sorted(os.listdir(str(tmp_path))) == [other.name, "m.bin"]


def test_a_directory_in_place_of_the_file_is_named(tmp_path):
    (tmp_path / "m").mkdir()
    with pytest.raises(IsADirectoryError, match=r"model file '.*m': it is a directory"):
        atomic_file.write_atomically(str(tmp_path / "m"), b"x", "model file")


def test_function_save_creates_the_folder_and_replaces_atomically(tmp_path, monkeypatch):
    z = C.layers.Dense(2)(C.input_variable(3))
    path = str(tmp_path / "Models" / "z.model")
    z.save(path)
    before, old = open(path, "rb").read(), z.parameters[0].value.copy()

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", full)
    z.parameters[0].value = z.parameters[0].value + 1
    with pytest.raises(OSError, match="z.model"):
        z.save(path)
    monkeypatch.undo()
    assert open(path, "rb").read() == before
    np.testing.assert_array_equal(C.load_model(path).parameters[0].value, old)
