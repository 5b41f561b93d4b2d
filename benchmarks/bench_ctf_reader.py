"""CTF reader throughput vs pandas.read_csv, and peak memory of a randomized sweep.

Usage: python benchmarks/bench_ctf_reader.py [--mb SIZE]   (size of each generated file in MB, default 200)

The randomized sweep reads the dense file in chunks of 4 MB with a window of 2 chunks, so the file is
many times larger than the window; so does one over half the file. Each runs in a process of its own,
which reports how much its resident memory grew during the sweep (this includes what the compiled
tokenizer allocates, which tracemalloc does not see) and tracemalloc's peak of Python allocations; both
should stay near a few windows, the same for both files.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

from cntk_compat.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, _ctf_parse

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
    parser.add_argument('--sweep', metavar='CTF', help=argparse.SUPPRESS)   # the memory measurement's own process
    args = parser.parse_args()
    if args.sweep:
        return randomized_sweep(args.sweep)
    size = int(args.mb * 1024 * 1024)
    try:
        import pandas as pd
    except ImportError:
        pd = None
        print('pandas is not installed: comparing with numpy.loadtxt instead')
    dense_streams = StreamDefs(x=StreamDef(field='x', shape=DIM), y=StreamDef(field='y', shape=1))
    sparse_streams = StreamDefs(s=StreamDef(field='s', shape=SPARSE_DIM, is_sparse=True),
                                y=StreamDef(field='y', shape=1))
    print('CTF parsing: %s' % ('the compiled tokenizer' if _ctf_parse._ctf_native is not None else
                               'numpy only (the C tokenizer was not built: no C compiler at install)'))
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
        # the same sweep over half the file: memory bounded by the window does not change with the file's size
        half = os.path.join(folder, 'half.ctf')
        with open(paths['dense.ctf'], 'rb') as f, open(half, 'wb') as out:
            text = f.read(sizes['dense.ctf'] // 2)
            out.write(text[:text.rfind(b'\n') + 1])
        for path in (half, paths['dense.ctf']):
            print(subprocess.run([sys.executable, __file__, '--sweep', path], check=True,
                                 stdout=subprocess.PIPE, text=True).stdout, end='')


def randomized_sweep(path, chunk_bytes=4 * 1024 * 1024, window_chunks=2):
    streams = StreamDefs(x=StreamDef(field='x', shape=DIM), y=StreamDef(field='y', shape=1))
    d = CTFDeserializer(path, streams)
    d['chunkSizeInBytes'] = chunk_bytes
    src = MinibatchSource(d, max_sweeps=1, randomization_window_in_chunks=window_chunks)
    rss_before = _reset_peak_rss()
    tracemalloc.start()
    samples = 0
    while True:
        mb = src.next_minibatch(4096)
        if not mb:
            break
        samples += mb[src['x']].num_samples
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    growth = 'peak resident memory growth %.1f MB, ' % ((_status_kb('VmHWM') * 1024 - rss_before) / 1e6) \
        if rss_before is not None else ''
    print('randomized sweep: file %.1f MB (%d samples), window %d chunks x %.1f MB = %.1f MB: %speak traced Python '
          'memory %.1f MB' % (os.path.getsize(path) / 1e6, samples, window_chunks, chunk_bytes / 1e6,
                              window_chunks * chunk_bytes / 1e6, growth, peak / 1e6))


def _status_kb(field):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])


def _reset_peak_rss():
    """Resident bytes now, after resetting the kernel's peak (VmHWM) to it; None where Linux does not allow it."""
    try:
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')
        return _status_kb('VmRSS') * 1024
    except OSError:
        return None


if __name__ == '__main__':
    main()
