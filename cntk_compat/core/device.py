"""Devices: CNTK DeviceDescriptors mapped onto torch devices."""
import enum
import os
import sys

import torch

from .native_errors import native_entry_point


class DeviceKind(enum.IntEnum):
    """Equal to the ints CNTK's native layer uses (DeviceDescriptor.type() returns those), printed by name."""
    CPU = 0
    GPU = 1

    __str__ = enum.Enum.__str__


class _DeviceId(int):
    """A device's number, which can also be called as CNTK's DeviceDescriptor.id() is."""

    def __call__(self):
        return int(self)


class DeviceDescriptor(object):
    """A compute device: the CPU or one CUDA GPU."""

    def __init__(self, kind, device_id=0):
        self._kind = kind
        self._id = device_id if kind == DeviceKind.GPU else 0
        self._torch = torch.device("cuda", self._id) if kind == DeviceKind.GPU else torch.device("cpu")

    def type(self):
        """The kind as CNTK 2.7 returns it: a plain int equal to DeviceKind.CPU (0) or DeviceKind.GPU (1)."""
        return int(self._kind)

    @property
    def id(self):
        # CNTK's id() is a method; the number also reads as an attribute (device.id), which code here uses
        return _DeviceId(self._id)

    def is_locked(self):
        return False

    def __call__(self):
        # CNTK's Value.deep_clone() (and NDArrayView's) returns the native SWIG object, whose device is a method:
        # user functions write state.device() on such a clone (CNTK's extensibility examples and docs); here the
        # clone is a cntk.Value whose device is the property, and calling the descriptor gives itself
        return self

    def torch_device(self):
        return self._torch

    def __eq__(self, other):
        return isinstance(other, DeviceDescriptor) and (self._kind, self._id) == (other._kind, other._id)

    def __hash__(self):
        return hash((self._kind, self._id))

    def __repr__(self):
        # CNTK's DeviceDescriptor.as_string(): "CPU", or the GPU's id and CUDA name ("GPU[0] Tesla K80", as its
        # "Selected GPU[0] Tesla K80 as the process wide default device." line and all_devices() show it)
        if self._kind != DeviceKind.GPU:
            return "CPU"
        try:
            return "GPU[%d] %s" % (self._id, torch.cuda.get_device_name(self._id))
        except (RuntimeError, AssertionError, ValueError):  # no such CUDA device here
            return "GPU[%d]" % self._id

    __str__ = __repr__

    def as_string(self):
        return repr(self)

    # the static methods of CNTK's native DeviceDescriptor, which cntk.device's functions wrap
    @staticmethod
    def cpu_device():
        return cpu()

    @staticmethod
    def gpu_device(device_id):
        return gpu(device_id)

    @staticmethod
    def use_default_device():
        return use_default_device()

    @staticmethod
    def all_devices():
        return all_devices()

    @staticmethod
    def try_set_default_device(new_default_device, acquire_device_lock=False):
        # CNTK's end-to-end tests call it on the class (DeviceDescriptor.try_set_default_device(cpu()))
        return try_set_default_device(new_default_device, acquire_device_lock)

    @staticmethod
    def set_excluded_devices(excluded_devices):
        return set_excluded_devices(excluded_devices)

    @staticmethod
    def get_gpu_properties(device):
        return get_gpu_properties(device)


def cpu():
    return DeviceDescriptor(DeviceKind.CPU)


def gpu(device_id):
    # SWIG's check of the native unsigned int, before the native library is reached (so nothing is announced):
    # a Python int (a bool too) from 0 to 2**32 - 1; anything else (floats, strings, numpy integers) is refused
    if not isinstance(device_id, int):
        raise TypeError("in method 'DeviceDescriptor_gpu_device', argument 1 of type 'unsigned int'")
    if not 0 <= device_id <= 0xFFFFFFFF:
        raise OverflowError("in method 'DeviceDescriptor_gpu_device', argument 1 of type 'unsigned int'")
    return _gpu(int(device_id))


@native_entry_point
def _gpu(device_id):
    if not torch.cuda.is_available() or device_id >= torch.cuda.device_count():
        # CNTK 2.7's message first (scripts print it), then what torch sees
        raise ValueError("Specified GPU device id (%d) is invalid.\n\n(cntk-compat: torch sees %d CUDA devices)"
                         % (device_id, torch.cuda.device_count() if torch.cuda.is_available() else 0))
    return DeviceDescriptor(DeviceKind.GPU, device_id)


def all_devices():
    devs = [gpu(i) for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []
    return tuple(devs + [cpu()])     # a tuple, as CNTK's


_default = [None]


def _full_precision_float32():
    """CNTK computed float32 on GPUs in full precision; torch lets cuDNN's convolutions and recurrences round
    their products to TF32 by default (about 1e-3 relative error), which changes the numbers CNTK scripts print.
    Called when a GPU becomes CNTK's default device: where cuDNN's TF32 is still allowed, it computes in IEEE
    float32 from then on (the matrix products already do). A script that wants TF32's speed sets
    ``torch.backends.cudnn.allow_tf32 = True`` after choosing the device."""
    try:
        allowed = torch.backends.cudnn.allow_tf32
    except RuntimeError:        # torch's newer per-operator flags were set: the script has chosen
        return
    if allowed:
        torch.backends.cudnn.allow_tf32 = False


def _make_default(device):
    if device.type() == DeviceKind.GPU:
        _full_precision_float32()
    _default[0] = device


def _local_gpu_id():
    """This worker's GPU under torchrun (LOCAL_RANK), else GPU 0."""
    local_rank = os.environ.get("LOCAL_RANK", "0")
    try:
        return int(local_rank) % torch.cuda.device_count()
    except ValueError:
        raise ValueError("LOCAL_RANK must be an integer, got %r" % local_rank)


_announced = [False]


def use_default_device():
    """The device computations run on: the one set by try_set_default_device, else the best available (under
    torchrun the GPU of the worker's LOCAL_RANK). Its first use in a process says on stderr which device was
    selected, as CNTK's does ("Selected CPU as the process wide default device."), whether it was chosen by
    try_set_default_device or picked here."""
    if _default[0] is None:
        _make_default(gpu(_local_gpu_id()) if torch.cuda.is_available() else cpu())
    if not _announced[0]:
        _announced[0] = True
        sys.stderr.write("Selected %r as the process wide default device.\n" % (_default[0],))
    return _default[0]


def try_set_default_device(new_default_device, acquire_device_lock=False):
    """Makes the device the default and returns True, or returns False (changing nothing) when the device is a
    GPU this process cannot use, or a CPU to be locked (only a GPU can be, as in CNTK)."""
    if new_default_device is None:
        raise ValueError("try_set_default_device: new_default_device must be a DeviceDescriptor, not None")
    if not isinstance(new_default_device, DeviceDescriptor):
        # CNTK's SWIG layer: no overload takes it
        raise NotImplementedError("Wrong number or type of arguments for overloaded function "
                                  "'DeviceDescriptor_try_set_default_device' (got %r)" % (new_default_device,))
    if acquire_device_lock and new_default_device.type() == DeviceKind.CPU:
        return False  # as in CNTK, only a GPU can be locked for this process; the default stays as it was
    if new_default_device.type() == DeviceKind.GPU and \
            not (torch.cuda.is_available() and new_default_device.id < torch.cuda.device_count()):
        return False
    _make_default(new_default_device)
    return True


def set_excluded_devices(excluded_devices):
    return None


class GPUProperties(object):
    """A GPU's properties, with the fields of CNTK's cntk_py.GPUProperties (total_memory in MB)."""

    def __init__(self, device_id, version_major, version_minor, cuda_cores, name, total_memory):
        self.device_id, self.version_major, self.version_minor = device_id, version_major, version_minor
        self.cuda_cores, self.name, self.total_memory = cuda_cores, name, total_memory


@native_entry_point
def get_gpu_properties(device):
    if device.type() != DeviceKind.GPU:
        raise ValueError("GPU properties cannot be obtained for a CPU device.")
    props = torch.cuda.get_device_properties(device.id)
    return GPUProperties(int(device.id), props.major, props.minor, props.multi_processor_count, props.name,
                         props.total_memory // (1 << 20))


def default_torch_device():
    return use_default_device().torch_device()


def resolve(device):
    """A torch.device from a DeviceDescriptor, None (the default) or a torch device."""
    if device is None:
        return default_torch_device()
    if isinstance(device, DeviceDescriptor):
        return device.torch_device()
    return torch.device(device)


def copy_to(tensor, device, dtype=None, users=False):
    """``tensor`` on ``device`` (and ``dtype``). A copy from pageable host memory to a GPU does not wait for the
    GPU: torch's blocking copy synchronizes the stream after it, so the host would stop queuing work at every fed
    minibatch. The copy is staged before the call returns, so the source may change right after. ``users``: the
    tensor may be the user's own, possibly in pinned memory, whose asynchronous copy reads the source later: then
    it is asked (a query of the CUDA driver, about as long as the copy) and pinned memory is copied blocking.
    A tensor already on ``device`` in ``dtype`` is returned as it is, without a call into torch."""
    device = torch.device(device)
    if tensor.device == device and (dtype is None or tensor.dtype == dtype):
        return tensor
    non_blocking = device.type != "cpu" and tensor.device.type == "cpu" and not (users and tensor.is_pinned())
    return tensor.to(device=device, dtype=dtype, non_blocking=non_blocking)
