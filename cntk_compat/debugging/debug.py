"""Interactive graph debugger (CNTK's debug_model), plus the other names of CNTK's cntk.debugging.debug.

debug_model(model) returns a clone of ``model`` in which every node's output passes through a _DebugNode, a
UserFunction that is the identity in both directions but stops before handing on its value: in the forward
pass (a node's value is ready) and in the backward pass (its gradient is ready). At each stop the debugger
prints the node and reads commands from ``in_stream`` (see DEBUG_USAGE).
"""
import sys
import warnings

import numpy as np

from .. import cntk_py
from ..core.function import CloneMethod
from ..core.graph import depth_first_search
from ..ops import output_variable
from ..ops._user_function import UserFunction, user_function
from .settings import set_checked_mode
from .tracing import set_computation_network_trace_level, set_node_timing

__all__ = ["user_function", "output_variable", "CloneMethod", "UserFunction", "DEBUG_USAGE",
           "save_as_legacy_model", "set_checked_mode", "set_computation_network_trace_level",
           "set_node_timing", "debug_model"]

DEBUG_USAGE = '''\
    Debugger commands (one per line):
        n           run to the next stop (the next node)
        n <count>   run past <count> stops
        u f         run until the next forward pass starts ('n' if already in one)
        u b         run until the next backward pass starts ('n' if already in one)
        u <name>    run until a node called <name> is reached
        u <lambda>  run until lambda(data, node) returns True; data is the value (forward) or the
                    gradient (backward) as numpy (np), node the node reached, e.g.
                        lambda data, node: node.op_name == 'Times'
                        lambda data, node: np.abs(data).max() > 100
        c           run to the end without stopping
        p           print the value (forward) or the gradient (backward) at this stop
        d           open a pdb shell here
        q           quit (calls exit_func(0))\
'''


def save_as_legacy_model(root_op, filename):
    """Writes ``root_op`` in CNTK's legacy v1 model format (the ops model_formats.cntkv1_writer.V1_NODES)."""
    return cntk_py.save_as_legacy_model(root_op, filename)


def _shape_of(data):
    """The shape of a batch, or the list of per-sequence shapes for sequences of different lengths."""
    if isinstance(data, list):
        return [np.shape(seq) for seq in data]
    return np.shape(data)


class _DebugSession(object):
    """What all debug nodes of one debug_model() share: the streams, the pending commands and the pass
    (forward 'f' / backward 'b') the last stop was in."""

    def __init__(self, node_names, in_stream, out_stream, exit_func):
        self.node_names = set(node_names)
        self.input, self.output, self.exit = in_stream, out_stream, exit_func
        self.commands = []  # pending commands, the next first
        self.last_pass = None

    def _write(self, text):
        self.output.write(text)
        self.output.flush()

    def _parse(self, line):
        """The commands a line stands for, or None when it is not understood."""
        if line in ("c", "p", "d"):
            return [line]
        if line.startswith("n"):
            count = line[1:].strip()
            if not count:
                return ["n"]
            return ["n"] * int(count) if count.isdigit() and int(count) > 0 else None
        if line.startswith("u") and line[1:2] in ("", " "):
            return self._parse_until(line[1:].strip())
        return None

    def _parse_until(self, what):
        if what.startswith("lambda"):
            try:
                condition = eval(what, {"np": np})
            except Exception as e:
                self._write("cannot use %r: %s: %s\n" % (what, type(e).__name__, e))
                return None
            return [condition] if callable(condition) else None
        if what in self.node_names:
            return [lambda data, node: node.name == what]
        if what and "forward".startswith(what):
            return ["uf"]
        if what and "backward".startswith(what):
            return ["ub"]
        if what:
            self._write('Your model does not contain a node with name "%s"\n' % what)
        return None

    def _read_commands(self, prompt):
        while True:
            self._write(prompt)
            raw = self.input.readline()
            if raw == "":  # end of input: nobody is left to answer, so run to the end
                return ["c"]
            line = raw.strip()
            if not line:
                continue
            if line == "q":
                self.exit(0)
                continue
            commands = self._parse(line)
            if commands:
                return commands
            self._write(DEBUG_USAGE + "\n")

    def _announce(self, current_pass, node):
        if current_pass != self.last_pass:
            title = " forward  " if current_pass == "f" else " backward "
            self._write("\n" + "=" * 35 + title + "=" * 35 + "\n")
        self._write("\n%s with uid '%s'\n" % (node, node.uid))

    def _show(self, current_pass, data, state):
        if current_pass == "f":
            self._write("Input with shape %s: \n%s\n" % (_shape_of(data), data))
            return
        if state is not None:
            self._write("State: %s\n" % (state,))
        self._write("Root gradients with shape %s: \n%s\n" % (_shape_of(data), data))

    def stop(self, current_pass, node, data, state=None):
        """Called by a debug node when its value (pass 'f') or gradient (pass 'b') is ready; returns when the
        commands say to run on."""
        prompt = _DebugNode.PROMPT_FORWARD if current_pass == "f" else _DebugNode.PROMPT_BACKWARD
        self._announce(current_pass, node)
        arrived = current_pass != self.last_pass
        self.last_pass = current_pass
        while True:
            if not self.commands:
                self.commands = self._read_commands(prompt)
            command = self.commands[0]
            if command == "c":
                return
            if command == "n":
                self.commands.pop(0)
                return
            if command == "p":
                self.commands.pop(0)
                self._show(current_pass, data, state)
            elif command == "d":
                self.commands.pop(0)
                import pdb
                pdb.set_trace()
                return
            elif command in ("uf", "ub"):
                if command[1] != current_pass:
                    return
                self.commands.pop(0)
                if not arrived:  # already in that pass: the same as 'n'
                    return
            elif command(data, node):  # a condition: stop here once it holds
                self.commands.pop(0)
            else:
                return


class _DebugNode(UserFunction):
    """Identity on one variable that stops in the debugger when the value, and again when its gradient, is
    ready. ``after`` is the node shown: the Function owning the variable, or the variable itself."""

    PROMPT_FORWARD = '[CNTK forward] >>> '
    PROMPT_BACKWARD = '[CNTK backward] >>> '

    def __init__(self, variable, session, name=''):
        super(_DebugNode, self).__init__([variable], as_numpy=True,
                                         name=name or "D_%s" % getattr(variable, "uid", ""))
        self.session = session
        self.after = variable.owner if variable.is_output else variable

    def infer_outputs(self):
        v = self.inputs[0]
        return [output_variable(v.shape, v.dtype, v.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        self.session.stop("f", self.after, argument)
        return None, argument

    def backward(self, state, root_gradients):
        self.session.stop("b", self.after, root_gradients, state)
        return root_gradients

    def clone(self, cloned_inputs):
        return _DebugNode(cloned_inputs[0], self.session)

    def __str__(self):
        return "_DebugNode(after=%s)" % (self.after,)


def _undebugged_variables(model):
    """The variables of ``model`` (leaves and Function outputs) that no debug node reads yet."""
    nodes = depth_first_search(model, lambda node: True, user_functions_found=False)
    covered = {n.inputs[0].uid for n in nodes if isinstance(n, _DebugNode)}
    variables = []
    for n in nodes:
        if isinstance(n, _DebugNode):
            continue
        if hasattr(n, "root_function") and len(n.outputs) > 1 and not covered.intersection(o.uid for o in n.outputs):
            # CNTK puts its debug node after each node, a Function; one with several outputs (an LSTM's h and c)
            # cannot take it, and CNTK 2.7 fails there (UserFunction's TypeError); so does this
            variables.append(n)
            continue
        for v in (n.outputs if hasattr(n, "root_function") else [n]):
            if v.uid not in covered:
                variables.append(v)
    return variables


def debug_model(model, in_stream=sys.stdin, out_stream=sys.stdout, exit_func=sys.exit):
    """A clone of ``model`` (parameters shared) with a debug stop after every node, driven by commands read
    from ``in_stream`` (``readline()``) and writing to ``out_stream`` (``write()``, ``flush()``); ``exit_func(0)``
    is called on 'q'; at the end of the input it runs to the end. See DEBUG_USAGE for the commands."""
    for stream, what, methods in ((in_stream, "in_stream", ("readline",)),
                                  (out_stream, "out_stream", ("write", "flush"))):
        for m in methods:
            if not callable(getattr(stream, m, None)):
                raise TypeError("debug_model: %s must have a %s() method, got %s"
                                % (what, m, type(stream).__name__))
    names = [n.name for n in depth_first_search(model, lambda node: bool(node.name))]
    session = _DebugSession(names, in_stream, out_stream, exit_func)
    pending = _undebugged_variables(model)
    # a substitution hides the graph below the substituted variable from that clone, so the nodes below
    # get their debug nodes in later rounds; each round covers at least the top of the graph
    for _ in range(len(pending)):
        if not pending:
            break
        model = model.clone(CloneMethod.share, {v: user_function(_DebugNode(v, session)) for v in pending})
        left = _undebugged_variables(model)
        if len(left) >= len(pending):
            break  # what is left cannot take a debug node: see the warning below
        pending = left
    if pending:
        warnings.warn("debug_model: no debug stop after %s (a parameter captured inside a block, or a node of a "
                      "recurrent loop, cannot be replaced in a clone here); the model is debugged everywhere else"
                      % ", ".join(str(v) for v in pending))
    return model
