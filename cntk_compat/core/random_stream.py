"""The random state of a random node (dropout, the samplers), with CNTK's seed + offset semantics.

As CNTK's RngUser, a random node has two attributes: ``rngSeed`` (given, or picked automatically when the node
is made) and ``rngOffset``, the count of random values the node has drawn so far. Each draw of ``count`` values
uses a generator seeded from the pair (rngSeed, rngOffset) and then advances rngOffset by ``count``, so the pair
is the node's whole random state: a checkpoint that stores it, a saved model (whose attributes hold it) and a
clone continue exactly where the node was. Draws are reproducible per device, not across CPU and GPU.

The RandomStream module is owned by the node (so it survives across the lowered modules cached for different
input signatures) and shares the node's attribute dict, where ``set_attribute('rngSeed', s)`` restarts it; a
lowered module holds it as a submodule, which makes ``torch_module()`` self-contained. It has no parameters or
buffers, so state_dict() is unchanged by it.
"""
import torch

from .cntk_rng import EngineStream, boost_uniform01
from .graph import node_inputs_and_body, walk

_MASK64 = (1 << 64) - 1


def _mix(seed, offset):
    """A 63-bit generator seed from (seed, offset): splitmix64 of their combination."""
    z = (int(seed) * 0x9E3779B97F4A7C15 + int(offset) + 0x632BE59BD9B4E019) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) >> 1


def _signed(c):
    return c - (1 << 64) if c >= 1 << 63 else c


def _shift_right(z, k):
    """Logical right shift of int64 tensors (torch's >> keeps the sign)."""
    return (z >> k) & ((1 << (64 - k)) - 1)


_GAMMA, _M1, _M2 = _signed(0x9E3779B97F4A7C15), _signed(0xBF58476D1CE4E5B9), _signed(0x94D049BB133111EB)


def counter_uniforms(seed, offset, count):
    """float64 uniforms in [0, 1): splitmix64 of positions offset ... offset + count - 1 of the stream ``seed``
    (int64 arithmetic wraps around, as splitmix64 needs)."""
    z = torch.arange(offset + 1, offset + count + 1, dtype=torch.int64) * _GAMMA + _signed(_mix(seed, 0))
    z = (z ^ _shift_right(z, 30)) * _M1
    z = (z ^ _shift_right(z, 27)) * _M2
    z = z ^ _shift_right(z, 31)
    return _shift_right(z, 11).to(torch.float64) * (2.0 ** -53)


class RandomStream(torch.nn.Module):
    def __init__(self, attributes, description):
        super(RandomStream, self).__init__()
        self.attributes = attributes  # the node's own dict: rngSeed, rngOffset
        self.description = description

    def generator(self, count, device="cpu"):
        """A generator on ``device`` placed at this node's (rngSeed, rngOffset); rngOffset advances by ``count``
        (the number of values the caller draws)."""
        seed = int(self.attributes["rngSeed"])
        offset = int(self.attributes.get("rngOffset", 0))
        self.attributes["rngOffset"] = offset + int(count)
        return torch.Generator(device=device).manual_seed(_mix(seed, offset))

    def uniform(self, count):
        """``count`` float64 values in [0, 1) on the CPU: the node's counter-based stream at positions
        rngOffset ... rngOffset + count - 1 (each a hash of the seed and its position), which then advances."""
        seed = int(self.attributes["rngSeed"])
        offset = int(self.attributes.get("rngOffset", 0))
        self.attributes["rngOffset"] = offset + int(count)
        return counter_uniforms(seed, offset, count)

    def cntk_uniform(self, count, dtype):
        """``count`` numpy values in [0, 1) of element type ``dtype`` exactly as CNTK's CPU random nodes draw them:
        Boost's uniform_real_distribution over one ``std::mt19937_64`` engine seeded with rngSeed, which goes
        on from call to call (a node placed at rngOffset = k starts k draws into the stream); rngOffset
        advances by ``count``."""
        seed = int(self.attributes["rngSeed"])
        offset = int(self.attributes.get("rngOffset", 0))
        engine = getattr(self, "_engine", None)
        if engine is None or self._engine_at != (seed, offset):
            engine = self._engine = EngineStream(seed, discard=offset)
        values = boost_uniform01(engine, count, dtype)
        self.attributes["rngOffset"] = offset + int(count)
        self._engine_at = (seed, offset + int(count))
        return values

    def extra_repr(self):
        return "%s, rngSeed=%d, rngOffset=%d" % (self.description, self.attributes["rngSeed"],
                                                  self.attributes.get("rngOffset", 0))


def random_stream_of(node):
    """The RandomStream owned by the random node ``node`` (created on first use)."""
    stream = node._random_stream
    if stream is None:
        node._attributes.setdefault("rngOffset", 0)
        stream = RandomStream(node._attributes, "%s%s" % (node._op_name, " '%s'" % node._name if node._name else ""))
        node._random_stream = stream
    return stream


def random_nodes(function):
    """The random nodes below ``function``'s outputs (entering blocks), in a fixed order: that of the graph's
    dependency walk, the same in every process that builds or loads the same graph."""
    return [n for n in walk(function.outputs, node_inputs_and_body).nodes if n._op.uses_random]


def random_state(function):
    """[(op name, rngSeed, rngOffset)] of the random nodes of ``function``, for a checkpoint."""
    return [[n._op.name, int(n._attributes["rngSeed"]), int(n._attributes.get("rngOffset", 0))]
            for n in random_nodes(function)]


def set_random_state(function, state, where):
    nodes = random_nodes(function)
    if len(nodes) != len(state):
        raise ValueError("%s holds the state of %d random nodes (dropout, samplers), the model has %d"
                         % (where, len(state), len(nodes)))
    for node, (op, seed, offset) in zip(nodes, state):
        if node._op.name != op:
            raise ValueError("%s holds the random state of a %s where the model has a %s" % (where, op, node._op.name))
    for node, (op, seed, offset) in zip(nodes, state):
        node._attributes["rngSeed"] = int(seed)
        node._attributes["rngOffset"] = int(offset)
