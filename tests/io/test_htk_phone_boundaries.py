"""HTKMLFDeserializer(phoneBoundaries=True): the first frame of each MLF entry carries 2 instead of 1 (CNTK's
PHONE_BOUNDARY, what its CTC training reads phone boundaries from)."""
import numpy as np

import cntk as C


def test_first_frame_of_each_phone_is_marked_2(tmp_path):
    (tmp_path / "map.txt").write_text("a\nb\nc\n")
    (tmp_path / "l.mlf").write_text('#!MLF!#\n"*/utt1.lab"\n0 200000 a\n200000 500000 b\n500000 600000 a\n.\n'
                                    '"*/utt2.lab"\n0 300000 c\n.\n')
    streams = C.io.StreamDefs(l=C.io.StreamDef(shape=3, mlf=str(tmp_path / "l.mlf")))
    src = C.io.MinibatchSource([C.io.HTKMLFDeserializer(str(tmp_path / "map.txt"), streams, phoneBoundaries=True)],
                               randomize=False, frame_mode=False, max_sweeps=1)
    x = C.sequence.input_variable(3)
    out = (x * 1).eval({x: src.next_minibatch(20)[src.streams.l]})
    first = np.asarray(out[0])[:6]
    np.testing.assert_array_equal(first, [[2, 0, 0], [1, 0, 0], [0, 2, 0], [0, 1, 0], [0, 1, 0], [2, 0, 0]])
    np.testing.assert_array_equal(np.asarray(out[1])[:3], [[0, 0, 2], [0, 0, 1], [0, 0, 1]])
