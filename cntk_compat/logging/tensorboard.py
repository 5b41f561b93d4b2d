"""TensorBoardProgressWriter: training statistics as TensorBoard event files, written as CNTK 2.7 writes them.

CNTK 2.7's ``TensorBoardFileWriter`` creates ``<log_dir>/events.out.tfevents.<10-digit time>.<host name>`` at the
first record it writes, starts it with the version record and, when a model was given, the model's graph (a
GraphDef: a node per primitive function named by its name or uid with '.' turned into '-', op its op name; a
node per leaf variable, op 'Input', 'Parameter' or 'Const'; blocks as name scopes, placeholders replaced by what
they stand for; attributes dtype, shape and _output_shapes in CNTK's (reversed) dimension order), then one
Summary record per value. Records are written at once (CNTK's buffered fwrite); the file is flushed by
``flush``/``close`` and when the writer goes away or the program ends.
"""
import os
import socket
import sys
import time
import weakref

import numpy as np

from .progress_writer import ProgressWriter, average

__all__ = ["TensorBoardProgressWriter"]

_DT = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.float16): 19}   # DT_FLOAT, DT_DOUBLE, DT_HALF


def _node_name(obj):
    return (obj.name or obj.uid).replace('.', '-')


def _scoped(scope, obj):
    return _node_name(obj) if not scope else scope + '/' + _node_name(obj)


def _fill_node(node, name, op, dtype, shapes):
    node.name, node.op = name, op
    node.attr['dtype'].type = _DT.get(np.dtype(dtype), 1)
    for shape in shapes:
        dims = node.attr['_output_shapes'].list.shape.add()
        for d in reversed(tuple(shape)):
            dims.dim.add().size = int(d)
    for d in reversed(tuple(shapes[0])):
        node.attr['shape'].shape.dim.add().size = int(d)


def model_graph(model):
    """The GraphDef CNTK 2.7 writes for ``model`` (see the module docstring)."""
    from tensorboard.compat.proto import graph_pb2
    from ..core.graph import node_inputs_native_order
    graph = graph_pb2.GraphDef()
    functions, variables, placeholders, placeholder_inputs = {}, {}, [], {}

    def variable_node(var, scope):
        if var.uid in variables:
            return variables[var.uid]
        if var.is_output:
            return function_node(var.owner, scope)
        node = graph.node.add()
        op = 'Const' if var.is_constant else ('Input' if var.is_input else
                                              'Parameter' if var.is_parameter else 'Placeholder')
        _fill_node(node, _scoped(scope, var), op, var.dtype, [var.shape])
        variables[var.uid] = node
        return node

    def function_node(fn, scope):
        if fn.uid in functions:
            return functions[fn.uid]
        if fn.is_block:
            node = function_node(fn.block_root, _scoped(scope, fn))
            inputs = list(fn.inputs)
        else:
            node = graph.node.add()
            outputs = list(fn.outputs)
            _fill_node(node, _scoped(scope, fn), fn.op_name, outputs[0].dtype, [o.shape for o in outputs])
            inputs = list(node_inputs_native_order(fn))
        functions[fn.uid] = node
        for var in inputs:
            input_node = None if var.is_placeholder else variable_node(var, scope)
            if not fn.is_block:
                if input_node is not None:
                    node.input.append(input_node.name)
                else:
                    placeholders.append((node, var, scope))
        if fn.is_block:
            for inner, outer in fn.block_arguments_mapping:
                placeholder_inputs[inner.uid] = (outer, scope)
        return node

    function_node(model.root_function, '')
    for node, var, scope in placeholders:
        while var.uid in placeholder_inputs:
            var, scope = placeholder_inputs[var.uid]
        node.input.append(variable_node(var, scope).name)
    return graph


class _EventFile(object):
    """One event file, created at the first record."""

    def __init__(self, log_dir, model):
        self._dir, self._model = log_dir, model
        self._file = self._records = None
        self._finalizer = None

    def _open(self):
        from tensorboard.compat.proto import event_pb2
        from tensorboard.summary.writer.record_writer import RecordWriter
        now = int(time.time())
        path = os.path.join(self._dir, 'events.out.tfevents.%010d.%s' % (now, socket.gethostname()))
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        self._file = open(path, 'wb')
        self._finalizer = weakref.finalize(self, self._file.close)
        self._records = RecordWriter(self._file)
        self._records.write(event_pb2.Event(wall_time=float(now), file_version='brain.Event:2').SerializeToString())
        if self._model is not None:
            graph = model_graph(self._model)
            self._records.write(event_pb2.Event(wall_time=float(now),
                                                graph_def=graph.SerializeToString()).SerializeToString())
        self._file.flush()

    def write(self, event):
        if self._file is None:
            self._open()
        self._records.write(event.SerializeToString())

    def add_scalar(self, tag, value, step):
        from tensorboard.compat.proto import event_pb2, summary_pb2
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
        self.write(event_pb2.Event(step=step, wall_time=float(int(time.time())), summary=summary))

    def add_images(self, tag, images, step):
        from tensorboard.compat.proto import event_pb2
        from torch.utils.tensorboard.summary import image
        self.write(event_pb2.Event(step=step, wall_time=float(int(time.time())),
                                   summary=image(tag, images, dataformats='NCHW')))

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._finalizer()
            self._file = None


class TensorBoardProgressWriter(ProgressWriter):
    """Writes loss and metric to TensorBoard event files, for the scalars

    * ``minibatch/avg_loss``, ``minibatch/avg_metric`` every ``freq`` training minibatches (step: the number of
      training minibatches so far),
    * ``summary/avg_loss``, ``summary/avg_metric`` at each training summary (step: the epoch number),
    * ``minibatch/test_avg_metric`` (step: training minibatches) or, before any training,
      ``summary/test_avg_metric`` (step: the evaluation number) at each test summary,

    and, when ``model`` is given, the model's graph (as CNTK 2.7: no parameter histograms).

    Args:
        freq (int or None): write every ``freq`` training minibatches (None: only summaries).
        log_dir (str): directory of the event file.
        rank (int or None): the worker rank in distributed training; only rank 0 (or None) writes.
        model (Function or None): model whose graph is written.
    """

    def __init__(self, freq=None, log_dir='.', rank=None, model=None):
        if freq is None:
            freq = sys.maxsize
        super(TensorBoardProgressWriter, self).__init__(freq, 0, sys.maxsize, 0, sys.maxsize, 0)
        self.writer = None
        if not rank:
            self.writer = _EventFile(log_dir, model)
        self.model = model
        self.closed = False

    def _check_open(self):
        if self.closed:
            raise RuntimeError('Attempting to use a closed TensorBoardProgressWriter')

    def write_value(self, name, value, step):
        """Records the scalar ``value`` of ``name`` at time ``step``."""
        self._check_open()
        if self.writer is not None:
            self.writer.add_scalar(str(name), float(value), int(step))

    def write_image(self, name, data, step):
        """Records images: ``data`` maps a variable to a batch of shape (N, channels, height, width), with float
        values in [0, 1] or uint8 values in [0, 255]."""
        self._check_open()
        if self.writer is not None:
            for batch in data.values():
                images = np.asarray(batch.asarray() if hasattr(batch, "asarray") else batch)
                if images.ndim == 3:
                    images = images[:, None]
                self.writer.add_images(str(name), images, int(step))

    def flush(self):
        """Writes any pending records to disk."""
        self._check_open()
        if self.writer is not None:
            self.writer.flush()

    def close(self):
        """Flushes and closes the event file; any later use raises RuntimeError."""
        self._check_open()
        if self.writer is not None:
            self.writer.close()
        self.closed = True

    def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
        step = self.total_training_updates()
        if aggregate_loss is not None:
            self.write_value('minibatch/avg_loss', average(aggregate_loss, samples), step)
        if aggregate_metric is not None:
            self.write_value('minibatch/avg_metric', average(aggregate_metric, samples), step)

    def on_write_test_update(self, samples, updates, aggregate_metric):
        raise NotImplementedError(
            'TensorBoardProgressWriter does not support recording per-minibatch cross-validation results')

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                  elapsed_milliseconds):
        if aggregate_loss is not None:
            self.write_value('summary/avg_loss', average(aggregate_loss, samples), summaries)
        if aggregate_metric is not None:
            self.write_value('summary/avg_metric', average(aggregate_metric, samples), summaries)

    def on_write_test_summary(self, samples, updates, summaries, aggregate_metric, elapsed_milliseconds):
        if aggregate_metric is None:
            return
        avg_metric = average(aggregate_metric, samples)
        if self.total_training_updates() != 0:
            self.write_value('minibatch/test_avg_metric', avg_metric, self.total_training_updates())
        else:
            self.write_value('summary/test_avg_metric', avg_metric, summaries)
