"""Validation driver: evaluates chosen CNTK nodes on chosen inputs and saves both for the source-side check."""
import os
import sys

import numpy as np

from . import validcaffe

VALID_CORES = {
    'Caffe': validcaffe.CaffeValidCore(),
}


def _array_path(folder, node_name):
    return os.path.join(folder, (node_name + '.npy').replace('\\', '.').replace('/', '.'))


class Validator(object):
    """Validation of a converted network, configured by ``global_conf.valid_solver``: ``val_inputs`` maps input
    names to ``[[low, high]]`` (uniform random values in [0, high - low)) or ``[values]``; ``val_nodes`` maps CNTK
    node names to the Caffe blob names their outputs are saved under."""

    def __init__(self, global_conf, functions):
        self._source_solver = global_conf.source_solver
        self._valid_solver = global_conf.valid_solver
        self._functions = functions

    def val_network(self):
        """Evaluate the watched nodes on the configured inputs and save inputs and outputs as ``.npy`` files in
        ``save_path`` (created if needed). Returns False, doing nothing, when no ``save_path`` is configured."""
        settings = self._valid_solver
        if settings.save_path is None:
            sys.stdout.write('ignore validation network...\n')
            return False
        if not os.path.exists(settings.save_path):
            os.mkdir(settings.save_path)
        inputs = [f for name, f in self._functions.items() if name in settings.val_inputs]
        nodes = [f for name, f in self._functions.items() if name in settings.val_nodes]

        feeds = {}
        for variable in inputs:
            spec = settings.val_inputs[variable.name][0]
            if len(spec) == 2:
                low, high = spec
                values = (high - low) * np.random.random_sample((1,) + variable.shape)
            else:
                values = np.array(spec).reshape((1,) + variable.shape)
            feeds[variable.name] = values.astype(np.float32)
            np.save(_array_path(settings.save_path, variable.name), values)
        for node in nodes:
            arguments = dict((argument, feeds[argument.name]) for argument in node.arguments)
            _, outputs = node.forward(arguments)
            np.save(_array_path(settings.save_path, settings.val_nodes[node.name]), list(outputs.values())[0])
        return True

    def activate(self):
        """Run the source toolkit's side of the comparison."""
        VALID_CORES[self._source_solver.source].execute(self._source_solver, self._valid_solver.save_path)
