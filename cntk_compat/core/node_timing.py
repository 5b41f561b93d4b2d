"""Per-node execution times, as CNTK's node timing reports them (``print_node_timing``).

While node timing is on (``cntk.debugging.set_node_timing(True)``), the debugging tracer (debugging/tracing.py)
records here, per primitive Function uid, the time and number of its forward and backward computations.
``print_table`` writes CNTK's table for the primitives of a graph to stderr, one line per node sorted by name
(case-insensitively, as CNTK's network orders its nodes):

    Times45                        forward avg 0.000008s, backward avg 0.000011s (fwd# 4|bwd# 3)

CNTK keeps these numbers per compiled network (a Trainer's, an Evaluator's, a Function's own); here they are
kept per node, so a node evaluated through several Functions counts each evaluation.
"""
import sys

_FORWARD_SECONDS, _FORWARDS, _BACKWARD_SECONDS, _BACKWARDS = range(4)
_stats = {}


def _entry(uid):
    entry = _stats.get(uid)
    if entry is None:
        entry = _stats[uid] = [0.0, 0, 0.0, 0]
    return entry


def add_forward(uid, seconds, count):
    """Adds ``seconds`` of forward computation of node ``uid``; ``count`` more forward passes ran it."""
    entry = _entry(uid)
    entry[_FORWARD_SECONDS] += seconds
    entry[_FORWARDS] += count


def add_backward(uid, seconds, count):
    """Adds ``seconds`` of backward computation of node ``uid``; ``count`` more backward passes ran it."""
    entry = _entry(uid)
    entry[_BACKWARD_SECONDS] += seconds
    entry[_BACKWARDS] += count


def reset():
    _stats.clear()


def primitive_uids(roots):
    """The uids of the computing primitives (inside blocks too; no Combine) of the graphs of ``roots``."""
    uids, seen = set(), set()
    pending = [getattr(r, "root_function", r) for r in roots if r is not None]
    while pending:
        node = pending.pop()
        if node.is_output:
            node = node.owner
        elif not hasattr(node, "root_function"):
            continue  # a leaf: input, parameter, constant
        node = node.root_function
        if node.uid in seen:
            continue
        seen.add(node.uid)
        if node.is_block:
            pending.append(node.block_root)
            pending.extend(outer for _, outer in node.block_arguments_mapping)
            continue
        if not node._op.outputs_are_inputs:
            uids.add(node.uid)
        pending.extend(node.inputs)
    return sorted(uids, key=lambda u: (u.lower(), u))


def print_table(roots, out=None):
    """Writes the forward/backward averages and counts of every primitive of the graphs of ``roots``."""
    out = out or sys.stderr
    for uid in primitive_uids(roots):
        fwd_s, fwds, bwd_s, bwds = _stats.get(uid, (0.0, 0, 0.0, 0))
        out.write("%-30s forward avg %fs, backward avg %fs (fwd# %d|bwd# %d)\n"
                  % (uid, fwd_s / fwds if fwds else 0.0, bwd_s / bwds if bwds else 0.0, fwds, bwds))
    out.flush()
