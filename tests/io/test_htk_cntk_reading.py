"""HTK features and MLF labels read as CNTK 2.7 reads them: chunks of 15 minutes of frames (which decide the
randomized order), MLF ranges in 100 ns times or in frame numbers, and the lines CNTK's deserializers print to
stderr when a MinibatchSource opens them. Golden values come from running CNTK 2.7 (CPU) on the same files."""
import struct

import numpy as np
import pytest

import cntk as C

# CNTK 2.7's randomized utterance order (two sweeps, seed 0) of the 150 utterances written by _long_corpus
CNTK27_ORDER = [82, 40, 116, 78, 46, 74, 13, 28, 10, 83, 107, 29, 136, 138, 108, 89, 88, 120, 39, 119, 75, 105, 50, 104, 142, 126, 14, 41, 0, 54, 146, 59, 81, 15, 86, 69, 62, 66, 93, 94, 11, 43, 87, 26, 85, 63, 115, 123, 110, 55, 24, 51, 127, 96, 145, 61, 3, 113, 92, 98, 49, 45, 97, 73, 7, 4, 30, 90, 67, 2, 36, 144, 1, 8, 68, 137, 141, 27, 129, 125, 42, 12, 112, 84, 9, 148, 135, 140, 34, 114, 139, 103, 106, 57, 23, 117, 76, 21, 25, 33, 18, 95, 143, 132, 65, 31, 35, 5, 100, 19, 17, 130, 118, 121, 6, 80, 53, 72, 109, 124, 122, 48, 38, 60, 71, 128, 37, 64, 44, 52, 70, 133, 99, 16, 47, 79, 56, 32, 102, 149, 22, 147, 58, 20, 111, 101, 134, 131, 77, 91, 117, 12, 94, 2, 73, 9, 0, 120, 103, 52, 26, 115, 148, 96, 36, 27, 107, 105, 23, 50, 72, 67, 80, 83, 47, 20, 91, 116, 16, 112, 85, 104, 76, 114, 135, 144, 35, 130, 118, 108, 29, 7, 145, 15, 49, 39, 88, 140, 62, 64, 70, 56, 142, 60, 69, 86, 124, 90, 58, 43, 82, 61, 81, 87, 143, 11, 78, 111, 99, 44, 131, 121, 92, 54, 66, 21, 65, 25, 146, 33, 89, 98, 28, 133, 38, 32, 128, 129, 84, 51, 37, 22, 17, 79, 106, 126, 48, 8, 41, 93, 3, 57, 45, 1, 53, 18, 5, 55, 138, 132, 71, 136, 141, 139, 40, 127, 13, 97, 137, 101, 149, 6, 95, 10, 147, 42, 75, 68, 122, 100, 102, 24, 113, 34, 125, 31, 63, 46, 110, 109, 123, 74, 14, 134, 59, 119, 77, 4, 19, 30]


def _write_htk(path, frames, kind=9):
    with open(path, "wb") as f:
        f.write(struct.pack(">iihh", len(frames), 100000, 4 * frames.shape[1], kind))
        f.write(frames.astype(">f4").tobytes())


def _long_corpus(folder):
    """150 utterances of 900-1700 frames in one archive (three of CNTK's 90000-frame chunks); the first
    feature of every frame is the utterance's number."""
    lens = np.random.RandomState(0).randint(900, 1700, size=150)
    frames, lines, start = [], [], 0
    for i, n in enumerate(lens):
        f = np.zeros((n, 3), np.float32)
        f[:, 0] = i
        frames.append(f)
        lines.append("u%03d.mfc=arch.htk[%d,%d]\n" % (i, start, start + n - 1))
        start += n
    _write_htk(str(folder / "arch.htk"), np.concatenate(frames))
    (folder / "feat.scp").write_text("".join(lines))


def test_randomized_order_follows_cntks_chunks(tmp_path, monkeypatch):
    _long_corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    d = C.io.HTKFeatureDeserializer(C.io.StreamDefs(f=C.io.StreamDef(shape=3, scp="feat.scp")))
    s = C.io.MinibatchSource([d], randomize=True, frame_mode=False)
    x = C.sequence.input_variable(3)
    order = []
    for _ in range(300):
        mb = s.next_minibatch(1, input_map={x: s.streams.f})
        order.append(int(np.asarray(mb[x].asarray()[0]).reshape(-1, 3)[0, 0]))
    assert order == CNTK27_ORDER


def _small_corpus(folder):
    lens = [7, 5, 6]
    lines, start = [], 0
    for i, n in enumerate(lens):
        lines.append("s%d.mfc=a.htk[%d,%d]\n" % (i, start, start + n - 1))
        start += n
    (folder / "f.scp").write_text("".join(lines))
    _write_htk(str(folder / "a.htk"), np.arange(sum(lens) * 2, dtype=np.float32).reshape(-1, 2),
               kind=9 | 0o100 | 0o400)     # USER_E_D
    (folder / "states.list").write_text("a\nb\n\nc\nd\n")
    # s0: times in 100 ns (249999 rounds to frame 2); s1: frame numbers; s2: times, "*/" key and .rec name
    (folder / "l.mlf").write_text('#!MLF!#\n"s0.lab"\n0 249999 a\n249999 700000 b\n.\n'
                                  '"*/s1.lab"\n0 2 c\n2 5 d\n.\n"s2.rec"\n0 100000 b\n100000 600000 c\n.\n')


def _open_small(folder):
    f = C.io.HTKFeatureDeserializer(C.io.StreamDefs(x=C.io.StreamDef(shape=2, scp="f.scp")))
    l = C.io.HTKMLFDeserializer("states.list", C.io.StreamDefs(y=C.io.StreamDef(shape=5, mlf="l.mlf")))
    return C.io.MinibatchSource([f, l], randomize=False)


def test_mlf_ranges_in_times_or_frames_as_cntk(tmp_path, monkeypatch):
    _small_corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    s = _open_small(tmp_path)
    x, y = C.sequence.input_variable(2), C.sequence.input_variable(5)
    got = []
    for _ in range(3):
        mb = s.next_minibatch(1, input_map={x: s.streams.x, y: s.streams.y})
        got.append((int(np.asarray(mb[x].asarray()[0])[0, 0]),
                    [int(np.argmax(r)) for r in np.asarray(mb[y].asarray()[0])]))
    # CNTK 2.7
    assert got == [(0, [0, 0, 1, 1, 1, 1, 1]), (14, [2, 2, 3, 3, 3]), (24, [1, 2, 2, 2, 2, 2])]


def test_opening_prints_cntks_reader_lines(tmp_path, monkeypatch, capsys):
    _small_corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    _open_small(tmp_path)
    # CNTK 2.7's lines (its state count includes the C string terminator after the final newline)
    assert capsys.readouterr().err.splitlines() == [
        "Reading script file f.scp ... 3 entries",
        "HTKDeserializer: selected '3' utterances grouped into '1' chunks, average chunk size: 3.0 utterances, "
        "18.0 frames (for I/O: 3.0 utterances, 18.0 frames)",
        "HTKDeserializer: determined feature kind as '2'-dimensional 'USER_E_D' with frame shift 10.0 ms",
        "Total (5) state names in state list 'states.list'",
        "MLF Deserializer: '3' utterances with '18' frames",
    ]


def test_a_feature_file_is_found_from_the_working_directory(tmp_path, monkeypatch):
    # CNTK 2.7 (its AN4 examples chdir into the data folder first): the SCP's relative path 'a.htk' is the working
    # directory's, not the SCP file's folder's; opening the MinibatchSource reads the first file and fails
    _small_corpus(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(RuntimeError, match=r"^error opening file 'a.htk': No such file or directory\n"):
        C.io.MinibatchSource([C.io.HTKFeatureDeserializer(
            C.io.StreamDefs(x=C.io.StreamDef(shape=2, scp=str(tmp_path / "f.scp"))))])


def test_a_missing_feature_file_fails_the_minibatch_source(tmp_path, monkeypatch, capsys):
    # CNTK 2.7: a RuntimeError while the MinibatchSource is made (not at the first minibatch), announced on stderr
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.scp").write_text("a.mfc=nothere.chunk[0,9]\n")
    with pytest.raises(RuntimeError, match=r"^error opening file 'nothere.chunk': No such file or directory\n"):
        C.io.MinibatchSource([C.io.HTKFeatureDeserializer(C.io.StreamDefs(x=C.io.StreamDef(shape=3, scp="f.scp")))])
    assert "About to throw exception 'error opening file 'nothere.chunk': No such file or directory'" in \
        capsys.readouterr().err
