"""Call transfer rules: modules, torch functions, tensor methods, local functions.

The stated policy for calls nothing else recognises: a call whose arguments carry a
graph returns a new graph node over them (assume it is differentiable); a call
without graph in its arguments returns plain data, unless the callee is known (or
named) to be a module. History must be rooted in a leaf or a module: data from
loaders, numpy or `torch.randn` without `requires_grad` never becomes a graph.
"""

from __future__ import annotations

import ast

from . import roles
from . import torch_api as api
from .bound_methods import call_bound_method
from .custom_functions import is_context
from .exprs import dotted_name, is_local_module, module_element
from .library_calls import extern_ref, is_extern
from .literal_arguments import literal_arguments
from .name_fallback import conventional_module
from .records import bound_fields, record_fields
from .setup_methods import bound_access_path
from .sole_definers import call_sole_definer
from .storage_writes import SAVING_FUNCTIONS
from .values import (
    CLASS,
    CONTAINER,
    DIST,
    ELEMENT,
    EMPTY,
    FUNC,
    MODULE,
    NAMESPACE,
    NOTHING,
    OBJECT,
    OPTIMIZER,
    TENSOR,
    Binding,
    OptimizerRef,
    Stepped,
    Val,
    next_creation,
)

TORCH_LAYER = "torch.nn"  # the first element of a torch layer's object key
FROZEN = "<frozen>"  # heap attribute: the module's parameters do not require grad


def list_after(receiver: Val, method: str, args: list[Val]) -> tuple | None:
    """The elements of a list with known elements after `append(x)` / `extend(known)`;
    None when they are no longer known one by one."""
    if receiver.parts is None or not args:
        return None
    if method == "append" and len(args) == 1:
        return (*receiver.parts, args[0])
    if method == "extend" and len(args) == 1 and args[0].parts is not None:
        return (*receiver.parts, *args[0].parts)
    return None


def is_unseen(val: Val) -> bool:
    """No class we can read: no object key, or an instance of a library's class."""
    return val.ref is None or is_extern(val.ref)


def literal_keyword(call: ast.Call, name: str):
    """The keyword's literal value; `...` when present but not a literal; None when absent."""
    for keyword in call.keywords:
        if keyword.arg == name:
            if isinstance(keyword.value, ast.Constant):
                return keyword.value.value
            return ...
    return None


class CallMixin:
    def ev_Call(self, node: ast.Call) -> Val:
        func = node.func
        if isinstance(func, ast.Attribute):
            return self.call_method(node, func)
        name = func.id if isinstance(func, ast.Name) else None
        if name is not None and self.lookup(name) is None:
            # An unbound name: a builtin, an import, or a global of a partial snippet.
            return self.call_by_name(node, name, self.eval_arguments(node))
        callee = self.ev(func)
        args = self.eval_arguments(node)
        return self.dispatch(node, callee, args, name)

    def dispatch(self, node: ast.Call, callee: Val, args: list[Val], name: str | None) -> Val:
        if self.unknown_module(callee, name):
            # A parameter, a library's object: what the code does with it says it is a module.
            return self.call_module(node, Val(EMPTY, MODULE, None), args)
        if callee.kind == FUNC:
            return self.call_function(node, callee.ref, args, None)
        if callee.kind == CLASS:
            return self.instantiate(node, callee.ref, args)
        if callee.kind == MODULE:
            return self.call_module(node, callee, args)
        if callee.kind in (OBJECT, DIST):
            bound = call_bound_method(self, node, callee, args)  # `hook = accelerator.backward`
            return bound if bound is not None else self.union(args, node, assumed=True)
        if name is not None:
            return self.call_by_name(node, name, args)
        return self.union([callee, *args], node, assumed=True)

    def unknown_module(self, callee: Val, path: str | None) -> bool:
        """A value we know nothing of (no origins, no class) that evidence says is a module."""
        if callee.origins or callee.kind not in (TENSOR, OBJECT) or not is_unseen(callee):
            return False
        return self.role_of(path) == roles.MODULE_ROLE

    def eval_arguments(self, node: ast.Call) -> list[Val]:
        vals = [self.ev(arg) for arg in node.args]
        vals.extend(self.ev(kw.value) for kw in node.keywords)
        return vals

    # -- calls through a dotted name or a method -----------------------------------------
    def call_method(self, node: ast.Call, func: ast.Attribute) -> Val:
        dotted = dotted_name(func)
        if dotted is not None and self.lookup(dotted.partition(".")[0]) is None:
            # `torch.x(...)`, `F.x(...)`, `nn.X(...)`, `np.x(...)`: a library namespace.
            # (call_namespace answers None before it evaluates anything: the name is still
            # unbound below.)
            namespace_val = self.call_namespace(node, dotted)
            if namespace_val is not None:
                return namespace_val
            library = self.library_call(node, self.qualified(dotted))
            if library is not None:
                return library
            loaded = self.loaded_library_module(node, self.qualified(dotted))  # from_pretrained
            if loaded is not None:
                return loaded
        receiver = self.ev(func.value)
        method = func.attr
        if receiver.kind == CLASS and method == "apply":  # `Step.apply(x)`: custom_functions.py
            applied = self.apply_custom_function(node, receiver.ref)
            if applied is not None:
                return applied
        if receiver.kind == NAMESPACE:  # `models.RNNModel(...)`: a project module's name
            found = receiver.ref.lookup(method)
            args = self.eval_arguments(node)
            if found is None:
                return self.union(args, node)
            return self.dispatch(node, found.val, args, None)
        if method == "backward" and receiver.kind == ELEMENT:
            # One element of a container of graphs: which one, we cannot tell.
            self.eval_arguments(node)
            self.lifetimes.note_backward(self, receiver.origins)
            return NOTHING
        if method == "backward" and (receiver.origins or not node.args):
            # `loss.backward()`, `y.backward(torch.ones_like(y))`: the receiver is the root.
            self.eval_arguments(node)
            self.backward(node, receiver, node)
            return NOTHING
        if method in ("backward", "manual_backward") and node.args:
            # `accelerator.backward(loss)`, `self.manual_backward(loss)`
            self.eval_arguments(node)
            target = self.ev(node.args[0])
            if target.kind != ELEMENT:
                self.backward(node, target, node)
            else:
                self.lifetimes.note_backward(self, target.origins)
            return NOTHING
        if receiver.kind in (MODULE, OBJECT) and receiver.ref is not None:
            local = self.local_method(receiver.ref, method)
            if local is not None:
                return self.call_function(node, local, self.eval_arguments(node), receiver)
        sole = call_sole_definer(self, node, func, receiver)  # `criterion.forward_twin(...)`
        if sole is not None:
            return sole
        args = self.eval_arguments(node)
        key = self.heap_key(func.value, receiver)
        held = self.state.heap.get((key, method)) if key is not None else None
        if held is not None:
            # A callable kept on an object: `self.rnn(x, h)`, `self.loss_fn(out, y)`.
            return self.dispatch(node, held.val, args, None)
        if (
            receiver.kind in (MODULE, OBJECT)
            and self.class_of_ref(receiver.ref) is not None
            and self.unknown_module(NOTHING, dotted)
        ):
            # `self.net(x)` where `self.net` was set somewhere we did not see (of an object
            # whose class we cannot read, `model.init_hidden(n)` is a method, not a module).
            return self.call_module(node, Val(EMPTY, MODULE, None), args)
        if method in api.CUT_METHODS:
            return NOTHING
        if method == "save_for_backward" and is_context(receiver.ref):
            return self.save_for_backward(node, receiver, args)
        if method in ("register_buffer", "register_parameter") and key is not None and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and len(args) > 1:
                # `self.register_buffer("running_mean", torch.zeros(d))`: plain data.
                self.state.heap[(key, name.value)] = Binding(args[1], self.site(node))
            return NOTHING
        if method in api.PARAMETER_METHODS and receiver.kind == TENSOR and not receiver.origins:
            receiver = Val(EMPTY, MODULE, None)  # only a module has `.parameters()`
        if receiver.kind == MODULE:
            if method in api.PARAMETER_METHODS:
                leaf = self.new_origin(node, leaf=True)
                owner = self.module_key(func.value, receiver)
                if owner is not None:
                    self.param_owners[leaf] = owner
                return Val(frozenset({leaf}), CONTAINER)
            if method in ("forward", "__call__"):
                return self.call_module(node, receiver, args)
            if method == "requires_grad_":
                self.set_frozen(func.value, receiver, node)
                return receiver
            fit = self.library_fit(node, receiver, method)  # deepxde's model.train()
            if fit is not None:
                return fit
            if method in ("train", "eval"):
                self.switch_mode(receiver, method, node)  # library_eval_caches.py
            if method == "add_module":  # calling it runs the module: added_modules.py
                self.add_module_part(node, func.value, receiver, args)
            if method in api.MODULE_PLUMBING:
                return receiver if method in ("to", "cuda", "cpu", "train", "eval") else NOTHING
            if method.endswith("_") and not method.endswith("__"):
                return NOTHING
            returned = self.library_result(node, receiver, method, args)  # `lif.reset_mem()`
            if returned is not None:
                return returned
            # Any other method of a model we cannot see (`model.encode(x)`,
            # `model.init_hidden(n)`): assumed to pass its arguments' graphs on.
            return self.call_opaque(node, Val(EMPTY, MODULE, None), args)
        if receiver.kind == OPTIMIZER:
            closure = next((a for a in args if a.kind == FUNC), None) if method == "step" else None
            if closure is not None:
                # `optimizer.step(closure)` calls the closure: its backward runs here
                # (LBFGS calls it several times: library_models' row says so).
                kind = receiver.ref.qualified if receiver.ref is not None else None
                if self.calls_closure_repeatedly(f"{kind}.step" if kind else None):
                    self.call_closure_repeatedly(node, closure.ref)
                else:
                    self.call_function(node, closure.ref, [], None)
            if method == "step" and receiver.ref is not None and receiver.ref.owners:
                self.optimizer_step(node, receiver.ref.owners)
            return NOTHING
        if receiver.kind == DIST:
            modelled = self.distribution_use(node, receiver, method, args)  # library rows
            if modelled is not None:
                return modelled
            if method in ("sample", "sample_n", "enumerate_support"):
                return NOTHING
            return self.union([receiver, *args], node)
        if method == "detach_":
            self.assign_to(func.value, NOTHING, node)
            self.cut_iterated(func.value, node)
            return NOTHING
        if method == "requires_grad_" and receiver.kind in (TENSOR, ELEMENT):
            if literal_keyword(node, "requires_grad") is False or (
                node.args and isinstance(node.args[0], ast.Constant) and not node.args[0].value
            ):
                return receiver
            if receiver.has_graph:
                # A tensor with history already requires grad: torch leaves it as it is
                # (the interpolate of a gradient penalty keeps its inputs' graphs).
                return receiver
            leaf = Val(frozenset({self.new_origin(node, leaf=True)}))
            self.assign_to(func.value, leaf, node)
            return leaf
        if method in api.CONTAINER_CLEARERS:
            self.assign_to(func.value, Val(EMPTY, CONTAINER), node)
            return NOTHING
        if receiver.kind == CONTAINER or method in api.LIST_ADDERS:
            if method in api.CONTAINER_ADDERS:
                added = EMPTY.union(*(a.origins for a in args))
                parts = list_after(receiver, method, args)
                if added or parts is not None or receiver.parts is not None:
                    grown = Val(receiver.origins | added, CONTAINER, None, parts)
                    self.assign_to(func.value, grown, node)
                return NOTHING
            if receiver.kind == CONTAINER:
                if receiver.parts is not None and method in api.LIST_REORDERERS:
                    # `pop`, `sort`, `remove`...: which element sits where is not known now.
                    self.assign_to(func.value, Val(receiver.origins, CONTAINER), node)
                return Val(receiver.origins) if receiver.origins else NOTHING
        returned = self.library_result(node, receiver, method, args)
        if returned is not None:
            return returned
        if receiver.kind not in (TENSOR, ELEMENT, CONTAINER):
            # A method of an object we cannot see (`accelerator.clip_grad_norm_(params)` is
            # no tensor op): only assumed to pass its arguments' graphs on.
            return self.union(args, node, assumed=True)
        unbound = dotted is not None and self.lookup(dotted.partition(".")[0]) is None
        if (
            method.endswith("_")
            and not method.endswith("__")
            and not (unbound and not receiver.origins)
        ):
            self.modify_in_place(func.value, args, node)
            return self.ev(func.value) if isinstance(func.value, ast.Name) else NOTHING
        # A snippet's global (`accelerator.clip_grad_norm_(...)`) is no tensor for its name's
        # trailing underscore; nor is any object we know nothing of.
        if receiver.kind == TENSOR and not receiver.origins and dotted is not None:
            if self.has_parameters_taken(node.func):
                # `model.decoder(feat)` of an object we cannot see, whose `.parameters()`
                # the code gave an optimizer: a submodule call, not a method.
                return self.call_module(node, Val(EMPTY, MODULE, None), args)
            # A method of an unknown object: only a graph if the arguments carry one.
            return self.union(args, node, assumed=True)
        if method in api.NON_SAVING_METHODS and receiver.origins:
            # `.to(device)`, `.view(...)`: a node that keeps no tensor for backward, so
            # nothing of it can be freed; the value reaches what its receiver reaches.
            return Val(receiver.origins)
        return self.union([receiver, *args], node)

    def call_namespace(self, node: ast.Call, dotted: str) -> Val | None:
        # Through the imports (`import torch as th`, `from torch import nn as tnn`), or,
        # in a snippet that imports nothing of it, the documented module aliases.
        dotted = conventional_module(self.qualified(dotted))
        head = dotted.partition(".")[0]
        last = api.last_part(dotted)
        if head not in ("torch", "numpy"):
            return None
        if dotted.endswith(("autograd.backward", "autograd.grad")) or dotted in (
            "torch.autograd.grad",
        ):
            self.eval_arguments(node)
            target = node.args[0] if node.args else None
            inputs = node.args[1] if last == "grad" and len(node.args) > 1 else None
            for kw in node.keywords:
                if kw.arg in ("tensors", "outputs"):
                    target = kw.value
                elif kw.arg == "inputs":
                    inputs = kw.value
            result = EMPTY
            if target is not None:
                # autograd.grad stops at its inputs: what lies behind them is not traversed.
                behind = self.ev(inputs).origins if inputs is not None else EMPTY
                outputs = self.ev(target)
                self.backward(node, outputs, node, behind)
                if last == "grad" and literal_keyword(node, "create_graph") is True:
                    # The gradients are differentiable: they reach the outputs' graph and,
                    # through it, what the inputs were computed from (a gradient penalty).
                    result = outputs.origins | behind
            return NOTHING if last == "backward" else Val(result, CONTAINER)
        args = self.eval_arguments(node)
        if head == "numpy":
            return NOTHING
        if last in api.NO_GRAD_CONTEXTS or last in api.ENABLE_GRAD_CONTEXTS:
            return NOTHING
        qualified = dotted
        if dotted.startswith(api.OPTIM_NAMESPACES) or last in api.OPTIMIZER_CLASSES:
            return self.new_optimizer(args, qualified)
        modelled = self.modelled_result(node, qualified, args)
        if modelled is not None:
            return modelled
        if last in api.DISTRIBUTIONS:
            return self.new_distribution(node, qualified, args)
        if last == "Parameter":
            return self.new_parameter(node)
        if dotted.startswith(api.NN_NAMESPACES) and last[:1].isupper():
            held = args[0].parts if last == "ModuleList" and len(args) == 1 else None
            if held and all(is_local_module(part) for part in held):
                # Iterating it yields the file's modules it holds (exprs.module_element).
                ref = (TORCH_LAYER, last, id(node), tuple(self.context))
                return Val(EMPTY, MODULE, ref, held)
            if last == "Sequential" and args and all(a.kind == MODULE for a in args):
                # Calling it runs its parts in order: local modules inside keep their state.
                return Val(EMPTY, MODULE, None, tuple(args))
            # A torch layer: its own object (its parameters are its own), and its class.
            return Val(EMPTY, MODULE, (TORCH_LAYER, last, id(node), tuple(self.context)))
        if last in api.FACTORIES:
            if literal_keyword(node, "requires_grad") is True:
                return Val(frozenset({self.new_origin(node, leaf=True)}))
            return NOTHING
        if last in api.CUT_TORCH_FUNCTIONS:
            return NOTHING
        result = self.union(args, node)
        if last in api.WEIGHT_SAVING_FUNCTIONS:
            self.note_parameters_saved(node, args, result)
        if last in SAVING_FUNCTIONS:  # `torch.einsum(eq, q, self.queue.detach())`
            self.note_storages_saved(node, node.args, args[: len(node.args)], result)
        return result

    # -- calls through a bare name ------------------------------------------------------
    def call_by_name(self, node: ast.Call, name: str, args: list[Val]) -> Val:
        if name in api.CUT_FUNCTIONS:
            return NOTHING
        if name in (
            "list",
            "tuple",
            "sorted",
            "reversed",
            "set",
            "dict",
            "zip",
            "enumerate",
            "iter",
        ):
            origins = EMPTY.union(*(a.origins for a in args))
            if name == "enumerate" and len(node.args) == 1 and module_element(args[0]):
                # `enumerate(self.blocks)`: (index, module) pairs, the modules kept.
                pairs = tuple(Val(EMPTY, CONTAINER, None, (NOTHING, p)) for p in args[0].parts)
                return Val(origins, CONTAINER, None, pairs)
            return Val(origins, CONTAINER)
        if name in ("next", "sum", "max", "min", "abs", "getattr", "copy", "deepcopy"):
            return self.union(args, node) if name in ("sum", "abs") else self.first(args)
        if name in api.FACTORIES or name in api.DISTRIBUTIONS:
            if name in api.DISTRIBUTIONS:
                return self.new_distribution(node, self.qualified(name), args)
            if literal_keyword(node, "requires_grad") is True:
                return Val(frozenset({self.new_origin(node, leaf=True)}))
            return NOTHING
        if name in api.OPTIMIZER_CLASSES:
            return self.new_optimizer(args, self.qualified(name))
        if name == "Parameter":
            return self.new_parameter(node)
        if self.lookup(name) is None:
            # `Variable(t)`, `Leaky(...)`, `reset_net(model)`: what a library row says.
            qualified = self.qualified(name)
            found = self.modelled_result(node, qualified, args)
            if found is None:
                found = self.library_call(node, qualified, args)
            if found is not None:
                return found
        if name[:1].isupper() and self.lookup(name) is None:
            # An imported class we cannot see: an object, which the code's use of it may
            # show to be a module (see `refine`).
            return self.extern_object(node, self.qualified(name), args)
        if self.lookup(name) is None and self.unknown_module(NOTHING, name):
            return self.call_module(node, Val(EMPTY, MODULE, None), args)
        return self.union(args, node, assumed=True)

    def qualified(self, dotted: str) -> str:
        """`dotted` through the file's imports (`Accelerator` -> `accelerate.Accelerator`)."""
        return self.roles.qualify(dotted) if self.roles is not None else dotted

    def extern_object(self, node: ast.Call, qualified: str, args=()) -> Val:
        """An instance of a class we cannot see, remembered with the class's dotted name
        (and what its constructor stores, for a library's fit loop: library_fits.py)."""
        made = Val(EMPTY, OBJECT, extern_ref(qualified, node, self.context))
        return self.hold_arguments(node, made, qualified, list(args))

    @staticmethod
    def first(args: list[Val]) -> Val:
        return Val(args[0].origins, args[0].kind, args[0].ref) if args else NOTHING

    # -- frozen modules, and state cut element by element --------------------------------
    def set_frozen(self, target: ast.AST, module: Val, node: ast.Call) -> None:
        """`m.requires_grad_(False)` freezes a module's parameters (until `(True)`): its
        calls build no graph of their own."""
        key = self.module_key(target, module)
        if key is None or self.state is None:
            return
        flag = node.args[0] if node.args else None
        frozen = literal_keyword(node, "requires_grad") is False or (
            isinstance(flag, ast.Constant) and flag.value is False
        )
        if frozen:
            self.state.heap[(key, FROZEN)] = Binding(NOTHING, self.site(node))
        else:
            self.state.heap.pop((key, FROZEN), None)

    def is_frozen(self, target: ast.AST, module: Val) -> bool:
        key = self.module_key(target, module)
        return key is not None and self.state is not None and (key, FROZEN) in self.state.heap

    def cut_iterated(self, target: ast.AST, node: ast.Call) -> None:
        """`for s in state: s.detach_()` cuts every element of `state` in place."""
        if not isinstance(target, ast.Name):
            return
        for frame in reversed(self.loop_frames):
            loop = frame.node
            if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name):
                if loop.target.id == target.id and isinstance(loop.iter, (ast.Name, ast.Attribute)):
                    container = self.ev(loop.iter)
                    parts = tuple(NOTHING for _ in container.parts) if container.parts else None
                    self.assign_to(loop.iter, Val(EMPTY, CONTAINER, None, parts), node)
                return

    # -- modules, classes and local functions -------------------------------------------
    def call_module(self, node: ast.Call, module: Val, args: list[Val]) -> Val:
        if not self.frame.grad_enabled:
            return self.evaluation_cache(node, module, NOTHING)  # kept without history
        local = module.ref is not None and self.class_of_ref(module.ref) is not None
        if not local and module.parts is None and self.is_frozen(node.func, module):
            # A frozen module of a library: only its inputs' graphs reach its output.
            return self.union(args, node)
        if module.ref is not None:
            forward = self.local_method(module.ref, "forward") or self.local_method(
                module.ref, "__call__"
            )
            if forward is not None:
                result = self.call_function(node, forward, args, module)
                return self.evaluation_cache(node, module, result)  # a library's eval cache
        elif module.parts is not None:  # nn.Sequential(...)
            value = args[0] if args else NOTHING
            # Its parts' parameters are its own: an optimizer over it steps them.
            owner = self.module_key(node.func, module)
            self.receivers.append(owner)
            try:
                for part in module.parts:
                    value = self.call_module(node, part, [value])
            finally:
                self.receivers.pop()
            return self.run_added_modules(node, module, value)  # `add_module` after building
        origins = EMPTY.union(*(a.origins for a in args), module.origins)
        built = self.new_origin(node, leaf=False)
        self.note_weights_saved(built, node.func, module, args)
        origins = origins | {built, self.new_origin(node.func, leaf=True)}
        self.call_site = node
        result = self.carry_layer_state(module, args, Val(origins))
        return self.run_added_modules(node, module, result)  # add_module: added_modules.py

    def instance_ref(self, node: ast.Call) -> tuple:
        """The abstract object a constructor call makes here (its site, its loop passes)."""
        return ("instance", id(node), tuple(self.context))

    def instantiate(self, node: ast.Call, info, args: list[Val]) -> Val:
        kind = MODULE if info.is_module else OBJECT
        instance = Val(EMPTY, kind, self.instance_ref(node))
        self.instances[instance.ref] = info
        init = self.local_method(instance.ref, "__init__")
        if init is not None and self.can_inline(init):
            self.call_function(node, init, args, instance)
        elif init is None and self.state is not None:
            fields = record_fields(info)  # a dataclass keeps what it is built with
            for name, val in bound_fields(fields or [], node, args).items():
                self.state.heap[(instance.ref, name)] = Binding(val, self.site(node))
        return instance

    def local_method(self, ref, name: str):
        info = self.class_of_ref(ref)
        if info is None:
            return None
        return info.find_method(name)

    def call_function(self, node: ast.Call, fn, args: list[Val], receiver: Val | None) -> Val:
        """Analyse a local function in the caller's context (inlined, depth-limited)."""
        if fn in self.active:
            # Recursion: the call adds nothing to what the function's other paths return.
            return NOTHING
        if not self.can_inline(fn):
            return (
                self.union(args, node)
                if receiver is None
                else self.call_opaque(node, receiver, args)
            )
        definition = fn.node
        params = self.bind_parameters(definition, node, args, receiver)
        owner = receiver.ref if receiver is not None else None
        if owner is not None:
            self.receivers.append(owner)
        try:
            literals = literal_arguments(definition, node, receiver is not None)
            return self.run_function(fn, params, node, literals)
        finally:
            if owner is not None:
                self.receivers.pop()

    def call_opaque(self, node: ast.Call, receiver: Val, args: list[Val]) -> Val:
        if receiver.kind == MODULE:
            built = self.new_origin(node, leaf=False, assumed=True)
            owner = node.func.value if isinstance(node.func, ast.Attribute) else node.func
            self.note_weights_saved(built, owner, receiver, args)
            return Val(EMPTY.union(*(a.origins for a in args)) | {built})
        return self.union(args, node, assumed=True)

    # -- parameters, optimizers, and the steps that change parameters in place -----------
    def module_key(self, node: ast.AST, module: Val):
        """What names one module's parameters: its abstract object, else its access path
        from the nearest known object (`self.disc` and `net.disc` alike), else its path."""
        if module.kind in (MODULE, OBJECT) and module.ref is not None:
            return module.ref
        path = dotted_name(node)
        if path is None:
            return None
        head, _, rest = path.partition(".")
        root = self.lookup(head)
        if rest and root is not None and root.val.kind in (MODULE, OBJECT) and root.val.ref:
            return ("attr", root.val.ref, rest)
        through = bound_access_path(self, root, rest) if rest else None
        return through if through is not None else ("path", path)

    def has_parameters_taken(self, node: ast.AST) -> bool:
        """Whether `.parameters()` was called on the object `node` names (by its key)."""
        key = self.module_key(node, NOTHING)
        return key is not None and key[0] != "path" and key in self.param_owners.values()

    def new_optimizer(self, args: list[Val], qualified: str | None = None) -> Val:
        """`torch.optim.X(m.parameters(), ...)`: an optimizer over the modules whose
        `.parameters()` reach its arguments (through lists, `+`, param-group dicts)."""
        owners = frozenset(
            self.param_owners[o] for a in args for o in a.origins if o in self.param_owners
        )
        return Val(EMPTY, OPTIMIZER, OptimizerRef(owners or None, qualified))

    def new_parameter(self, node: ast.Call) -> Val:
        """`nn.Parameter(...)`: a leaf, owned by the object whose method creates it."""
        leaf = self.new_origin(node, leaf=True)
        if self.receivers:
            self.param_owners[leaf] = self.receivers[-1]
        return Val(frozenset({leaf}))

    def note_parameters_saved(self, node: ast.AST, operands: list[Val], result: Val) -> None:
        """`x @ self.W`: the op keeps a module's parameter for the gradient of an operand
        with history (with `x` plain data, only `x` is kept)."""
        owners = set()
        for index, operand in enumerate(operands):
            mine = {self.param_owners[o] for o in operand.origins if o in self.param_owners}
            if mine and any(v.origins for i, v in enumerate(operands) if i != index):
                owners |= mine
        if not owners:
            return
        for origin in result.origins:
            if not origin.leaf and origin.site.node is node:
                self.weight_saves[origin] = frozenset(owners)

    def note_weights_saved(self, built, node: ast.AST, module: Val, args: list[Val]) -> None:
        """A module call over inputs with history saves its weights for their gradient
        (on plain data a layer needs only its input); they belong to the module and to
        every object whose method is running it."""
        recurrent = isinstance(module.ref, tuple) and module.ref[:1] == (TORCH_LAYER,)
        recurrent = recurrent and module.ref[1] in api.RECURRENT_LAYERS
        # A recurrent layer feeds each time step's state, which has history, to the next:
        # it keeps its weights even over plain data.
        # A layer whose weight is recomputed from its parameters at each call (spectral_norm)
        # saves them over plain data too (reparametrized.py).
        reparametrized = self.reparametrization(node, module)
        if reparametrized is not None:
            self.note_reparametrized_saves(built, reparametrized)
        elif (
            not recurrent
            and not any(a.origins for a in args)
            and not self.saves_parameters_over_data(built, module)  # library_submodules.py
        ):
            return
        owners = {owner for owner in self.receivers if owner is not None}
        key = self.module_key(node, module)
        if key is not None:
            owners.add(key)
        if owners:
            # The parts of an nn.Sequential build their nodes at its one call site.
            self.weight_saves[built] = self.weight_saves.get(built, frozenset()) | owners

    def optimizer_step(self, node: ast.Call, owners: frozenset) -> None:
        if self.state is None:
            return
        self.seq = next_creation()
        stepped = Stepped(self.seq, self.site(node), tuple(self.context))
        self.state.stepped = {**self.state.stepped, **dict.fromkeys(owners, stepped)}

    def bind_parameters(self, definition, call: ast.Call, args: list[Val], receiver):
        arguments = definition.args
        positional = [*arguments.posonlyargs, *arguments.args]
        env = {}
        site = self.site(call)
        values = list(args[: len(call.args)])
        keyword_vals = dict(zip([kw.arg for kw in call.keywords], args[len(call.args) :]))
        if receiver is not None and positional:
            env[positional[0].arg] = Binding(receiver, site)
            positional = positional[1:]
        for param, val in zip(positional, values):
            env[param.arg] = Binding(val, site)
        extra = values[len(positional) :]
        if arguments.vararg is not None:
            origins = EMPTY.union(*(v.origins for v in extra))
            env[arguments.vararg.arg] = Binding(Val(origins, CONTAINER), site)
        for param in [*positional, *arguments.kwonlyargs]:
            if param.arg in keyword_vals:
                env[param.arg] = Binding(keyword_vals.pop(param.arg), site)
            elif param.arg not in env:
                env[param.arg] = Binding(self.parameter_default(param.arg), site)
        if arguments.kwarg is not None:
            origins = EMPTY.union(*(v.origins for v in keyword_vals.values() if v is not None))
            env[arguments.kwarg.arg] = Binding(Val(origins, CONTAINER), site)
        return env

    def parameter_default(self, name: str) -> Val:
        """A parameter no caller we see passes: what its uses in the function say it is."""
        if self.no_guesses:
            return NOTHING
        return self.refine(name, NOTHING, binding=True)  # a parameter: no snippet's global

    def refine(self, path: str | None, val: Val, binding: bool = False) -> Val:
        """A value bound to `path` that we know nothing of, made a module or an optimizer
        when the code's use of `path` says so (roles.py); `binding`: at `path = ...`."""
        if val.origins or not is_unseen(val) or val.kind not in (TENSOR, OBJECT):
            return val
        role = self.role_of(path, binding)
        if role == roles.MODULE_ROLE:
            # A library object that holds graphs stays itself (library_fits.py).
            return Val(EMPTY, MODULE, val.ref if self.holds_graphs(val) else None)
        if role == roles.OPTIMIZER_ROLE:
            return Val(EMPTY, OPTIMIZER)
        return val
