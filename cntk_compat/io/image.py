"""ImageDeserializer and Base64ImageDeserializer.

Images are decoded with PIL, held as HWC in BGR channel order (as OpenCV loads them), transformed,
and handed out as CHW float32 with values 0..255 (minus the mean, if a mean transform is given).
Labels are one-hot sparse vectors.  Random transforms draw CNTK 2.7's numbers (``_image_draws``): they depend
on the image's position in the minibatch, so the transforms from the first random one on are applied when a
minibatch is assembled (``assemble``); until then the blocks hold the images decoded.
"""
import base64
import concurrent.futures
import io
import os
import sys

import numpy as np
import scipy.sparse as sp
from PIL import Image

from ..core.native_errors import native_entry_point
from . import _image_draws, _image_ops
from ._deserializer import Chunk, Deserializer
from ._sequences import SequenceData
from .transforms import check_crop, transform_config

# CNTK 2.7's image deserializer makes every image a chunk of its own: the block randomizer then shuffles
# images (chunks) and draws sequences within windows of 128 of them, an order reproduced exactly here
IMAGES_PER_CHUNK = 1


def _stream_args(streams, who):
    image_name, label_name, num_labels, transforms = None, None, 2, []
    for name, s in streams.items():
        alias = s.get('stream_alias')
        if alias == 'image':
            image_name, transforms = name, list(s.get('transforms') or [])
        elif alias == 'label':
            label_name = name
            num_labels = s.get('dim')
            if num_labels is None:
                raise ValueError("%s: label stream '%s' needs a shape (the number of classes)" % (who, name))
        else:
            raise ValueError("%s: invalid field name '%s', allowed are 'image' and 'label'" % (who, alias))
    if image_name is None:
        raise ValueError("%s: stream name ('image' or 'label') must be specified" % who)
    return image_name, label_name, int(num_labels), transforms


class _ImageBase(Deserializer):
    multithreaded = True
    block_sequences = 256

    def __init__(self, filename, streams):
        super(_ImageBase, self).__init__()
        self.filename = filename
        self._image_name, self._label_name, self._num_labels, self._transforms = _stream_args(streams, self.kind)
        inputs = {self._image_name: dict(transforms=[transform_config(t) for t in self._transforms]
                                         + [dict(type='Transpose')])}
        if self._label_name is not None:
            inputs[self._label_name] = dict(labelDim=self._num_labels)
        self._config.update(type=self.kind, file=filename, input=inputs)
        self._loaded_means, self._map = None, None
        drawing = [i for i, t in enumerate(self._transforms) if _draws(t)]
        # the transforms applied when a minibatch is assembled, and the engines of those that draw
        self._assembled_from = drawing[0] if drawing else len(self._transforms)
        self._engines = {i: _image_draws.PositionEngines() for i in drawing}
        self._streams = None
        self._pool = None

    def report_opening(self):
        for t in self._transforms:
            if t['type'] == 'Crop':
                check_crop(t)

    # the map and mean files are read when the data is first needed (a configuration alone reads nothing)
    def stream_infos(self):
        if self._streams is None:
            self._streams = {self._image_name: dict(shape=self._image_shape(), is_sparse=False)}
            if self._label_name is not None:
                self._streams[self._label_name] = dict(shape=(self._num_labels,), is_sparse=True)
        return super(_ImageBase, self).stream_infos()

    @property
    def _means(self):
        if self._loaded_means is None:
            self._loaded_means = {t.mean_file: _image_ops.load_mean(t.mean_file) for t in self._transforms
                                  if t['type'] == 'Mean'}
        return self._loaded_means

    def _map_columns(self):
        if self._map is None:
            if not os.path.isfile(self.filename):
                raise IOError("%s: map file '%s' does not exist" % (self.kind, self.filename))
            self._map = self._read_map()
        return self._map

    @property
    def _keys(self):
        return self._map_columns()[0]

    @property
    def _sources(self):
        return self._map_columns()[1]

    @property
    def _labels(self):
        return self._map_columns()[2]

    def _read_map(self):
        """The map as CNTK 2.7 reads it: every line (a blank one too) holds its columns; a label is read as C's
        strtoull reads it (leading digits, a minus sign wrapping around 2**64); a bad line is CNTK's RuntimeError."""
        keys, sources, labels = [], [], []
        with open(self.filename, 'rb') as f:
            for number, raw in enumerate(f):
                fields = raw.rstrip(b'\r\n').split(b'\t')
                key = self._key_and_check_columns(fields, number)
                if len(fields) == 3:
                    fields = fields[1:]
                source, label_text = self._source_and_label(fields)
                label = _strtoull(label_text)
                if label is None:
                    raise RuntimeError(self._unparsable_label(number, key))
                if self._label_name is not None and label >= self._num_labels:
                    raise RuntimeError(self._label_out_of_range(number, key, source, label))
                keys.append(key)
                sources.append(source)
                labels.append(label if label < 2 ** 63 else -1)   # unread without a label stream
        if not keys:
            raise ValueError("%s: map file '%s' is empty" % (self.kind, self.filename))
        key_array = np.empty(len(keys), dtype=object) if any(isinstance(k, str) or k >= 2 ** 63 for k in keys) \
            else np.empty(len(keys), dtype=np.int64)
        key_array[:] = keys
        return key_array, sources, np.array(labels, np.int64)

    @staticmethod
    def _sequence_key(text, number):
        text = text.decode('utf-8').strip()
        return int(text) if text.isdigit() else text

    def _image_shape(self):
        for t in reversed(self._transforms):
            if t['type'] == 'Scale':
                return (t.channels, t.height, t.width)
            if t['type'] == 'Crop':     # the size after a crop is known once an image went through it
                break
        engines = {i: _image_draws.Engine(0) for i in self._engines}     # a trial: the minibatches' engines stay
        return self._transform(self._load(0, quiet=True), self._assembled_from, engines, quiet=True).shape

    def _load(self, i, quiet=False):
        """Image i decoded (HWC, BGR) and put through the transforms before the first random one."""
        try:
            with Image.open(self._open(i)) as im:
                im = im.convert('L' if im.mode in ('L', 'I', 'F', '1') else 'RGB')
                img = np.asarray(im)
        except (OSError, ValueError) as e:
            raise IOError("%s: cannot read image %s (sequence %s): %s"
                          % (self.kind, self._describe(i), self._keys[i], e))
        # decoded as OpenCV's imread does by default, which CNTK 2.7 uses: three channels, BGR, whatever the file
        # holds (a grayscale PNG gives three equal channels; alpha is dropped)
        img = np.repeat(img[:, :, None], 3, axis=2) if img.ndim == 2 else img[:, :, ::-1]
        return self._apply(img, 0, self._assembled_from, {}, quiet)

    def _transform(self, img, first, engines, quiet=False):
        """The transforms from ``first`` on, drawing from ``engines`` (transform index -> engine), as CHW float32."""
        img = self._apply(img, first, len(self._transforms), engines, quiet)
        return np.ascontiguousarray(img.transpose(2, 0, 1), dtype=np.float32)

    def _apply(self, img, first, last, engines, quiet):
        for i in range(first, last):
            t = self._transforms[i]
            if t['type'] == 'Crop':
                img = _image_ops.crop(img, t, engines.get(i))
            elif t['type'] == 'Scale':
                img = _image_ops.scale(img, t)
            elif t['type'] == 'Color':
                img = _image_ops.color(img, t, engines.get(i))
            elif t['type'] == 'Mean':
                mean = self._means[t.mean_file]
                if mean.shape[:2] != img.shape[:2]:
                    # CNTK 2.7's MeanTransformer leaves an image of another size as it is, with this warning
                    # for every image it sees
                    if not quiet:
                        sys.stderr.write("WARNING: Mean file does not match the size of the input image, will be "
                                         "ignored.\nPlease remove mean transformation from the config.\n")
                    continue
                if mean.shape != img.shape:
                    raise ValueError("mean file '%s' holds a %s image, the image is %s (HWC) at that point"
                                     % (t.mean_file, mean.shape, img.shape))
                img = img.astype(np.float32) - mean
        return img

    # ------------------------------------------------------------------ random transforms, by position
    def assembled_streams(self):
        """The streams whose minibatches ``assemble`` finishes (the image stream where a transform draws)."""
        return (self._image_name,) if self._engines else ()

    def assemble(self, name, images):
        """The images of a minibatch (decoded, in minibatch order) through the random transforms and the rest, the
        k-th with the k-th engines: the rows of stream ``name``."""
        engines = [dict(zip(self._engines, e)) for e in
                   zip(*[p.upto(len(images)) for p in self._engines.values()])]
        return self._stack(self._map_images(lambda k: self._transform(images[k], self._assembled_from, engines[k]),
                                            range(len(images))))

    def draw_state(self):
        """The engines' checkpoint state: per random transform, the outputs each position has drawn."""
        return [p.get_state() for p in self._engines.values()]

    def set_draw_state(self, state):
        for p, drawn in zip(self._engines.values(), state):
            p.set_state(drawn)

    def _map_images(self, fn, items):
        items = list(items)
        if self.multithreaded and len(items) > 1:
            with self._lock:    # blocks are decoded on the reader's thread, minibatches assembled on the caller's
                if self._pool is None:
                    self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1))
            return list(self._pool.map(fn, items))
        return [fn(i) for i in items]

    def _stack(self, images):
        shapes = {im.shape for im in images}
        if len(shapes) > 1 or shapes.pop() != self.stream_infos()[0].sample_shape:
            raise ValueError('%s: images of different sizes %s; add a scale transform'
                             % (self.kind, sorted({im.shape for im in images})))
        return np.stack(images)

    def num_chunks(self):
        return (len(self._keys) + IMAGES_PER_CHUNK - 1) // IMAGES_PER_CHUNK

    def chunk_sequence_lengths(self, chunk_id):
        # one sample per image: the randomizer need not decode a chunk to learn its size
        return np.ones(min(len(self._keys), (chunk_id + 1) * IMAGES_PER_CHUNK) - chunk_id * IMAGES_PER_CHUNK,
                       np.int64)

    def _streams_for(self, indices):
        if self._engines:   # decoded images, finished when a minibatch is assembled
            rows = np.empty(len(indices), dtype=object)
            rows[:] = self._map_images(self._load, indices)
        else:
            rows = self._stack(self._map_images(lambda i: self._transform(self._load(i), len(self._transforms), {}),
                                                indices))
        ones = np.ones(len(indices), np.int64)
        streams = {self._image_name: SequenceData.from_lengths(rows, ones)}
        if self._label_name is not None:
            labels = sp.csr_matrix((np.ones(len(indices), np.float32), self._labels[indices],
                                    np.arange(len(indices) + 1)), shape=(len(indices), self._num_labels))
            streams[self._label_name] = SequenceData.from_lengths(labels, ones)
        return streams

    def gather_sequences(self, chunk_ids, index, seed):
        # the images of a randomized block, decoded together (on the decoding threads)
        return self._streams_for(np.asarray(chunk_ids, np.int64) * IMAGES_PER_CHUNK + np.asarray(index, np.int64))

    def chunk(self, chunk_id, seed):
        indices = np.arange(chunk_id * IMAGES_PER_CHUNK, min(len(self._keys), (chunk_id + 1) * IMAGES_PER_CHUNK))
        return Chunk(self._keys[indices], self._streams_for(indices))

    def sequences_for_keys(self, keys, seed):
        if self._key_index is None:
            self._key_index = {k: i for i, k in reversed(list(enumerate(self._keys.tolist())))}
        found = np.array([k in self._key_index for k in keys.tolist()], dtype=bool)
        indices = np.array([self._key_index[k] for k in keys[found].tolist()], dtype=np.int64)
        return (self._streams_for(indices) if len(indices) else None), found


def _draws(t):
    if t['type'] == 'Crop':
        return _image_draws.crop_draws(t)
    return t['type'] == 'Color' and max(t.brightness_radius, t.contrast_radius, t.saturation_radius) > 0


class _ImageMap(_ImageBase):
    kind = 'ImageDeserializer'
    _layout = '[sequence id] image path, label'
    _label_field = 0

    def _key_and_check_columns(self, fields, number):
        if len(fields) not in (2, 3) or not all(f.strip() for f in fields):
            raise RuntimeError("Invalid map file format, must contain 2 or 3 tab-delimited columns, line %d in file %s."
                               % (number, self.filename))
        return self._sequence_key(fields[0], number) if len(fields) == 3 else number

    def _unparsable_label(self, number, key):
        return "Cannot parse label value on line %d, second column, in file %s." % (number, self.filename)

    def _label_out_of_range(self, number, key, source, label):
        return ("Image '%s' has invalid class id '%d'. It is exceeding the label dimension of '%d'. Line %d in file "
                "%s." % (source, label, self._num_labels, number, self.filename))

    def _source_and_label(self, fields):
        path = fields[0].decode('utf-8')
        if path.startswith('...'):
            path = os.path.join(os.path.dirname(os.path.abspath(self.filename)), path[3:].lstrip('/\\'))
        return path, fields[1]

    def _describe(self, i):
        return "'%s'" % self._sources[i]

    def _open(self, i):
        return self._sources[i]


class _Base64Images(_ImageBase):
    kind = 'Base64ImageDeserializer'
    _layout = '[sequence id] label, base64 image'
    _label_field = 1

    def _read_map(self):
        # as CNTK 2.7: the first line tells whether lines start with a sequence id (three tab-delimited columns);
        # without one, a line's number is its sequence id
        with open(self.filename, 'rb') as f:
            self._keyed = f.readline().count(b'\t') >= 2
        return super(_Base64Images, self)._read_map()

    def _key_and_check_columns(self, fields, number):
        # lines [<sequence id> <tab>] <label> <tab> <base64 image>
        if not self._keyed:
            if len(fields) < 2:
                raise RuntimeError(self._unparsable_label(number, number) if _strtoull(fields[0]) is None else
                                   self._no_data(number))
            return number
        key = self._sequence_key(fields[0], number)
        if len(fields) < 2:
            raise RuntimeError("Empty label value for sequence '%s' in the input file '%s'" % (key, self.filename))
        if len(fields) == 2:
            raise RuntimeError(self._unparsable_label(number, key) if _strtoull(fields[1]) is None else
                               self._no_data(key))
        if len(fields) > 3:
            raise RuntimeError("Cannot decode sequence with id %s in the input file '%s': more than 3 tab-delimited "
                               "columns" % (key, self.filename))
        return key

    def _no_data(self, key):
        return "No data found for sequence '%s' in the input file '%s'" % (key, self.filename)

    def _unparsable_label(self, number, key):
        return "Cannot parse label value for sequence '%s' in the input file '%s'" % (key, self.filename)

    def _label_out_of_range(self, number, key, source, label):
        return "Image with id '%s' has invalid class id '%d'. It is exceeding the label dimension of '%d'" \
            % (key, label, self._num_labels)

    def _source_and_label(self, fields):
        return fields[1], fields[0]

    def _describe(self, i):
        return 'number %d of %s' % (i, self.filename)

    def _open(self, i):
        return io.BytesIO(base64.b64decode(self._sources[i]))


def _strtoull(text):
    """A label as CNTK reads it with C's strtoull: blanks, a sign and the leading digits (the rest is ignored: '1.5'
    is 1); a minus sign wraps around 2**64; None when no digit comes first."""
    text = text.decode('utf-8', 'replace').lstrip()
    sign = text[:1] if text[:1] in '+-' else ''
    digits = len(text) - len(sign) - len(text[len(sign):].lstrip('0123456789'))
    if not digits:
        return None
    value = int(text[len(sign):len(sign) + digits])
    return (2 ** 64 - value) % 2 ** 64 if sign == '-' else value


@native_entry_point  # CNTK configures its readers natively: errors carry the call stack
def ImageDeserializer(filename, streams):
    """Reads images listed in a map file with lines ``<image path> <tab> <0-based class id>`` or
    ``<sequence id> <tab> <path> <tab> <class id>``; a path starting with '...' is relative to the map
    file's folder.  ``streams`` has an 'image' field (with ``transforms``) and optionally a 'label' field
    whose shape is the number of classes."""
    return _ImageMap(filename, streams)


@native_entry_point  # CNTK configures its readers natively: errors carry the call stack
def Base64ImageDeserializer(filename, streams):
    """Like :func:`ImageDeserializer`, for lines ``[<sequence id> <tab>] <class id> <tab> <base64 image>``."""
    return _Base64Images(filename, streams)
