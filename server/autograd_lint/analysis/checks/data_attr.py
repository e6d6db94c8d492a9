"""AG006 data-attribute: `.data` reads in training code, and writes through `.data`.

`x.data` is `x`'s storage without its history *and without its version counter*: an
in-place write through it is invisible to autograd, so a backward that needs the old
values silently computes wrong gradients instead of raising. In training code (a scope
that calls backward or steps) writes outside `torch.no_grad()` are warnings (the safe
spelling is `with torch.no_grad(): p.copy_(...)`) and reads are informational
(`x.detach()` keeps the checks). Elsewhere (init and weight-surgery code) in-place writes
are informational and whole-tensor swaps (`p.data = p.data.half()`) are not reported.

Only receivers that are visibly tensors count, by evidence, never by their names: torch's
parameter attributes (`m.weight`, `m.bias`, `p.grad`), the elements of
`model.parameters()` (also through a list of them, or an optimizer's `param_groups`), what
torch functions (resolved through the file's imports) and modules (roles.py) return, what
the scope back-propagates (`loss.backward()` makes `loss` a tensor), and ops over those;
`dataset.data` or `batch.data` never do.
"""

from __future__ import annotations

import ast
import copy
import re

from .. import roles
from .. import torch_api as api
from ..exprs import walk
from ..model import Role
from . import inplace_table as table
from .constructors import statements_in
from .scopes import (
    FUNCTIONS,
    Scope,
    dotted_name,
    finding,
    is_no_grad_context,
    last_part,
    short,
    step,
)

CODE = "AG006"
# The tensors torch's own modules hold under these attribute names (nn.Linear's weight,
# BatchNorm's running stats, MultiheadAttention's in_proj_*, LSTM's weight_ih_l0 ...,
# weight_norm's weight_g / weight_v, pruning's weight_orig), and every tensor's `.grad`.
TENSOR_ATTRIBUTES = re.compile(
    r"^(weight|bias|grad|running_mean|running_var|in_proj_weight|in_proj_bias|"
    r"(weight|bias)_(ih|hh|hr)_l\d+(_reverse)?|weight_(g|v|orig)|bias_orig)$"
)

# Attributes only a tensor has: reading one on a value makes it one.
TENSOR_ONLY_ATTRIBUTES = frozenset({"grad", "requires_grad", "grad_fn", "is_leaf"})
TENSOR_ONLY_TEXT = re.compile(r"\.(grad|requires_grad|grad_fn|is_leaf)\b")
# torch classes whose instances are tensors (`Variable(x)`, `nn.Parameter(w)`).
TENSOR_CLASSES = frozenset({"Variable", "Parameter", "Buffer"})
# nn.Module methods that return one of its tensors.
PARAMETER_GETTERS = frozenset({"get_parameter", "get_buffer"})


def wanted(text: str) -> bool:
    return ".data" in text


class DataChecker:
    def __init__(self, scope: Scope, path: str, aliases: dict[str, str] | None = None):
        self.scope = scope
        self.path = path
        self.aliases = aliases or {}
        text = scope.text
        self.training = "backward" in text or "step(" in text
        self._evidence = None
        self.tensors: set[str] = set()
        if "backward" in text:
            # What the scope back-propagates is a tensor (`loss.backward()`).
            methods = self.evidence.methods
            self.tensors.update(path for path, used in methods.items() if "backward" in used)
        self.parameter_lists: set[str] = set()  # `params = list(model.parameters())`
        # Parameter containers need one of these in the text (what holds_parameters reads).
        self.mentions_parameters = any(w in text for w in ("parameters(", "param_groups", "params"))
        self.block = None
        self.findings = []
        if TENSOR_ONLY_TEXT.search(text):
            self.tensors |= self.used_as_tensors()
        if scope.owner is not None:
            self.tensors |= class_tensors(scope.owner, self.aliases)

    @property
    def evidence(self) -> roles.ScopeEvidence:
        if self._evidence is None:
            self._evidence = roles.scope_roles(self.scope)
        return self._evidence

    def used_as_tensors(self) -> set[str]:
        """Paths whose use only a tensor allows: `p.grad`, `p.requires_grad`, `p.grad_fn`,
        `p.is_leaf` read on them (`param.data -= lr * param.grad`)."""
        found = set()
        for _, statement in self.scope.items:
            for node in walk(statement):
                if isinstance(node, ast.Attribute) and node.attr in TENSOR_ONLY_ATTRIBUTES:
                    path = dotted_name(node.value)
                    if path is not None:
                        found.add(path)
        return found

    def run(self) -> list:
        quiet = 1 if self.scope.no_grad else 0
        for block, statement in self.scope.items:
            self.block = block
            self.statement(statement, quiet)
        return self.findings

    def statement(self, node: ast.stmt, quiet: int) -> None:
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            if any(is_no_grad_context(item.context_expr) for item in node.items):
                quiet += 1
            for child in node.body:
                self.statement(child, quiet)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.learn_loop_target(node)
        body_fields = [f for f in ("body", "orelse", "finalbody", "handlers", "cases")
                       if getattr(node, f, None)]  # fmt: skip
        if body_fields:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expressions(child, node, quiet)
            for field in body_fields:
                for child in getattr(node, field):
                    inner = (
                        getattr(child, "body", None) if not isinstance(child, ast.stmt) else None
                    )
                    for statement in inner if inner is not None else [child]:
                        self.statement(statement, quiet)
            return
        if isinstance(node, ast.Assign):
            self.learn_assignment(node)
        self.expressions(node, node, quiet)

    # -- what is a tensor ---------------------------------------------------------------
    def learn_assignment(self, node: ast.Assign) -> None:
        found = self.tensors if self.is_tensor(node.value) else None
        if found is None and self.holds_parameters(node.value):
            found = self.parameter_lists
        if found is not None:
            for target in node.targets:
                # `out, hidden = rnn(x, hidden)`: the elements of a module's result too.
                elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                for element in elements:
                    key = dotted_name(element)
                    if key is not None:
                        found.add(key)

    def holds_parameters(self, node: ast.AST) -> bool:
        """`model.parameters()`, `list(...)` / `zip(...)` / `chain(...)` of them, a list of
        them, `group["params"]` of an optimizer's `param_groups` (torch's key)."""
        if not (self.mentions_parameters or self.parameter_lists):
            return False
        return any(self._hands_out_parameters(inner) for inner in walk(node))

    def _hands_out_parameters(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            func = node.func
            return isinstance(func, ast.Attribute) and func.attr in api.PARAMETER_METHODS
        if isinstance(node, ast.Subscript):
            key = node.slice
            return isinstance(key, ast.Constant) and key.value == "params"
        if isinstance(node, ast.Attribute) and node.attr == "param_groups":
            return True
        return isinstance(node, (ast.Name, ast.Attribute)) and (
            dotted_name(node) in self.parameter_lists
        )

    def learn_loop_target(self, node) -> None:
        if not self.holds_parameters(node.iter):
            return
        target = node.target
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        for name in names:
            key = dotted_name(name)
            if key is not None:
                self.tensors.add(key)

    def is_tensor(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and torch_makes_tensor(node, self.aliases):
            return True
        if isinstance(node, ast.Attribute):
            if node.attr in ("T", "mT") or TENSOR_ATTRIBUTES.match(node.attr):
                return True
            key = dotted_name(node)
            return key in self.tensors if key else False
        if isinstance(node, ast.Name):
            return node.id in self.tensors
        if isinstance(node, ast.Subscript):
            return self.is_tensor(node.value)
        if isinstance(node, ast.BinOp):
            return self.is_tensor(node.left) or self.is_tensor(node.right)
        if isinstance(node, ast.Call):
            func = node.func
            name = dotted_name(func) or ""
            if roles.qualify(name, self.aliases).startswith("torch."):
                return False  # a torch class that is no tensor (torch_makes_tensor said)
            if roles.is_module(self.evidence, name or None):
                return True
            if isinstance(func, ast.Attribute) and func.attr in PARAMETER_GETTERS:
                return True
            if isinstance(func, ast.Attribute) and func.attr not in api.CUT_METHODS:
                return self.is_tensor(func.value)
        return False

    # -- findings -----------------------------------------------------------------------
    def expressions(self, root: ast.AST, statement: ast.stmt, quiet: int) -> None:
        if quiet:
            return
        writes = list(self.writes(root))
        for data, at in writes:
            self.report_write(data, at, statement)
        if writes or not self.training:
            return
        for node in walk(root):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "data"
                and isinstance(node.ctx, ast.Load)
                and self.is_tensor(node.value)
            ):
                self.report_read(node)

    def writes(self, root: ast.AST):
        """(the `x.data` node, the writing node) for each write through `.data`."""
        for node in walk(root):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    data = target.value if isinstance(target, ast.Subscript) else target
                    if self.is_data(data):
                        yield data, node
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute):
                    method = func.attr
                    if (
                        method.endswith("_")
                        and not method.startswith("_")
                        and method not in table.NOT_MODIFYING
                        and self.is_data(func.value)
                    ):
                        yield func.value, node
                        continue
                name = dotted_name(func) or ""
                if (
                    last_part(name).endswith("_")
                    and node.args
                    and self.is_data(node.args[0])
                    and not self.is_data(getattr(func, "value", None))
                ):
                    # `nn.init.constant_(m.bias.data, 0)`; in `a.data.copy_(b.data)` only
                    # `a` is written.
                    yield node.args[0], node

    def is_data(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute) and node.attr == "data" and self.is_tensor(node.value)
        )

    def report_write(self, data: ast.Attribute, at: ast.AST, statement: ast.stmt) -> None:
        owner = short(data.value)
        kind = "write"
        if not self.training:
            # Weight surgery and init code: no graph of this scope is pending. Swapping a
            # parameter's tensor (`p.data = p.data.half()`) has no copy_() equivalent.
            if isinstance(at, ast.Assign) and at.targets[0] is data:
                return
            kind = "setup-write"
        safe = safe_spelling(statement)
        message = (
            f"write through `{owner}.data`: autograd does not see it (the version counter is "
            f"not bumped), so a backward that saved `{owner}` silently uses the new values. "
            f"Write under no_grad instead: `with torch.no_grad(): {safe}`"
        )
        evidence = [
            step(
                self.block,
                data,
                f"`{owner}.data` is `{owner}` with autograd's checks off",
                Role.BUILT,
                owner,
            ),  # fmt: skip
            step(
                self.block,
                at,
                "this in-place write is invisible to autograd: wrong gradients are not caught",
                Role.FAILS,
                owner,
            ),  # fmt: skip
        ]
        self.findings.append(finding(CODE, message, self.block, at, evidence,
                                     kind, self.path, suggestion=safe))  # fmt: skip

    def report_read(self, data: ast.Attribute) -> None:
        owner = short(data.value)
        message = (
            f"`{owner}.data` reads the tensor with autograd's checks off; use "
            f"`{owner}.detach()` (or `.item()` for a number), which shares the storage but "
            f"still raises if an in-place change breaks a backward"
        )
        evidence = [
            step(
                self.block,
                data,
                f"`{owner}.data`: the same storage, no history, no version checks",
                Role.BUILT,
                owner,
            ),  # fmt: skip
            step(
                self.block,
                data,
                "in-place changes through it, or to it, go unnoticed by autograd",
                Role.FAILS,
                owner,
            ),  # fmt: skip
        ]
        self.findings.append(finding(CODE, message, self.block, data, evidence,
                                     "read", self.path, suggestion=f"{owner}.detach()"))  # fmt: skip


class _DropData(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        return node.value if node.attr == "data" else node


def safe_spelling(statement: ast.stmt) -> str:
    """The statement without `.data`; `p.data = v` becomes `p.copy_(v)`."""
    fixed = _DropData().visit(copy.deepcopy(statement))
    if isinstance(fixed, ast.Assign) and len(fixed.targets) == 1:
        target = fixed.targets[0]
        if not isinstance(target, (ast.Subscript, ast.Tuple)):
            fixed = ast.Expr(ast.Call(ast.Attribute(target, "copy_"), [fixed.value], []))
    try:
        return " ".join(ast.unparse(fixed).split())
    except Exception:  # noqa: BLE001 - odd nodes from partial code
        return "..."


def torch_makes_tensor(call: ast.Call, aliases: dict[str, str]) -> bool:
    """A torch function (resolved through the imports), or a torch class whose instances
    are tensors (`Variable`, `nn.Parameter`, `torch.FloatTensor`)."""
    qualified = roles.qualify(dotted_name(call.func) or "", aliases)
    if not qualified.startswith("torch.") or qualified.startswith("torch.utils"):
        return False
    last = last_part(qualified)
    return not last[:1].isupper() or last in TENSOR_CLASSES or last.endswith("Tensor")


def class_tensors(owner: ast.ClassDef, aliases: dict[str, str]) -> frozenset[str]:
    """`self.w = nn.Parameter(...)` / `self.register_buffer("w", ...)` in any method of
    the class: `self.w` is a tensor in all of them. Found once per class and imports."""
    key = tuple(sorted(aliases.items()))
    memo = getattr(owner, "_autograd_lint_tensors", None)
    if memo is not None and memo[0] == key:
        return memo[1]
    found = set()
    methods = [m for m in owner.body if isinstance(m, FUNCTIONS)]
    for node in statements_in(methods):
        value = getattr(node, "value", None)
        if not isinstance(value, ast.Call):
            continue
        if isinstance(node, ast.Assign) and torch_makes_tensor(value, aliases):
            paths = (dotted_name(target) for target in node.targets)
            found.update(p for p in paths if p is not None and p.startswith("self."))
        elif (
            isinstance(node, ast.Expr)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("register_buffer", "register_parameter")
            and value.args
            and isinstance(value.args[0], ast.Constant)
            and isinstance(value.args[0].value, str)
        ):
            found.add(f"self.{value.args[0].value}")
    owner._autograd_lint_tensors = (key, frozenset(found))  # the tree is ours: a memo on it
    return owner._autograd_lint_tensors[1]


def check(scope: Scope, path: str = "", aliases: dict[str, str] | None = None) -> list:
    return DataChecker(scope, path, aliases).run()
