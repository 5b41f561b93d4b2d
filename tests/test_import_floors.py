"""The package's floors (docs/ARCHITECTURE.md): no module imports from a floor above its own, and no import cycle.

The imports are read from the source with ``ast`` (imports inside functions count too). ``from pkg import name``
counts as an import of the module that defines ``name`` (a package's ``__init__`` that re-exports it is looked
through), and a package ``__init__``'s own top-level imports are re-exports, not dependencies, for the cycle
count. Run as a script it prints the cycles and the imports that break a floor.
"""
import ast
import collections
import os

PACKAGE = "cntk_compat"
ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), PACKAGE)

# floor of each top-level module or package of cntk_compat; a module may import from its own floor and below.
# One not listed stands at the top (TOP) until it is given a floor here and in docs/ARCHITECTURE.md.
FLOORS = {
    "default_options": 0, "numpy_printing": 0,
    "core": 1,
    "axis": 2, "device": 2, "variables": 2, "tensor": 2, "io": 2, "logging": 2, "initializer": 2,
    "ops": 3, "random": 3, "sequence": 3,
    "layers": 4, "losses": 4, "metrics": 4, "internal": 4, "misc": 4,
    "learners": 5, "distributed": 5,
    "train": 6, "eval": 6,
    "debugging": 7, "cntk_py": 7, "tests": 7,
    "": 8, "sample_installer": 8, "export_torch": 8,
    "model_formats": 8,  # readers of CNTK's model files build graphs through the whole cntk namespace
}
TOP = max(FLOORS.values())


class Module(object):
    def __init__(self, name, path):
        self.name = name
        self.path = path
        self.is_package = path.endswith("__init__.py")
        with open(path) as f:
            self.tree = ast.parse(f.read(), path)
        self.defined = set()      # names bound at top level by def, class or assignment
        self.imported = {}        # top-level name -> (module, name) it is imported from
        self.star = []            # modules star-imported at top level
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                self.defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    self.defined.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, ast.ImportFrom):
                base = self.absolute(node.level, node.module)
                for a in node.names:
                    if a.name == "*":
                        self.star.append(base)
                    else:
                        self.imported[a.asname or a.name] = (base, a.name)

    @property
    def floor(self):
        parts = self.name.split(".")
        return FLOORS.get(parts[1] if len(parts) > 1 else "", TOP)  # a module not listed stands at the top

    def absolute(self, level, module):
        if level == 0:
            return module or ""
        parts = self.name.split(".")
        if not self.is_package:
            parts = parts[:-1]
        parts = parts[:len(parts) - (level - 1)]
        return ".".join(parts + ([module] if module else []))

    def imports(self):
        """(line, target module name, at top level) for every import of a cntk_compat name in this file."""
        top = {id(n) for n in self.tree.body}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == PACKAGE:
                        yield node.lineno, a.name, None, id(node) in top
            elif isinstance(node, ast.ImportFrom):
                base = self.absolute(node.level, node.module)
                if base.split(".")[0] == PACKAGE:
                    for a in node.names:
                        yield node.lineno, base, a.name, id(node) in top


def load_modules(root=ROOT):
    modules = {}
    for folder, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
                name = rel[:-len(".__init__")] if rel.endswith(".__init__") else rel
                modules[name] = Module(name, path)
    return modules


def defining_module(modules, module, name, seen=None):
    """The module that defines ``name`` as ``module`` exposes it (following re-exports and star imports)."""
    seen = seen if seen is not None else set()
    if (module, name) in seen or module not in modules:
        return module
    seen.add((module, name))
    if name is None:
        return module
    if module + "." + name in modules:
        return module + "." + name
    mod = modules[module]
    if name in mod.defined:
        return module
    if name in mod.imported:
        source, original = mod.imported[name]
        return defining_module(modules, source, original, seen)
    for source in mod.star:
        found = defining_module(modules, source, name, seen)
        if found != source or name in getattr(modules.get(source), "defined", ()):
            return found
    return module


def dependencies(modules):
    """module -> {imported module: first line}, without a package __init__'s top-level re-exports."""
    deps = collections.defaultdict(dict)
    for mod in modules.values():
        for line, base, name, top in mod.imports():
            if mod.is_package and top:
                continue
            target = defining_module(modules, base, name)
            if target in modules and target != mod.name:
                deps[mod.name].setdefault(target, line)
    return deps


def import_cycles(modules):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    deps = dependencies(modules)
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []
    for start in sorted(modules):
        if start in index:
            continue
        work = [(start, iter(sorted(deps[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(deps[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def upward_imports(modules):
    """(module, line, imported module) for each import of a module on a higher floor."""
    found = []
    for mod in sorted(modules.values(), key=lambda m: m.name):
        for line, base, name, _ in mod.imports():
            target = defining_module(modules, base, name)
            if target in modules and modules[target].floor > mod.floor:
                found.append((mod.name, line, target))
    return found


def test_no_module_imports_from_a_higher_floor():
    found = ["%s:%d imports %s" % f for f in upward_imports(load_modules())]
    assert found == []


def test_no_import_cycles():
    assert import_cycles(load_modules()) == []


def test_the_checker_sees_an_upward_import_inside_a_function(tmp_path):
    pkg = tmp_path / PACKAGE
    for sub in ("core", "ops"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "ops" / "plus.py").write_text("from ..core.graph import node\n\ndef plus():\n    return node()\n")
    (pkg / "core" / "graph.py").write_text("def node():\n    from ..ops.plus import plus\n    return plus\n")
    modules = load_modules(str(pkg))
    assert upward_imports(modules) == [("cntk_compat.core.graph", 2, "cntk_compat.ops.plus")]
    assert import_cycles(modules) == [["cntk_compat.core.graph", "cntk_compat.ops.plus"]]


if __name__ == "__main__":
    mods = load_modules()
    cycles = import_cycles(mods)
    for c in cycles:
        print("cycle of %d modules: %s" % (len(c), ", ".join(c)))
    up = upward_imports(mods)
    for f in up:
        print("upward: %s:%d imports %s" % f)
    print("import floors: %d modules, %d import cycles (%d modules in them), %d upward imports"
          % (len(mods), len(cycles), sum(len(c) for c in cycles), len(up)))
