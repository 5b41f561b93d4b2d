"""The converter's entry point: :meth:`CaffeConverter.from_model`."""
import sys

from . import adapter
from .unimodel import cntkinstance
from .utils import globalconf
from .validation import validcore


class CaffeConverter(object):
    """Converts a Caffe network with its weights into a CNTK model."""

    @staticmethod
    def from_model(conf_path):
        """Convert the model the JSON configuration at ``conf_path`` describes (see
        :mod:`~.utils.globalconf`): read it with the adapter its ``SourceSolver.Source`` names, build the CNTK
        network, save it to ``ModelSolver.CNTKModelPath``, and when ``ValidSolver.SavePath`` is set write the
        validation arrays there (compared against Caffe when pycaffe is installed). Returns None."""
        conf = globalconf.load_conf(conf_path)
        source = conf.source_solver.source
        if source not in adapter.ADAPTER_DICT:
            sys.stderr.write('Platform type not implemented\n')
            raise KeyError('SourceSolver.Source %r: no adapter (known: %s)'
                           % (source, ', '.join(sorted(adapter.ADAPTER_DICT))))
        model_description = adapter.ADAPTER_DICT[source].load_model(conf)

        instance = cntkinstance.CntkApiInstance(model_description, global_conf=conf)
        instance.export_model()

        validator = validcore.Validator(global_conf=conf, functions=instance.get_functions())
        if validator.val_network():
            sys.stdout.write('Start validating model: %s\n' % conf.source_solver.model_path)
            validator.activate()
        else:
            sys.stdout.write('Detect validator disable, ignore validating the network\n')
