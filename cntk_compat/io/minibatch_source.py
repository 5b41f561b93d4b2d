"""``MinibatchSource``: composes deserializers, randomizes, cuts minibatches, checkpoints."""
import concurrent.futures
import sys
import warnings
import weakref

import numpy as np

from ..core.device import DeviceDescriptor
from ..core.native_errors import announced, native_entry_point
from ._blocks import BlockPlanner
from ._deserializer import Deserializer, ReaderError
from ._local_timeline import LocalTimeline
from ._record import Record
from ._sequences import SequenceData
from ._truncation import TruncatedReader
from .minibatch_data import MinibatchData, ReaderBatch
from .source_config import (DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS, FULL_DATA_SWEEP, INFINITELY_REPEAT,
                            MinibatchSourceConfig, is_multithreaded, to_dictionary)

_TRACE_LEVEL_WARNING = 1     # cntk.logging.TraceLevel.Warning


def _is_size_t(value):
    return isinstance(value, int) and 0 <= value < 2 ** 64


def _check_frames(streams, infos):
    """CNTK 2.7's frame packer refuses a minibatch holding a sequence of more than one sample."""
    for si in infos:
        lengths = streams[si.m_name].lengths
        longer = np.flatnonzero(lengths > 1)
        if len(longer):
            raise announced(RuntimeError, 'Detected a non-frame sequence of size %d in frame mode.'
                            % lengths[longer[0]])


def _partition_share(size, parts, part):
    """This partition's share of a minibatch of ``size`` samples, as CNTK 2.7 splits it: size // parts, one more
    for the first size % parts partitions; a share of 0 (fewer samples than partitions) becomes 1."""
    return max(1, size // parts + (1 if part < size % parts else 0))


class MinibatchSource(object):
    """Reads minibatches from one or more deserializers composed by sequence key.

    Args:
        deserializers: a deserializer or a list of them; the first one drives chunking, the others are
          looked up by sequence key.
        max_samples (int): stop after this many samples (of the stream that defines the minibatch size);
          :const:`FULL_DATA_SWEEP` means one sweep.  Exclusive with ``max_sweeps``.
        max_sweeps (int): stop after this many sweeps over the data.
        randomization_window_in_chunks (int): chunks shuffled together (memory use is bounded by it).
        randomization_window_in_samples (int): alternatively, the window in samples.
        randomization_seed (int): seed of the first sweep; sweep k uses seed + k.
        trace_level: verbosity (:class:`cntk.logging.TraceLevel`); warnings are Python warnings.
        multithreaded_deserializer (bool): decode on several threads (default: for images only).
        frame_mode (bool): every sample is a sequence of its own (randomized at frame level).
        truncation_length (int): cut sequences into pieces of this many samples for truncated BPTT; a
          minibatch then holds max(1, size // truncation_length) parallel slots that continue their
          sequences from minibatch to minibatch (see ``_truncation``).
        randomize (bool): whether to randomize at all.
        max_errors (int): malformed lines of CTF files skipped with a warning before an error is raised.
    """

    full_data_sweep = FULL_DATA_SWEEP
    infinitely_repeat = INFINITELY_REPEAT
    default_randomization_window_in_chunks = DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS

    @native_entry_point  # CNTK builds the source natively: its configuration errors carry the call stack
    def __init__(self, deserializers, max_samples=INFINITELY_REPEAT, max_sweeps=INFINITELY_REPEAT,
                 randomization_window_in_chunks=DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS,
                 randomization_window_in_samples=0, randomization_seed=0, trace_level=_TRACE_LEVEL_WARNING,
                 multithreaded_deserializer=None, frame_mode=False, truncation_length=0, randomize=True,
                 max_errors=0):
        if not isinstance(deserializers, (list, tuple)):
            deserializers = [deserializers]
        if not deserializers:
            raise ValueError('Could not find deserializers in the reader config.')
        from .user_source import UserDeserializer, UserDeserializerAdapter
        if any(isinstance(d, UserDeserializer) for d in deserializers) and len(deserializers) != 1:
            raise ValueError('Currently composition for user defined deserializers is not supported.')
        deserializers = [UserDeserializerAdapter(d) if isinstance(d, UserDeserializer) else d
                         for d in deserializers]
        for d in deserializers:
            if not isinstance(d, Deserializer):
                raise TypeError('MinibatchSource: expected deserializers (CTFDeserializer, ImageDeserializer, '
                                '...), got %s' % type(d).__name__)
        config = MinibatchSourceConfig(deserializers, randomize)
        config.max_samples, config.max_sweeps = max_samples, max_sweeps
        if randomize:
            config.randomization_window_in_chunks = randomization_window_in_chunks
            config.randomization_window_in_samples = randomization_window_in_samples
        config.randomization_seed = randomization_seed
        if multithreaded_deserializer is not None:
            config.is_multithreaded.set(multithreaded_deserializer)
        config.is_frame_mode_enabled = frame_mode
        config.truncation_length = truncation_length
        config.trace_level = trace_level
        config.max_errors = max_errors
        self._config = to_dictionary(config)
        if max_samples == FULL_DATA_SWEEP:
            max_samples, max_sweeps = INFINITELY_REPEAT, 1
        self._max_samples, self._max_sweeps = max_samples, max_sweeps
        self.trace_level = self._config['traceLevel']
        self.max_errors = max_errors
        multithreaded = is_multithreaded(config)

        for d in deserializers:
            d.report_opening()
        infos, size_streams = [], []
        for d in deserializers:
            d.multithreaded = multithreaded
            d.max_errors = max_errors
            # CNTK numbers each deserializer's streams in the order of its (case-insensitive) configuration keys
            for si in sorted(d.stream_infos(), key=lambda si: si.m_name.lower()):
                if any(si.m_name == o.m_name for o in infos):
                    raise ValueError("stream name '%s' is defined by more than one deserializer" % si.m_name)
                si.m_id = len(infos)
                infos.append(si)
                if si.m_defines_mb_size:
                    size_streams.append(si.m_name)
        if len(size_streams) > 1:
            raise ValueError('only one stream may define the minibatch size, got %s' % ', '.join(size_streams))
        self._infos = infos  # by id: the order of a minibatch's streams
        # streams whose minibatches their deserializer finishes (random image transforms, drawn by position)
        self._assembled = [(name, d) for d in deserializers for name in d.assembled_streams()]
        self._last_request = None   # (minibatch size, parts, part) of the last minibatch read
        self._last_mb_data = None   # the dict the last call with an input_map returned (emptied by the next call)
        self._streams = Record(**{si.m_name: si for si in reversed(infos)})
        self._planner = BlockPlanner(
            deserializers, self._config['randomize'], config.randomization_window_in_chunks,
            config.randomization_window_in_samples, randomization_seed,
            frame_mode, size_streams[0] if size_streams else None)
        # frame mode over sequences the deserializer does not split: CNTK delivers them only if single samples
        self._frames_checked = frame_mode and not self._planner.frame_mode
        self._refused_from = None   # the position before a minibatch refused in frame mode (read, not delivered)
        # CNTK 2.7 reads a user deserializer (chunks without sequence counts) on a local timeline
        self._timeline = None
        if isinstance(deserializers[0], UserDeserializerAdapter) and not frame_mode:
            self._timeline = LocalTimeline(
                deserializers[0], self._config['randomize'], config.randomization_window_in_chunks,
                config.randomization_window_in_samples, randomization_seed, max_samples, max_sweeps,
                size_streams[0] if size_streams else None)
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix='cntk-reader')
        weakref.finalize(self, self._executor.shutdown, wait=False, cancel_futures=True)
        self._pending = {}
        self._current = None
        self._orders = {}
        self._set_state(0, 0, 0, 0, 1, 0)
        self._warned_share = False
        self._truncation = TruncatedReader(self, truncation_length) if truncation_length else None

    # ------------------------------------------------------------------ streams
    def stream_infos(self):
        """The list of :class:`StreamInformation` of the streams this source produces (as CNTK lists them:
        the last id first)."""
        return list(reversed(self._infos))

    @property
    def streams(self):
        """Record mapping stream names to :class:`StreamInformation`."""
        return self._streams

    def stream_info(self, name):
        """The :class:`StreamInformation` of the stream called ``name``."""
        if name not in self._streams:
            raise ReaderError("No stream found matching given name '%s' (this source has: %s)."
                              % (name, ", ".join(self._streams)))
        return self._streams[name]

    def __getitem__(self, name):
        return self.stream_info(name)

    # ------------------------------------------------------------------ position
    def _set_state(self, sweep, start, pos, samples, parts, part, count=0, sweep_sequences=0, window_samples=None):
        self._sweep, self._start, self._pos, self._samples = sweep, start, pos, samples
        self._parts, self._part = parts, part
        # where sequences are dealt out to workers: the running count at the block's first sequence, and the
        # sequences of the sweep before the block
        self._count, self._sweep_sequences = count, sweep_sequences
        self._window_samples = window_samples   # the block's samples (all workers') passed; None: up to self._pos

    def get_plain_state(self):
        """The position of the whole-sequence reading (without truncation slots)."""
        if self._timeline is not None:
            return self._timeline.get_state()
        return dict(sweep=self._sweep, chunk_position=self._start, sequence_position=self._pos,
                    samples_seen=self._samples, num_data_partitions=self._parts, partition_index=self._part,
                    sequence_count=self._count, sweep_sequences=self._sweep_sequences,
                    window_samples=self._window_samples)

    def set_plain_state(self, state):
        if isinstance(state, dict) and 'minibatchSourcePosition' in state and \
                state['minibatchSourcePosition'] != state.get('samples_seen', state.get('samples')):
            # CNTK's own state, alone or changed by the script in a state of ours (a script rewinds with
            # pos = src.current_position; pos['minibatchSourcePosition'] = 0; src.current_position = pos)
            return self._seek(state['minibatchSourcePosition'])
        if self._timeline is not None and LocalTimeline.is_state(state):
            self._timeline.set_state(state)
            self._samples, self._parts, self._part = self._timeline.samples, int(state['parts']), int(state['part'])
            return
        try:
            values = [int(state[k]) for k in ('sweep', 'chunk_position', 'sequence_position',
                                              'samples_seen', 'num_data_partitions', 'partition_index')]
        except (KeyError, TypeError, ValueError):
            raise ValueError('not a MinibatchSource checkpoint state: %r' % (state,))
        window_samples = state.get('window_samples')
        self._set_state(*values, count=int(state.get('sequence_count', 0)),
                        sweep_sequences=int(state.get('sweep_sequences', 0)),
                        window_samples=None if window_samples is None else int(window_samples))
        self._current = None
        self._pending.clear()

    def _seek(self, position):
        """Restores CNTK's own checkpoint state, the number of samples read: reads from the start up to there."""
        try:
            position = int(position)
        except (TypeError, ValueError):
            raise ValueError('not a MinibatchSource checkpoint state: %r' % ({'minibatchSourcePosition': position},))
        wanted = parts, part = self._parts, self._part
        if self._timeline is None and self._planner.deals_out(parts):
            parts, part = 1, 0      # the position counts all workers' samples: read them all, then deal out
        self._set_state(0, 0, 0, 0, parts, part)
        self._current = None
        self._pending.clear()
        if self._timeline is not None:
            self._timeline.reset(self._parts, self._part)
        while self._samples < position:
            if self.read_sequences(position - self._samples, assemble=False)[0] is None:
                break
        self._adopt_partitioning(*wanted)

    def get_checkpoint_state(self):
        """The reading position as a dict of plain numbers (for :meth:`restore_from_checkpoint`)."""
        state = self.get_plain_state()
        state['minibatchSourcePosition'] = self._samples  # CNTK's state: the samples read so far
        if self._assembled:
            state['image_draws'] = dict(engines=[d.draw_state() for _, d in self._assembled],
                                        last_request=self._last_request)
        return state

    def restore_from_checkpoint(self, checkpoint):
        """Continue reading from a position returned by :meth:`get_checkpoint_state`."""
        self.set_plain_state(checkpoint)
        self._reposition()
        if self._truncation is not None:
            self._truncation.reset()
        if self._assembled and isinstance(checkpoint, dict) and 'image_draws' in checkpoint:
            draws = checkpoint['image_draws']
            for (_, d), state in zip(self._assembled, draws['engines']):
                d.set_draw_state(state)
            self._last_request = None if draws['last_request'] is None else tuple(draws['last_request'])

    @property
    def current_position(self):
        """The reading position (get: a dict as from get_checkpoint_state; set: restore it)."""
        return self.get_checkpoint_state()

    @current_position.setter
    def current_position(self, position):
        self.restore_from_checkpoint(position)

    # ------------------------------------------------------------------ reading
    def _order_length(self, sweep):
        key = (sweep, self._parts, self._part)
        if key not in self._orders:
            self._orders = {key: len(self._planner.chunk_order(sweep, self._parts, self._part)[0])}
        return self._orders[key]

    def _submit(self, sweep, start, offset):
        key = (sweep, start, self._parts, self._part, offset)
        if key not in self._pending:
            self._pending[key] = self._executor.submit(self._planner.load, *key)
        return key

    def _block(self):
        offset = self._count % self._parts if self._planner.deals_out(self._parts) else 0
        key = (self._sweep, self._start, self._parts, self._part, offset)
        if self._current is None or self._current[0] != key:
            self._submit(self._sweep, self._start, offset)
            block = self._pending.pop(key).result()
            self._pending.clear()
            self._current = (key, block)
            nxt_sweep, nxt_start = self._sweep, self._start + block.num_chunks
            if nxt_start >= self._order_length(self._sweep):
                nxt_sweep, nxt_start = nxt_sweep + 1, 0
            if nxt_sweep < self._max_sweeps:
                self._submit(nxt_sweep, nxt_start,
                             (self._count + len(block.window_ends)) % self._parts if block.decimated else 0)
        return self._current[1]

    def _passed_in_window(self, block):
        """The samples of the current block (all workers') that the reading has passed."""
        if self._window_samples is None:
            self._window_samples = int(block.global_ends[self._pos - 1]) if self._pos else 0
        return self._window_samples

    def _reposition(self):
        """CNTK 2.7 repositions its reader at the samples read so far when it drops the minibatch it read ahead
        (asked for another size) or restores a checkpoint: where sequences are dealt out, the running count
        then restarts at the index of the next sequence in its sweep."""
        if self._timeline is not None or self._sweep >= self._max_sweeps or not self._planner.deals_out(self._parts):
            return
        block = self._block()
        passed = int(np.searchsorted(block.window_ends, self._passed_in_window(block), side='right'))
        self._count = self._sweep_sequences
        if passed == len(block.window_ends) and self._start + block.num_chunks >= self._order_length(self._sweep):
            self._count = -passed   # at the end of the sweep: the next one starts at 0
        self._pos = int(np.searchsorted(self._block().mine, passed))

    def _adopt_partitioning(self, parts, part):
        if (parts, part) == (self._parts, self._part):
            return
        if self._timeline is not None:
            self._timeline.reset(parts, part)
            self._samples, self._parts, self._part = 0, parts, part
            return
        if self._parts == 1 and self._planner.deals_out(parts):
            # the position read so far (all sequences, in order) is where CNTK's sequences are dealt out from, as
            # after restoring {'minibatchSourcePosition': n}
            if self._sweep < self._max_sweeps:
                self._passed_in_window(self._block())
            self._parts, self._part = parts, part
            self._current = None
            self._pending.clear()
            self._reposition()
            return
        if (self._start, self._pos) != (0, 0):
            warnings.warn('data partitioning changed in the middle of a sweep; continuing with the next sweep')
            self._sweep += 1
        self._set_state(self._sweep, 0, 0, self._samples, parts, part)
        self._current = None
        self._pending.clear()

    def read_sequences(self, target, assemble=True):
        """Whole sequences of about ``target`` samples (at least one) at the current position:
        (stream name -> SequenceData, whether the sweep ended), or (None, False) past the end. Without
        ``assemble`` the streams that their deserializer finishes stay unfinished (and draw nothing)."""
        if self._timeline is not None:
            streams, sweep_end = self._timeline.read(target)
            self._samples = self._timeline.samples
            return streams, sweep_end
        segments, count, sweep_end = [], 0, False
        empty = 0  # blocks passed in a row without a sequence of this worker's
        while self._samples < self._max_samples and self._sweep < self._max_sweeps:
            block = self._block()
            last_of_sweep = self._start + block.num_chunks >= self._order_length(self._sweep)
            if self._pos >= len(block):
                empty = 0 if len(block) else empty + 1
                if empty > self._order_length(self._sweep):
                    break  # a whole sweep has nothing for this worker (fewer chunks than workers): no data
                # the window's base plus all of its samples, the other workers' after this one's last included
                passed = block.global_total - self._passed_in_window(block)
                self._samples += passed
                if block.decimated and passed and last_of_sweep:
                    sweep_end = True    # as CNTK: passing the sweep's last sequence, another worker's
                self._count += len(block.window_ends)
                if last_of_sweep:
                    self._sweep, self._start, self._sweep_sequences = self._sweep + 1, 0, 0
                else:
                    self._start += block.num_chunks
                    self._sweep_sequences += len(block.window_ends)
                self._pos, self._window_samples = 0, 0
                continue
            # this worker's samples fill its share of the minibatch; max_samples counts all workers' samples,
            # and self._samples is the window's base plus all of its samples that the reading has passed
            ends = block.ends[self._pos:]
            before = int(block.ends[self._pos - 1]) if self._pos else 0
            base = self._samples - self._passed_in_window(block)
            k = min(int(np.searchsorted(ends, before + target - count, side='right')),
                    # as CNTK 2.7: a sequence that starts before max_samples is read (the last may cross it)
                    int(np.searchsorted(base + block.global_starts[self._pos:], self._max_samples, side='left')))
            if k == 0 and not segments and base + int(block.global_starts[self._pos]) < self._max_samples:
                k = 1
            if k:
                segments.append((block, self._pos, self._pos + k))
                count += int(ends[k - 1]) - before
                self._pos += k
                self._window_samples = int(block.global_ends[self._pos - 1])
                self._samples = base + self._window_samples
                if self._pos == len(block) and last_of_sweep and \
                        (not block.decimated or self._window_samples == block.global_total):
                    sweep_end = True
            if block.decimated and count >= target:
                break   # as CNTK: its share is full, the other workers' sequences after it are passed next time
            if k < len(ends):
                if block.decimated:
                    # as CNTK, the other workers' sequences before this worker's next one (too long) are passed
                    self._window_samples = int(block.global_starts[self._pos])
                    self._samples = base + self._window_samples
                break
        if not segments:
            return None, False
        streams = {si.m_name: SequenceData.concat([b.streams[si.m_name].slice(lo, hi) for b, lo, hi in segments])
                   for si in self._infos}
        if assemble:
            for name, d in self._assembled:
                streams[name] = SequenceData(d.assemble(name, streams[name].rows), streams[name].offsets)
        return streams, sweep_end

    def _discard_prefetched(self, request):
        """CNTK 2.7 reads the next minibatch ahead with the size of the last one; asked for another size, it
        drops that minibatch and reads again from the same position. The dropped minibatch's random transforms
        have drawn all the same: so here."""
        if self._last_request is None or self._last_request == request:
            return
        size, parts, part = self._last_request
        names = ('_sweep', '_start', '_pos', '_samples', '_count', '_sweep_sequences', '_window_samples')
        position = [getattr(self, name) for name in names]
        self.read_sequences(_partition_share(size, parts, part))
        for name, value in zip(names, position):
            setattr(self, name, value)

    def is_infinite(self):
        """True when neither max_samples nor max_sweeps limits the source."""
        return self._max_samples == INFINITELY_REPEAT and self._max_sweeps == INFINITELY_REPEAT

    def get_next_minibatch(self, minibatch_size_in_sequences, minibatch_size_in_samples, *workers_and_device):
        """CNTK's native method under next_minibatch, which scripts call too: ``(sequences, samples[,
        number_of_workers, worker_rank][, device])`` -> {StreamInformation: MinibatchData}. As in CNTK 2.7, a
        size in sequences is refused (RuntimeError) and arguments of the wrong number or type raise
        NotImplementedError, as its native overloads do."""
        extra = len(workers_and_device)
        workers = workers_and_device[:2] if extra >= 2 else ()
        device = workers_and_device[2:] if extra >= 2 else workers_and_device
        sizes = (minibatch_size_in_sequences, minibatch_size_in_samples) + workers
        if extra > 3 or not all(_is_size_t(n) for n in sizes) or \
                any(d is not None and not isinstance(d, DeviceDescriptor) for d in device):
            raise NotImplementedError("Wrong number or type of arguments for overloaded function "
                                      "'MinibatchSource_get_next_minibatch'.")
        if device and device[0] is None:
            raise ValueError("invalid null reference in method 'MinibatchSource_get_next_minibatch', argument %d of "
                             "type 'CNTK::DeviceDescriptor const &'" % (len(sizes) + 2))
        if minibatch_size_in_sequences:
            raise announced(RuntimeError, "GetNextMinibatch: Specifying minibatch size in #sequences is currently "
                            "unsupported")
        return self.next_minibatch(minibatch_size_in_samples, None, device[0] if device else None, *workers)

    def next_minibatch(self, minibatch_size_in_samples, input_map=None, device=None, num_data_partitions=None,
                       partition_index=None):
        """Read the next minibatch of about ``minibatch_size_in_samples`` samples (at least one sequence).

        Returns a dict :class:`StreamInformation` -> :class:`MinibatchData`, or, with ``input_map``
        (key -> StreamInformation), a dict key -> MinibatchData; an empty dict once the configured
        number of samples/sweeps has been read.  With ``num_data_partitions`` each partition receives
        its share of the minibatch and disjoint data; together they read every sequence of a sweep.
        The data stays in host memory; ``device`` is where it will be placed when it is fed.

        As in CNTK 2.7, the dict a call with ``input_map`` returned is emptied by the next call (CNTK frees
        that minibatch's data then), so a script that reads it after fetching another minibatch finds it
        empty.
        """
        if self._last_mb_data is not None:
            self._last_mb_data.clear()
        arguments = (minibatch_size_in_samples, num_data_partitions, partition_index)
        if not all(_is_size_t(a) for a in arguments if a is not None) or minibatch_size_in_samples is None:
            # CNTK 2.7 hands them to SWIG as size_t: Python ints (bools too) and nothing else
            raise NotImplementedError("Wrong number or type of arguments for overloaded function "
                                      "'MinibatchSource_get_next_minibatch'. (next_minibatch: minibatch_size_in_samples"
                                      "=%r, num_data_partitions=%r, partition_index=%r; each must be a non-negative "
                                      "int)" % arguments)
        if minibatch_size_in_samples == 0:
            raise announced(ValueError, 'GetNextMinibatch: Requested minibatch size must be > 0.\n\n(cntk-compat: '
                                        'next_minibatch: minibatch_size_in_samples=0)')
        if self._max_samples == 0 or self._max_sweeps == 0:
            raise ReaderError('Epoch size cannot be 0.')   # CNTK 2.7 fails on every call
        parts = 1 if num_data_partitions is None else int(num_data_partitions)
        part = 0 if partition_index is None else int(partition_index)
        if not 0 <= part < parts:
            raise ValueError('partition_index %d is outside [0, %d)' % (part, parts))
        target = _partition_share(int(minibatch_size_in_samples), parts, part)
        request = (int(minibatch_size_in_samples), parts, part)
        if self._refused_from is not None:
            # CNTK 2.7 read the refused minibatch past its data; asked for another size, it reads again from the
            # last minibatch it delivered
            if request != self._last_request:
                self.set_plain_state(self._refused_from)
            self._refused_from = None
        if self._assembled and self._truncation is None:
            self._discard_prefetched((int(minibatch_size_in_samples), parts, part))
        self._adopt_partitioning(parts, part)
        if self._last_request is not None and self._last_request[0] != minibatch_size_in_samples:
            self._reposition()   # CNTK drops the minibatch it read ahead with the last size
        if minibatch_size_in_samples < parts and part >= minibatch_size_in_samples and not self._warned_share:
            self._warned_share = True  # CNTK 2.7's warning, once per source
            sys.stderr.write("WARNING: The minibatch size '%d' is too small to be used with %d workers, adjusting "
                             "to minibatch size of 1 sample per worker\n" % (minibatch_size_in_samples, parts))
        layout = {}
        if self._truncation is not None:
            pieces = self._truncation.next(int(minibatch_size_in_samples), parts, part)
            if pieces is None:
                return {}
            streams, sweep_end, starts, slots, num_slots = pieces
            layout = dict(starts=starts, slots=slots, steps=self._truncation.length, num_slots=num_slots)
        else:
            before = self.get_plain_state() if self._frames_checked else None
            streams, sweep_end = self.read_sequences(target)
        if streams is None:
            return {}
        if self._frames_checked:
            try:
                _check_frames(streams, self._infos)
            except RuntimeError:
                self._refused_from, self._last_request = before, request
                raise
        self._last_request = request
        result = {}
        for si in self._infos:
            data = streams[si.m_name]
            batch = ReaderBatch(data, si.sample_shape, si.dtype, si.is_sparse, **layout)
            result[si] = MinibatchData(batch, len(data), data.rows.shape[0], sweep_end)
        if input_map:
            self._last_mb_data = {key: result[self.stream_info(s) if isinstance(s, str) else s]
                                  for key, s in input_map.items()}
            return self._last_mb_data
        return result
