"""Reading a lowered module's parameters, buffers and scope modules without ``nn.Module.__getattr__``.

The forward fx generates fetches every parameter as ``self.scope.name``. A registered member is not in the
instance's ``__dict__``, so each fetch fails Python's normal lookup, which raises and catches an AttributeError
before ``nn.Module.__getattr__`` finds it (about 0.5 us a level: 3 us of a one-sample call of a 3-layer net, 4 of
a training step of two Dense layers). Each lowered module already has a class of its own (fx gives every
GraphModule one); ``install`` adds to it one property per member, and gives each plain scope module under it a
class of its own too. The properties read torch's own dicts, so whatever replaces a member there (load_state_dict,
``torch.func.functional_call``, torch.export's reparametrization, the tracer's buffer swaps, ``module.to``) is what
the forward reads.
"""
import torch

_STORES = ("_parameters", "_buffers", "_modules")


def _member(store, name):
    def get(self):
        d = self.__dict__
        try:
            return d[store][name]
        except KeyError:
            # moved to another of torch's dicts, deleted, or now a plain attribute: torch's lookup
            if name in d:
                return d[name]
            return torch.nn.Module.__getattr__(self, name)

    def set_plain(self, value):
        # nn.Module.__setattr__ keeps parameters, buffers and modules in its dicts; anything else lands here
        self.__dict__[name] = value

    def delete_plain(self):
        try:
            del self.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None

    return property(get, set_plain, delete_plain)


def _rebuild_scope(parameters, buffers, modules, training):
    """A scope module as torch.nn.Module (pickle and deepcopy of a scope; install() runs again on the copy)."""
    scope = torch.nn.Module()
    for name, p in parameters.items():
        scope.register_parameter(name, p)
    for name, b in buffers.items():
        scope.register_buffer(name, b)
    for name, m in modules.items():
        scope.add_module(name, m)
    scope.train(training)
    return scope


def _reduce_scope(self):
    d = self.__dict__
    return (_rebuild_scope, (dict(d["_parameters"]), dict(d["_buffers"]), dict(d["_modules"]), self.training))


def install(module):
    """Properties for the members of module (a GraphModule, whose class is its own) and of the plain
    torch.nn.Module scopes under it, which get a class of their own (pickled as plain modules)."""
    cls = type(module)
    for store in _STORES:
        for name in module.__dict__[store]:
            if name not in cls.__dict__ and not hasattr(cls, name):
                setattr(cls, name, _member(store, name))
    for sub in module.__dict__["_modules"].values():
        if type(sub) is torch.nn.Module:
            sub.__class__ = type("Scope", (torch.nn.Module,), {"__reduce__": _reduce_scope})
            install(sub)
