"""python -m cntk_compat.migration_report SCRIPT.py [...]: which CNTK APIs a script uses (static analysis of
its source, nothing is run), whether cntk-compat supports each, and the plain-PyTorch equivalent where one
exists.

A name is "supported" when it resolves in cntk_compat and is not one of the entry points that only raise
NotImplementedError (cntk_compat.ops.unsupported); "missing" when it does not resolve.
"""
import argparse
import ast
import importlib
import inspect
import sys

# CNTK API -> the usual plain-PyTorch way (last component or full dotted name)
TORCH_EQUIVALENTS = {
    "input_variable": "a tensor argument of forward()", "sequence.input_variable": "a (batch, time, ...) tensor "
    "plus lengths (torch.nn.utils.rnn.pack_padded_sequence)", "Parameter": "torch.nn.Parameter",
    "Constant": "torch.tensor / register_buffer", "placeholder": "a function argument",
    "layers.Dense": "torch.nn.Linear", "layers.Convolution": "torch.nn.Conv1d/2d/3d",
    "layers.Convolution2D": "torch.nn.Conv2d", "layers.MaxPooling": "torch.nn.MaxPool2d",
    "layers.AveragePooling": "torch.nn.AvgPool2d", "layers.BatchNormalization": "torch.nn.BatchNorm1d/2d",
    "layers.LayerNormalization": "torch.nn.LayerNorm", "layers.Dropout": "torch.nn.Dropout",
    "layers.Embedding": "torch.nn.Embedding", "layers.LSTM": "torch.nn.LSTM", "layers.GRU": "torch.nn.GRU",
    "layers.RNNStep": "torch.nn.RNN", "layers.Recurrence": "torch.nn.LSTM/GRU over the time axis",
    "layers.Sequential": "torch.nn.Sequential", "layers.For": "a Python loop building torch.nn.Sequential",
    "layers.Stabilizer": "(no equivalent; drop it or scale by a learned scalar)",
    "relu": "torch.relu", "sigmoid": "torch.sigmoid", "tanh": "torch.tanh", "softmax": "torch.softmax",
    "log_softmax": "torch.log_softmax", "exp": "torch.exp", "log": "torch.log", "sqrt": "torch.sqrt",
    "abs": "torch.abs", "times": "torch.matmul", "plus": "+", "minus": "-", "element_times": "*",
    "element_divide": "/", "reshape": "torch.reshape", "splice": "torch.cat", "slice": "tensor slicing",
    "transpose": "torch.permute", "reduce_sum": "torch.sum", "reduce_mean": "torch.mean", "reduce_max": "torch.amax",
    "argmax": "torch.argmax", "one_hot": "torch.nn.functional.one_hot", "dropout": "torch.nn.functional.dropout",
    "convolution": "torch.nn.functional.conv2d", "pooling": "torch.nn.functional.max_pool2d/avg_pool2d",
    "batch_normalization": "torch.nn.functional.batch_norm", "clip": "torch.clamp", "element_select": "torch.where",
    "cross_entropy_with_softmax": "torch.nn.functional.cross_entropy", "squared_error": "torch.nn.functional."
    "mse_loss(reduction='sum')", "binary_cross_entropy": "torch.nn.functional.binary_cross_entropy",
    "classification_error": "(pred.argmax(-1) != target).float().mean()",
    "sgd": "torch.optim.SGD", "momentum_sgd": "torch.optim.SGD(momentum=...)", "adam": "torch.optim.Adam",
    "adagrad": "torch.optim.Adagrad", "rmsprop": "torch.optim.RMSprop", "adadelta": "torch.optim.Adadelta",
    "learning_parameter_schedule": "torch.optim.lr_scheduler", "learning_rate_schedule": "torch.optim.lr_scheduler",
    "Trainer": "a loop: loss.backward(); optimizer.step(); optimizer.zero_grad()",
    "train.Trainer": "a loop: loss.backward(); optimizer.step(); optimizer.zero_grad()",
    "training_session": "a training loop with periodic torch.save checkpoints",
    "io.MinibatchSource": "torch.utils.data.DataLoader", "io.CTFDeserializer": "a torch.utils.data.Dataset",
    "io.StreamDef": "a field of the Dataset's items", "io.StreamDefs": "the Dataset's item structure",
    "load_model": "torch.load(..., weights_only=True) + load_state_dict (or cntk_compat.export_torch)",
    "Function.load": "torch.load(..., weights_only=True) + load_state_dict",
    "logging.ProgressPrinter": "print / torch.utils.tensorboard.SummaryWriter",
    "logging.TensorBoardProgressWriter": "torch.utils.tensorboard.SummaryWriter",
    "device.try_set_default_device": "torch.set_default_device", "combine": "return a tuple from forward()",
    "sequence.past_value": "torch.roll / shifting along the time axis", "sequence.last": "x[range(B), lengths - 1]",
    "sequence.reduce_sum": "masked sum over the time axis", "random.seed": "torch.manual_seed",
}


class _Uses(ast.NodeVisitor):
    """Collects dotted CNTK names (relative to the cntk package) with the lines they appear on."""

    def __init__(self):
        self.aliases = {}  # local name -> dotted path inside cntk ("" for the package itself)
        self.uses = {}

    def _add(self, name, line):
        self.uses.setdefault(name, []).append(line)

    def visit_Import(self, node):
        for a in node.names:
            if a.name == "cntk" or a.name.startswith("cntk."):
                path = a.name[len("cntk."):] if a.name != "cntk" else ""
                if a.asname:
                    self.aliases[a.asname] = path
                else:
                    self.aliases["cntk"] = ""
                if path:
                    self._add(path, node.lineno)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level == 0 and (mod == "cntk" or mod.startswith("cntk.")):
            base = mod[len("cntk."):] if mod != "cntk" else ""
            for a in node.names:
                if a.name == "*":
                    self._add((base + ".*") if base else "*", node.lineno)
                    continue
                path = (base + "." + a.name) if base else a.name
                self.aliases[a.asname or a.name] = path
                self._add(path, node.lineno)

    def visit_Attribute(self, node):
        chain = []
        cur = node
        while isinstance(cur, ast.Attribute):
            chain.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id in self.aliases:
            base = self.aliases[cur.id]
            parts = ([base] if base else []) + list(reversed(chain))
            self._add(".".join(parts), node.lineno)
            return
        self.generic_visit(node)


def _resolve(path):
    """(status, object): 'supported', 'raises NotImplementedError' or 'missing'."""
    import cntk_compat
    from cntk_compat.ops import unsupported
    obj = cntk_compat
    parts = [p for p in path.split(".") if p]
    for k, part in enumerate(parts):
        if part == "*":
            return "supported", obj
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module("cntk_compat." + ".".join(parts[:k + 1]))
        except ImportError:
            # an attribute of an object (a method, a property): resolved once the owner is
            if inspect.isclass(obj) or not inspect.ismodule(obj):
                return "supported", obj
            return "missing", None
    if inspect.isfunction(obj) and obj.__module__ == unsupported.__name__:
        return "raises NotImplementedError", obj
    return "supported", obj


def _equivalent(path):
    if path in TORCH_EQUIVALENTS:
        return TORCH_EQUIVALENTS[path]
    for k in range(1, path.count(".") + 1):
        tail = path.split(".", k)[-1]
        if tail in TORCH_EQUIVALENTS:
            return TORCH_EQUIVALENTS[tail]
    return ""


def analyse(source, filename="<script>"):
    """[(cntk name, lines, status, PyTorch equivalent)] for the CNTK APIs ``source`` uses."""
    tree = ast.parse(source, filename)
    uses = _Uses()
    uses.visit(tree)
    rows = []
    for path in sorted(uses.uses):
        status, _ = _resolve(path)
        rows.append((path, sorted(set(uses.uses[path])), status, _equivalent(path)))
    return rows


def report(paths, out=sys.stdout):
    totals = {"supported": 0, "raises NotImplementedError": 0, "missing": 0}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows = analyse(f.read(), path)
        out.write("%s: %d CNTK APIs\n" % (path, len(rows)))
        for name, lines, status, torch_eq in rows:
            totals[status] += 1
            out.write("  cntk.%-40s %-28s lines %-16s %s\n" % (name, status, ",".join(str(n) for n in lines[:6]),
                                                              ("-> " + torch_eq) if torch_eq else ""))
    out.write("migration_report: %d supported, %d raise NotImplementedError, %d missing\n"
              % (totals["supported"], totals["raises NotImplementedError"], totals["missing"]))
    return totals


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m cntk_compat.migration_report",
                                     description="List the CNTK APIs scripts use, their support here and their "
                                                 "plain-PyTorch equivalents (static analysis; nothing is run).")
    parser.add_argument("scripts", nargs="+")
    args = parser.parse_args(argv)
    report(args.scripts)


if __name__ == "__main__":
    main()
