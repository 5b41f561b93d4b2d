"""The interface every source-toolkit adapter implements."""
from abc import ABCMeta, abstractmethod


class Adapter(object, metaclass=ABCMeta):
    """Reads a foreign model into a :class:`~..unimodel.cntkmodel.CntkModelDescription`."""

    def __init__(self):
        return

    @abstractmethod
    def load_model(self, global_conf):
        """Read the network and weights named by ``global_conf.source_solver``; return the uniform model."""
