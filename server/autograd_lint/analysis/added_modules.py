"""Modules of the file added to a container module with `add_module`, run when it is called.

`model = nn.Sequential()` then `model.add_module(name, layer)` in a loop is how PyTorch's
neural-style tutorial splices its loss modules into a copy of VGG: `nn.Sequential.forward`
calls every module it holds, in the order they were added (torch/nn/modules/container.py:
`for module in self: input = module(input)`), and `Module.add_module` puts the module
in `self._modules` (torch/nn/modules/module.py). So calling the container runs the added
module's own `forward` — a `ContentLoss` that sets `self.loss = F.mse_loss(x,
self.target)` — and what that forward keeps on its object (`self.loss`) is what the
caller reads back (`sum(cl.loss for cl in content_losses)`).

Only modules whose class the file defines are followed (a torch layer or an unknown one
is what calling the container already assumes); each `add_module` call, in each loop
pass, is one entry of the container's object, kept across branches and calls.
"""

from __future__ import annotations

import ast
import functools

from .values import MODULE, Binding, Val

ADDED = "<added module>"  # starts the heap attribute of one add_module call's module


class AddedModuleMixin:
    @functools.cached_property
    def containers_with_added(self) -> set:
        """The keys of the containers a module of the file was added to."""
        return set()

    def add_module_part(self, node: ast.Call, owner: ast.AST, container: Val, args) -> None:
        """`container.add_module(name, module)` of a module of the file: remembered."""
        # `args` has one value per written argument (calls.eval_arguments); torch needs
        # both, the name and the module (`add_module(module=m)` raises a TypeError).
        if self.state is None or len(args) < 2:
            return
        keywords = dict(zip([k.arg for k in node.keywords], args[len(node.args) :]))
        module = args[1] if len(node.args) >= 2 else keywords.get("module")
        if module is None or module.kind != MODULE or self.class_of_ref(module.ref) is None:
            return
        key = self.module_key(owner, container)
        if key is None:
            return
        passes = ".".join(str(p.number) for p in self.context)
        attribute = f"{ADDED} {id(node)} {passes}"
        self.state.heap[(key, attribute)] = Binding(module, self.site(node))
        self.containers_with_added.add(key)

    def run_added_modules(self, node: ast.Call, container: Val, value: Val) -> Val:
        """Calling the container runs the file's modules added to it, after the others
        (their input is the container's value so far), in the order they were added."""
        if self.state is None or not self.containers_with_added:
            return value  # most code adds none: no key to work out at every module call
        key = self.module_key(node.func, container)
        if key not in self.containers_with_added:
            return value
        added = [
            binding
            for (owner, attribute), binding in self.state.heap.items()
            if owner == key and isinstance(attribute, str) and attribute.startswith(ADDED)
        ]
        added.sort(key=lambda b: (getattr(b.site.node, "lineno", 0), b.site.node.col_offset))
        for binding in added:
            returned = self.call_module(node, binding.val, [value])
            value = Val(value.origins | returned.origins)
        return value
