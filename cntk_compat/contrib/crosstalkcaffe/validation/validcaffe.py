"""The Caffe side of validation (needs pycaffe)."""
import os
import sys
from abc import ABCMeta, abstractmethod

import numpy as np

from ..adapter.bvlccaffe.caffeimpl import CaffeResolver


class ValidCore(object, metaclass=ABCMeta):
    """Runs the original network on saved inputs and compares with saved CNTK outputs."""

    @staticmethod
    @abstractmethod
    def execute(source_solver, valid_dir):
        """Compare the arrays in ``valid_dir``."""


class CaffeValidCore(ValidCore):
    """Caffe validation: feeds the saved inputs (``<input>.npy``) through the Caffe network and reports, for every
    other saved array (``<blob>.npy``, CNTK's output for that Caffe blob), the RMSE and the largest and smallest
    absolute differences. Without pycaffe it reports that and does nothing."""

    @staticmethod
    def execute(source_solver, valid_dir):
        resolver = CaffeResolver()
        if not resolver.runtime():
            sys.__stdout__.write('No caffe runtime support, ignore validation...\n')
            return
        caffe = resolver.caffe
        sys.__stdout__.write('Start valid feature map...\n')
        net = caffe.Net(source_solver.model_path, source_solver.weights_path, caffe.TEST)
        for name in net.inputs:
            blob = net.blobs[name]
            np.copyto(blob.data, np.load(os.path.join(valid_dir, name + '.npy')).reshape(blob.data.shape))
        net.forward()
        for file_name in sorted(os.listdir(valid_dir)):
            blob_name = os.path.splitext(file_name)[0]
            if blob_name in net.inputs:
                continue
            expected = np.load(os.path.join(valid_dir, file_name)).reshape(-1)
            difference = np.abs(expected - net.blobs[blob_name].data.reshape(-1))
            rmse = np.sqrt(np.square(difference).sum() / expected.size)
            sys.__stdout__.write('Validating Node: %s\n \nRMSE = %s, MAX Error = %s, MIN Error = %s\n'
                                 % (blob_name, rmse, difference.max(), difference.min()))
            sys.__stdout__.write('Average Value = %f, Maximum Value = %f, Minimum Value = %f\n'
                                 % (expected.mean(), expected.max(), expected.min()))
        sys.__stdout__.write('Validation finished...\n')
        sys.__stdout__.flush()
