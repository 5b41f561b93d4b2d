"""Reader configurations CNTK 2.7 refuses with a RuntimeError (outcomes read by CNTK 2.7 itself)."""
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


@pytest.fixture
def uneven(tmp_path):
    # sequence 0: two samples of 'a', one of 'lab'
    path = tmp_path / 'd.ctf'
    path.write_text("0 |a 1 2 |lab 1\n0 |a 3 4\n1 |a 5 6 |lab 0\n2 |a 7 8 |lab 1\n")
    return str(path)


def test_one_input_name_for_two_streams(uneven):
    d = CTFDeserializer(uneven, StreamDefs(a=StreamDef('a', 2), b=StreamDef('a', 2)))    # made, as in CNTK
    with pytest.raises(RuntimeError, match="input name 'a' of stream 'b' is already given to stream 'a'"):
        MinibatchSource(d, randomize=False)


@pytest.mark.parametrize('options', [dict(truncation_length=2), dict(frame_mode=True)])
def test_streams_of_other_lengths_with_truncation_or_frames(uneven, options):
    src = MinibatchSource(CTFDeserializer(uneven, StreamDefs(a=StreamDef('a', 2), lab=StreamDef('lab', 1))),
                          randomize=False, max_sweeps=1, **options)
    with pytest.raises(RuntimeError):
        src.next_minibatch(2)
