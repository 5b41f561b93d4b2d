"""CTF reader throughput vs pandas.read_csv, and peak memory of a randomized sweep.

Usage: python benchmarks/bench_ctf_reader.py [--mb SIZE]   (size of each generated file in MB, default 200)

The randomized sweep reads the dense file in chunks of 4 MB with a window of 2 chunks, so the file is
many times larger than the window; its peak traced memory should stay near a few windows.
"""
import argparse
import os
import resource
import sys
import tempfile
import time

import numpy as np

from cntk_compat.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs

DIM, SPARSE_DIM, NNZ = 20, 10000, 10


def _repeat_to(path, block, size):
    with open(path, 'wb') as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)
    return os.path.getsize(path)


def make_files(folder, size):
    rng = np.random.default_rng(0)
    x = rng.random((20000, DIM)).astype(np.float32)
    y = rng.integers(0, 2, 20000)
    dense = ''.join('|x %s |y %d\n' % (' '.join('%.6f' % v for v in row), c) for row, c in zip(x, y)).encode()
    csv = ''.join('%s,%d\n' % (','.join('%.6f' % v for v in row), c) for row, c in zip(x, y)).encode()
    idx = np.sort(rng.integers(0, SPARSE_DIM, (20000, NNZ)), axis=1)
    sparse = ''.join('|s %s |y %d\n' % (' '.join('%d:%.4f' % (i, v) for i, v in zip(r, rng.random(NNZ))), c)
                     for r, c in zip(idx, y)).encode()
    sparse_csv = ''.join('%s\n' % ','.join('%d,%.4f' % (i, v) for i, v in zip(r, rng.random(NNZ)))
                         for r in idx).encode()
    paths = {k: os.path.join(folder, k) for k in ('dense.ctf', 'dense.csv', 'sparse.ctf', 'sparse.csv')}
    sizes = {k: _repeat_to(paths[k], data, size) for k, data in
             (('dense.ctf', dense), ('dense.csv', csv), ('sparse.ctf', sparse), ('sparse.csv', sparse_csv))}
    return paths, sizes


def sweep(path, streams, **kw):
    src = MinibatchSource(CTFDeserializer(path, streams), max_sweeps=1, **kw)
    samples = 0
    while True:
        mb = src.next_minibatch(4096)
        if not mb:
            return samples
        samples += next(iter(mb.values())).num_samples


def timed(f):
    t = time.perf_counter()
    r = f()
    return time.perf_counter() - t, r


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--mb', type=float, default=200, help='size of each generated file in MB')
    size = int(parser.parse_args().mb * 1024 * 1024)
    try:
        import pandas as pd
    except ImportError:
        pd = None
        print('pandas is not installed: comparing with numpy.loadtxt instead')
    dense_streams = StreamDefs(x=StreamDef(field='x', shape=DIM), y=StreamDef(field='y', shape=1))
    sparse_streams = StreamDefs(s=StreamDef(field='s', shape=SPARSE_DIM, is_sparse=True),
                                y=StreamDef(field='y', shape=1))
    with tempfile.TemporaryDirectory() as folder:
        paths, sizes = make_files(folder, size)
        for kind, streams in (('dense', dense_streams), ('sparse', sparse_streams)):
            ctf, csv = paths[kind + '.ctf'], paths[kind + '.csv']
            t_ours, n = timed(lambda: sweep(ctf, streams, randomize=False))
            if pd is not None:
                t_ref, _ = timed(lambda: pd.read_csv(csv, header=None, dtype=np.float32).values)
                ref = 'pandas.read_csv'
            else:
                t_ref, _ = timed(lambda: np.loadtxt(csv, delimiter=',', dtype=np.float32))
                ref = 'numpy.loadtxt'
            ours, theirs = sizes[kind + '.ctf'] / t_ours / 1e6, sizes[kind + '.csv'] / t_ref / 1e6
            print('%-6s CTF %7.1f MB: CTFDeserializer+MinibatchSource %6.1f MB/s (%d samples) | %s on the same '
                  'numbers as CSV (%.1f MB) %6.1f MB/s | ratio %.2f'
                  % (kind, sizes[kind + '.ctf'] / 1e6, ours, n, ref, sizes[kind + '.csv'] / 1e6, theirs,
                     ours / theirs))
        chunk_bytes, window_chunks = 4 * 1024 * 1024, 2
        d = CTFDeserializer(paths['dense.ctf'], dense_streams)
        d['chunkSizeInBytes'] = chunk_bytes
        import tracemalloc
        tracemalloc.start()
        src = MinibatchSource(d, max_sweeps=1, randomization_window_in_chunks=window_chunks)
        samples = 0
        while True:
            mb = src.next_minibatch(4096)
            if not mb:
                break
            samples += mb[src['x']].num_samples
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print('randomized sweep: file %.1f MB (%d samples), window %d chunks x %.1f MB = %.1f MB: '
              'peak traced memory %.1f MB (process max RSS %.1f MB)'
              % (sizes['dense.ctf'] / 1e6, samples, window_chunks, chunk_bytes / 1e6,
                 window_chunks * chunk_bytes / 1e6, peak / 1e6,
                 resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3))


if __name__ == '__main__':
    main()
