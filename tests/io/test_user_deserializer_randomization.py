"""A UserDeserializer read with randomization: the sequences in CNTK 2.7's order.

CNTK 2.7 reads a user deserializer (whose chunks come without sequence counts) on a local timeline: chunk order
per sweep, windows of chunks (or samples) shuffled from the chunk position where they start, sweep-end markers
(so a sweep that ends with a minibatch flags the next one), a worker's chunks by position modulo the workers,
and in order a worker's sequences by position. The expected orders were recorded from CNTK 2.7 with the same
deserializer: chunk c holds sequences 100*c + k (k < size of c); ``|n`` is the minibatch's sample count, ``E``
its end-of-sweep flag, ``-`` an empty minibatch (the end of the data).
"""
import numpy as np
import pytest

import cntk as C
from cntk.io import MinibatchSource, StreamInformation, UserDeserializer


class Ids(UserDeserializer):
    """Chunk c: sequences 100*c .. 100*c + size - 1; in sequence mode sequence k has 1 + k % 3 samples."""

    def __init__(self, sizes, seq=False):
        super(Ids, self).__init__()
        self._sizes, self._seq = sizes, seq
        self._x = StreamInformation('x', 0, 'dense', np.float32, (1,))

    def stream_infos(self):
        return [self._x]

    def num_chunks(self):
        return len(self._sizes)

    def get_chunk(self, chunk_id):
        base, n = 100 * chunk_id, self._sizes[chunk_id]
        if self._seq:
            return {'x': [np.full((1 + k % 3, 1), base + k, np.float32) for k in range(n)]}
        return {'x': np.arange(base, base + n, dtype=np.float32).reshape(n, 1)}


def read(sizes, kw, rank, mb, count):
    kw = dict(kw)
    workers, seq = kw.pop('workers', 1), kw.pop('seq', False)
    src = MinibatchSource(Ids(sizes, seq), **kw)
    out = []
    for _ in range(count):
        m = src.next_minibatch(mb, num_data_partitions=workers, partition_index=rank)
        if not m:
            out.append('-')
            continue
        d = m[src.streams.x]
        if seq:
            ids = [int(s[0, 0]) for s in d.as_sequences()]
        else:
            ids = [int(x) for x in np.asarray(d.asarray()).reshape(-1)]
        out.append(','.join(map(str, ids)) + '|%d%s' % (d.num_samples, 'E' if d.end_of_sweep else ''))
    return ' '.join(out)


# (chunk sizes, MinibatchSource options (+ workers, seq), rank, minibatch size, minibatches, CNTK 2.7's reading)
CNTK27 = [
    ([5, 3, 7, 4, 6, 2], {}, 0, 5, 18,
     '1,401,206,205,203|5 303,302,100,101,301|5 403,400,200,404,500|5 201,202,300,501,102|5 204,405,4,0,3|5 2,402,101,401,201|5E 203,206,202,4,404|5 204,100,301,0,400|5 500,402,2,1,501|5 200,405,303,205,3|5 300,403,302,102,302|5E 404,0,301,500,501|5 204,3,405,205,401|5 403,201,101,402,4|5 1,100,2,206,303|5 203,200,202,400,300|5 102,205,302,300,204|5E 404,500,405,203,100|5'),
    ([5, 3, 7, 4, 6, 2], {'max_sweeps': 3}, 0, 4, 20,
     '1,401,206,205|4 203,303,302,100|4 101,301,403,400|4 200,404,500,201|4 202,300,501,102|4 204,405,4,0|4 3,2,402,101|4E 401,201,203,206|4 202,4,404,204|4 100,301,0,400|4 500,402,2,1|4 501,200,405,303|4 205,3,300,403|4 302,102,302,404|4E 0,301,500,501|4 204,3,405,205|4 401,403,201,101|4 402,4,1,100|4 2,206,303,203|4 200,202,400,300|4'),
    ([5, 3, 7, 4, 6, 2], {'max_samples': 23}, 0, 4, 10,
     '1,401,206,205|4 203,303,302,100|4 101,301,403,400|4 200,404,500,201|4 202,300,501,102|4 204,405,4|3 - - - -'),
    ([5, 3, 7, 4, 6, 2], {'randomization_window_in_chunks': 2}, 0, 5, 18,
     '204,300,202,205,303|5 203,200,201,206,301|5 302,1,4,0,3|5 100,101,2,102,501|5 402,401,400,403,404|5 405,500,200,201,402|5E 203,404,400,206,204|5 205,403,405,401,202|5 102,501,500,101,100|5 0,301,1,3,4|5 2,302,300,303,400|5E 204,200,402,404,401|5 405,206,205,202,403|5 201,203,303,500,301|5 501,300,302,0,4|5 100,102,101,2,1|5 3,303,301,500,302|5E 300,501,401,405,400|5'),
    ([5, 3, 7, 4, 6, 2], {'randomization_window_in_chunks': 1}, 0, 5, 12,
     '302,303,301,300,202|5 201,200,205,204,206|5 203,100,102,101,2|5 4,3,1,0,403|5 404,401,405,400,402|5 500,501,402,403,404|5E 401,400,405,201,204|5 200,206,202,203,205|5 102,100,101,501,500|5 302,300,301,303,0|5 4,2,3,1,400|5E 401,403,405,404,402|5'),
    ([5, 3, 7, 4, 6, 2], {'randomization_window_in_chunks': 0, 'randomization_window_in_samples': 8}, 0, 5, 12,
     '204,300,202,205,303|5 203,200,201,206,301|5 302,1,4,0,3|5 100,101,2,102,501|5 402,401,400,403,404|5 405,500,200,201,402|5E 203,404,400,206,204|5 205,403,405,401,202|5 303,100,302,501,300|5 500,101,102,301,0|5 4,2,3,1,400|5E 401,403,405,404,402|5'),
    ([5, 3, 7, 4, 6, 2], {'randomization_seed': 7}, 0, 5, 12,
     '101,204,403,500,206|5 501,404,3,400,200|5 205,201,100,202,301|5 302,0,300,303,405|5 4,1,102,401,2|5 203,402,302,3,102|5E 101,401,202,203,204|5 405,2,300,403,205|5 501,100,201,500,206|5 400,0,404,1,200|5 4,402,303,301,402|5E 204,303,401,102,302|5'),
    ([5, 3, 7, 4, 6, 2], {'randomize': False}, 0, 5, 12,
     '0,1,2,3,4|5 100,101,102,200,201|5 202,203,204,205,206|5 300,301,302,303,400|5 401,402,403,404,405|5 500,501,0,1,2|5E 3,4,100,101,102|5 200,201,202,203,204|5 205,206,300,301,302|5 303,400,401,402,403|5 404,405,500,501,0|5E 1,2,3,4,100|5'),
    ([5, 3, 7, 4, 6, 2], {'seq': True}, 0, 6, 12,
     '1,401,206|5 205,203,303|5 302,100,101|6 301,403,400,200|5 404,500,201|5 202,300,501|6 102,204|5 405,4,0|6 3,2|4 402,101|5E 401,201,203,206|6 202,4|5'),
    ([5, 3, 7, 4, 6, 2], {'workers': 2, 'randomize': False}, 0, 4, 10,
     '0,2|2 4,101|2 200,202|2 204,206|2 301,303|2 401,403|2 405,501|2 0,2|2E 4,101|2 200,202|2'),
    ([5, 3, 7, 4, 6, 2], {'workers': 2, 'randomize': False}, 1, 4, 10,
     '1,3|2 100,102|2 201,203|2 205,300|2 302,400|2 402,404|2 500,1|2E 3,100|2 102,201|2 203,205|2'),
    ([5, 3, 7, 4, 6, 2], {'workers': 2}, 0, 4, 12,
     '100,405|2 300,404|2 101,303|2 403,400|2 302,102|2 301,401|2 402,100|2E 101,402|2 300,404|2 400,303|2 301,302|2 403,405|2'),
    ([5, 3, 7, 4, 6, 2], {'workers': 2, 'randomization_window_in_chunks': 2}, 0, 4, 12,
     '303,102|2 101,302|2 300,100|2 301,405|2 403,400|2 404,402|2 401,402|2E 403,404|2 401,400|2 405,101|2 301,100|2 303,102|2'),
    ([5, 3, 7, 4, 6, 2], {'workers': 2, 'max_sweeps': 2}, 0, 3, 16,
     '100,405|2 300,404|2 101,303|2 403,400|2 302,102|2 301,401|2 402,100|2E 101,402|2 300,404|2 400,303|2 301,302|2 403,405|2 401,102|2 - - -'),
    ([5, 3, 7, 4, 6, 2], {'workers': 2, 'max_samples': 21}, 0, 3, 10,
     '100,405|2 300,404|2 101,303|2 403,400|2 302,102|2 301|1 - - - -'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2}, 0, 4, 12,
     '500,300|2 501,303|2 502,202|2 503,302|2 403,505|2 306,200|2 504,304|2 201,402|2 400,305|2 401,301|2 402,600|2E 400,102|2'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2}, 1, 4, 12,
     '101,104|2 103,100|2 600,102|2 601,505|2E 201,200|2 503,202|2 502,504|2 500,501|2 500,501|2E 600,201|2 202,505|2 503,200|2'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2, 'randomization_window_in_chunks': 2}, 1, 4, 12,
     '600,601|2 104,101|2 102,103|2 100,202|2E 500,201|2 504,505|2 503,501|2 502,200|2 600,202|2E 200,601|2 201,502|2 501,505|2'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2, 'max_sweeps': 2}, 1, 3, 16,
     '101|1 104|1 103|1 100|1 600|1 102|1 601|1 505|1E 201|1 200|1 503|1 202|1 502|1 504|1 500|1 501|1'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2, 'max_samples': 21}, 1, 3, 10,
     '101|1 104|1 103|1 100|1 600|1 102|1 601|1 505|1E 201|1 200|1'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 3}, 0, 4, 10,
     '500,304|2 503,300|2 301,504|2 600,306|2 505,601|2 302,502|2 305,501|2 303,501|2E 303,600|2 502,300|2'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 3}, 1, 4, 10,
     '200|1 202|1 201|1 400|1E 401|1 402|1 403|1 200|1E 202|1 201|1'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 3}, 2, 4, 10,
     '102|1 100|1 101|1 403|1 402|1 103|1 401|1 400|1 104|1 100|1E'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2, 'randomization_window_in_chunks': 1}, 0, 4, 12,
     '303,306|2 305,302|2 300,304|2 301,400|2 401,402|2 403,202|2 200,201|2 504,500|2 502,501|2 503,505|2 302,301|2E 300,305|2'),
    ([0, 5, 3, 7, 4, 6, 2], {'workers': 2, 'randomization_window_in_chunks': 0, 'randomization_window_in_samples': 10}, 1, 4, 12,
     '101,104|2 103,100|2 600,102|2 601,502|2E 503,504|2 501,500|2 505,201|2 200,202|2 500,501|2E 600,201|2 202,505|2 503,200|2'),
    ([10], {}, 0, 5, 6,
     '4,6,3,9,8|5 0,2,7,5,1|5 8,7,4,0,2|5E 9,6,1,3,5|5 8,4,7,5,1|5E 3,2,9,0,6|5'),
]


@pytest.mark.parametrize('sizes,kw,rank,mb,count,expected', CNTK27)
def test_user_deserializer_order_is_cntk27s(sizes, kw, rank, mb, count, expected):
    assert read(sizes, kw, rank, mb, count) == expected


def test_a_worker_without_chunks_reads_nothing():
    # one chunk, two workers: worker 1 has no chunk (CNTK 2.7 waits forever there)
    assert read([10], {'workers': 2}, 1, 4, 3) == '- - -'


def test_checkpoint_restores_the_local_timeline():
    src = MinibatchSource(Ids([5, 3, 7, 4, 6, 2]), randomization_window_in_chunks=2)
    for _ in range(7):
        src.next_minibatch(5)
    state = src.get_checkpoint_state()
    after = [src.next_minibatch(5)[src.streams.x].asarray().reshape(-1).tolist() for _ in range(6)]
    other = MinibatchSource(Ids([5, 3, 7, 4, 6, 2]), randomization_window_in_chunks=2)
    other.restore_from_checkpoint(state)
    assert [other.next_minibatch(5)[other.streams.x].asarray().reshape(-1).tolist() for _ in range(6)] == after
