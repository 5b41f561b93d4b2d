"""The random state of a random node (dropout, the samplers), with CNTK's seed + offset semantics.

As CNTK's RngUser, a random node has two attributes: ``rngSeed`` (given, or picked automatically when the node
is made) and ``rngOffset``, the count of random values the node has drawn so far. Each draw of ``count`` values
uses a generator seeded from the pair (rngSeed, rngOffset) and then advances rngOffset by ``count``, so the pair
is the node's whole random state: a checkpoint that stores it, a saved model (whose attributes hold it) and a
clone continue exactly where the node was. Dropout and the samplers draw from the node's ``std::mt19937_64``
engine as CNTK 2.7 does on the CPU (``cntk_draw``), whatever the device; ``generator`` gives a torch generator
seeded from (rngSeed, rngOffset) for draws CNTK's numbers are not known for.

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

    def cntk_draw(self, draw):
        """``draw(engine)`` with the node's ``std::mt19937_64`` engine as CNTK's CPU random nodes use it (an
        EngineStream seeded with rngSeed that goes on from call to call); a node placed at rngOffset = k (a
        checkpoint, a clone, a loaded model) starts k draws into the stream, as CNTK's does. rngOffset becomes
        the number of 64-bit draws taken: CNTK counts the elements made, the same for dropout and the uniform
        kinds; for normal samples (which take a little more than one draw each) counting draws is what lets a
        restored node continue exactly where it stood."""
        seed = int(self.attributes["rngSeed"])
        offset = int(self.attributes.get("rngOffset", 0))
        engine = getattr(self, "_engine", None)
        if engine is None or self._engine_at != (seed, offset):
            engine = self._engine = EngineStream(seed, discard=offset)
        values = draw(engine)
        self.attributes["rngOffset"] = engine.position
        self._engine_at = (seed, engine.position)
        return values

    def cntk_uniform(self, count, dtype):
        """``count`` numpy values of Boost's uniform_real_distribution<dtype>(0, 1) over the node's engine."""
        return self.cntk_draw(lambda engine: boost_uniform01(engine, count, dtype))

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


def stream_state(stream):
    """What a RandomStream's next draws depend on: its offset and its generator (with the offset it stands at)."""
    return (stream.attributes.get("rngOffset", 0), stream.__dict__.get("_engine"), stream.__dict__.get("_engine_at"))


def set_stream_state(stream, state):
    offset, engine, engine_at = state
    stream.attributes["rngOffset"] = offset
    if engine is None:
        stream.__dict__.pop("_engine", None)
        stream.__dict__.pop("_engine_at", None)
    else:
        stream._engine, stream._engine_at = engine, engine_at


class Network(object):
    """The random state of one of CNTK's compiled networks: a Trainer's. In CNTK 2.7 each Trainer compiles its
    own network, whose random nodes start from the nodes' (rngSeed, rngOffset) attributes and go on from there
    without changing the attributes: a second Trainer over the same graph, or over a clone of it (a clone
    copies the attributes), draws the first Trainer's masks again from the start, while the first one goes on
    with its own. Only a checkpoint (save_checkpoint) writes the network's positions back into the attributes
    (a model's save does not). Here the nodes' RandomStreams hold the state of the network running now: a
    Trainer swaps its own in around each of its passes (``running``) and out again afterwards."""

    def __init__(self, function):
        self._function = function
        self._streams = None
        self._states = {}

    def streams(self):
        if self._streams is None:
            self._streams = [random_stream_of(n) for n in random_nodes(self._function)]
        return self._streams

    def running(self):
        return _Running(self)

    def commit(self):
        """Writes this network's positions into the nodes' attributes (what CNTK's checkpoint does)."""
        for stream in self.streams():
            state = self._states.get(stream)
            if state is not None:
                set_stream_state(stream, state)

    def restart(self):
        """Forgets this network's positions: its nodes start again from their attributes (a restored
        checkpoint)."""
        self._states = {}


class _Running(object):
    def __init__(self, network):
        self._network = network

    def __enter__(self):
        net = self._network
        self._outer = []
        for stream in net.streams():
            self._outer.append((stream, stream_state(stream)))
            set_stream_state(stream, net._states.get(stream, (stream.attributes.get("rngOffset", 0), None, None)))
        return net

    def __exit__(self, *exc):
        net = self._network
        for stream, outer in self._outer:
            net._states[stream] = stream_state(stream)
            set_stream_state(stream, outer)
        return False
