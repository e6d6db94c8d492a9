"""The file's own `torch.autograd.Function` subclasses, run as torch runs them.

`Step.apply(x)` calls `Step.forward(ctx, x)` with grad mode off (torch/autograd/function.py:
`Function.apply` goes to the C++ `_FunctionBase.apply`, which runs forward under no_grad)
and makes one graph node over the inputs' graphs; every backward pass that reaches that
node calls `Step.backward(ctx, *grads)` with what forward kept on `ctx`
(`ctx.save_for_backward(...)`, read back as `ctx.saved_tensors`). So a backward that
differentiates a graph its forward built under `enable_grad` (an implicit layer, a
surrogate) frees that inner graph the first time it runs, whatever `retain_graph` the
outer pass had: a second backward through the same node (two losses over one output,
the first with `retain_graph=True`) raises inside `Step.backward`
(pytorch/pytorch#65536). A backward that rebuilds the inner graph at each call, or
keeps it (`retain_graph=True` on the inner call), runs.

Only classes the file defines are run, and only when their base resolves through the
imports to torch's `Function` (never by how the class is called); the interpreter
inlines forward and backward like any local function (depth and budget limited).
"""

from __future__ import annotations

import ast
import functools

from .frameworks import derives_from
from .model import Role
from .report import RawStep, source_of
from .values import CONTAINER, EMPTY, NOTHING, OBJECT, Binding, Site, Val

FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
CONTEXT = "autograd ctx"  # the first element of the key of a Function's ctx object
SAVED = "saved_tensors"
FREED_CODES = ("AG001", "AG002")


def is_autograd_function(info) -> bool:
    """Whether a class of the file derives from torch.autograd.Function (through its
    imports, or through another class of the file)."""
    return derives_from(info, info.aliases, FUNCTION_BASES)


def is_context(ref) -> bool:
    return isinstance(ref, tuple) and ref[:1] == (CONTEXT,)


class CustomFunctionMixin:
    @functools.cached_property
    def custom_nodes(self) -> dict:
        """The nodes local Functions built -> (their class, their ctx, the call's site)."""
        return {}

    def apply_custom_function(self, node: ast.Call, info) -> Val | None:
        """`Step.apply(x)` of a local Function: its forward run without grad, its node
        remembered so that each backward reaching it runs `Step.backward`; None when the
        class is no Function or has no forward (the caller does what it did before)."""
        if info is None or not is_autograd_function(info):
            return None
        forward = info.find_method("forward")
        if forward is None or info.find_method("backward") is None:
            return None
        args = self.eval_arguments(node)
        ctx = Val(EMPTY, OBJECT, (CONTEXT, id(node), tuple(self.context)))
        grad_enabled = self.frame.grad_enabled
        self.frame.grad_enabled = False  # torch runs forward under no_grad
        try:
            result = self.call_function(node, forward, args, ctx)
        finally:
            self.frame.grad_enabled = grad_enabled
        given = EMPTY.union(*(a.origins for a in args))
        if not grad_enabled or not given:
            return NOTHING  # no input requires grad: torch's output has no grad_fn
        built = self.new_origin(node, leaf=False)
        self.custom_nodes[built] = (info, ctx, self.site(node))
        origins = given | {built}
        if result.parts is not None:  # several outputs: each is the node's
            return Val(origins, CONTAINER, None, tuple(Val(origins) for _ in result.parts))
        return Val(origins)

    def save_for_backward(self, node: ast.Call, ctx: Val, args: list[Val]) -> Val:
        """`ctx.save_for_backward(a, b)`: `ctx.saved_tensors` is (a, b) in backward."""
        if self.state is not None and not any(isinstance(a, ast.Starred) for a in node.args):
            kept = Val(EMPTY.union(*(a.origins for a in args)), CONTAINER, None, tuple(args))
            self.state.heap[(ctx.ref, SAVED)] = Binding(kept, self.site(node))
        return NOTHING

    def run_custom_backwards(self, call: ast.Call, nodes: list) -> None:
        """A backward pass reaching nodes of local Functions calls their backward, in the
        order they were built (latest first, as the engine goes from the root)."""
        custom = self.custom_nodes
        if not custom:
            return
        reached = sorted((o for o in nodes if o in custom), key=lambda o: -o.seq)
        from .calls import literal_keyword  # calls.py imports this module

        create_graph = literal_keyword(call, "create_graph") is True
        for origin in reached:
            info, ctx, applied = custom[origin]
            backward = info.find_method("backward")
            grad_enabled = self.frame.grad_enabled
            self.frame.grad_enabled = create_graph  # the engine's grad mode in backward
            before = set(self.reporter.findings)
            try:
                self.call_function(call, backward, [], ctx)  # the grads: plain data
            finally:
                self.frame.grad_enabled = grad_enabled
            self.raised_by(call, before, info, applied)

    def raised_by(self, call: ast.Call, before: set, info, applied: Site) -> None:
        """A freed graph met inside a Function's backward is raised by the backward call
        that ran it (torch's traceback ends in the engine, called from that line): the
        finding sits there, its evidence still pointing at the line inside `backward`."""
        findings = self.reporter.findings
        outer = Site(self.frame.block, call)
        for key in [k for k in findings if k not in before]:
            finding = findings[key]
            if finding.code in FREED_CODES and finding.site.node is not call:
                del findings[key]
                finding.site = outer
                note = (
                    f"`{source_of(applied)}` is a node of the graph: every backward that "
                    f"reaches it calls `{info.name}.backward`"
                )
                finding.steps.insert(-1, RawStep(applied, note, Role.NOTE))
                findings.setdefault(finding.key, finding)
