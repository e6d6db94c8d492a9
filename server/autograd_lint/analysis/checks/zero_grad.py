"""AG005 zero-grad-misplaced: gradients never cleared, cleared too late, or on the wrong optimizer.

`backward()` adds into `.grad`; an optimizer step reads it. One walk over a scope records
the backward, step and gradient-clearing calls with the loops and branches around them;
three questions are then asked of them:

(a) a loop runs backward and an unconditional step but nothing in it clears gradients
    (a conditional step is gradient accumulation, on purpose);
(b) `zero_grad()` between the last backward and the step, in straight-line order: the
    step sees zeroed (or None) gradients and the parameters do not move;
(c) the loop clears one optimizer and steps another that it never clears, both visible
    optimizer names: the other's gradients pile up over iterations.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from .. import name_fallback, roles
from ..blocks import IDENTIFIER
from ..exprs import walk
from ..model import Role
from .optimizer_text import constructed_optimizers
from .scopes import (
    FUNCTIONS,
    LOOPS,
    STATEMENT_FIELDS,
    Scope,
    dotted_name,
    finding,
    last_part,
    short,
    source_text,
    step,
)

CODE = "AG005"
CLEARING_NAME = re.compile(r"zero_grad|(zero|clear|reset)_?grad|grad_?(zero|clear|reset)", re.I)
# Every event's text: backward, step, zero_grad, `.grad`, or a CLEARING_NAME.
EVENT_TEXT = re.compile(r"backward|step|grad|zero|clear|reset", re.IGNORECASE)
CLEARS_TEXT = re.compile(
    r"zero_grad|\.grad\s*=|\.grad(\.data)?\.(zero_|fill_|mul_)|del\s+\S+\.grad"
)


def wanted(text: str) -> bool:
    return "backward" in text and "step" in text


@dataclass(frozen=True)
class FileFacts:
    """What the whole file says: optimizers built by name, functions that clear gradients."""

    optimizers: frozenset[str]  # last parts: `opt_g` for `self.opt_g = Adam(...)`
    # Functions in blocks whose text mentions clearing: name -> ((block key, node), ...).
    # Whether one really clears is decided, by walking it, only when a checked scope
    # calls it: most never are, and the walks were a tenth of a first analysis.
    candidates: dict = field(default_factory=dict, compare=False)
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def clears(self, name: str) -> bool:
        found = self._memo.get(name)
        if found is None:
            functions = self.candidates.get(name, ())
            found = self._memo[name] = any(_clears(node) for _, node in functions)
        return found

    def clearing_key(self, names: frozenset[str]) -> tuple:
        """What decides, for a scope naming `names`, which of its calls clear: the
        candidates it names, with the blocks that define them."""
        named = sorted(self.candidates.keys() & names)
        return tuple((name, tuple(key for key, _ in self.candidates[name])) for name in named)

    @classmethod
    def merge(cls, parts: list[FileFacts]) -> FileFacts:
        candidates: dict = {}
        for part in parts:
            for name, functions in part.candidates.items():
                candidates[name] = candidates.get(name, ()) + functions
        optimizers = frozenset().union(*(p.optimizers for p in parts))
        return cls(optimizers, candidates)


def file_facts(blocks) -> FileFacts:
    optimizers, candidates = set(), {}
    for block in blocks:
        if block.error is not None:
            continue
        text = block.text
        optimizers.update(last_part(name) for name, _ in constructed_optimizers(text))
        if CLEARS_TEXT.search(text):
            for function in _definitions(block.statements):
                found = (block.key, function)
                candidates[function.name] = candidates.get(function.name, ()) + (found,)
    return FileFacts(frozenset(optimizers), candidates)


def _definitions(statements):
    """Functions defined in these statements, at any depth of statement nesting."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        if isinstance(node, FUNCTIONS):
            yield node
        for name in STATEMENT_FIELDS:
            todo.extend(getattr(node, name, ()) or ())


def _clears(function: ast.AST) -> bool:
    # Depth first in source order: the clearing call usually opens the training loop,
    # so this stops after a few statements where a breadth-first walk sees nearly all.
    stack = [function]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "zero_grad" or _clears_grad_tensor(node):
                return True
        elif isinstance(node, (ast.Assign, ast.Delete)) and _assigns_grad(node):
            return True
        for name in reversed(node._fields):
            value = getattr(node, name, None)
            if value.__class__ is list:
                stack.extend([item for item in reversed(value) if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                stack.append(value)
    return False


def _assigns_grad(node: ast.Assign | ast.Delete) -> bool:
    """`p.grad = None`, `p.grad = g`, `del p.grad`."""
    return any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets)


def _clears_grad_tensor(call: ast.Call) -> bool:
    """`p.grad.zero_()`, `p.grad.data.zero_()`, `p.grad.fill_(0)`, `p.grad.mul_(0)`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("fill_", "mul_"):
        zero = call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
        if not zero:
            return False  # `p.grad.mul_(scale)` rescales, it does not clear
    elif func.attr != "zero_":
        return False
    receiver = func.value
    if isinstance(receiver, ast.Attribute) and receiver.attr == "data":
        receiver = receiver.value
    return isinstance(receiver, ast.Attribute) and receiver.attr == "grad"


@dataclass(eq=False)
class Event:
    kind: str  # "backward", "step", "zero" (x.zero_grad()), "clear" (any other clearing)
    node: ast.AST
    block: object
    frames: tuple  # enclosing loops and branches, outermost first: ("loop"|"if", node)
    group: tuple  # the straight-line run it belongs to
    seq: int
    receiver: str | None = None
    closure: bool = False  # opt.step(closure): the closure clears and backwards itself


class EventCollector:
    def __init__(self, facts: FileFacts, evidence=None):
        self.facts = facts
        self.evidence = evidence  # roles.ScopeEvidence of the scope: what its use shows
        self.events: list[Event] = []
        self.block = None

    def statements(self, statements, frames, group) -> None:
        for statement in statements:
            self.statement(statement, frames, group)

    def statement(self, node: ast.stmt, frames: tuple, group: tuple) -> None:
        if isinstance(node, LOOPS):
            self.expression(node.iter if not isinstance(node, ast.While) else node.test,
                            frames, group)  # fmt: skip
            inner = (*frames, ("loop", node))
            self.statements(node.body, inner, (id(node), "body"))
            self.statements(node.orelse, frames, (id(node), "else"))
        elif isinstance(node, ast.If):
            self.expression(node.test, frames, group)
            inner = (*frames, ("if", node))
            self.statements(node.body, inner, (id(node), "body"))
            self.statements(node.orelse, inner, (id(node), "else"))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expression(item.context_expr, frames, group)
            self.statements(node.body, frames, group)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.statements(node.body, frames, group)
            for handler in node.handlers:
                self.statements(handler.body, (*frames, ("if", handler)), (id(handler), ""))
            self.statements(node.orelse, frames, group)
            self.statements(node.finalbody, frames, group)
        elif isinstance(node, ast.Match):
            self.expression(node.subject, frames, group)
            for case in node.cases:
                self.statements(case.body, (*frames, ("if", case)), (id(case), ""))
        elif isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            # A closure defined in the loop (`def closure(): opt.zero_grad() ...`) clears there.
            if any(kind == "loop" for kind, _ in frames) and _clears(node):
                self.add("clear", node, frames, group)
        else:
            self.expression(node, frames, group)

    def expression(self, root: ast.AST, frames, group) -> None:
        if not self.may_hold_event(root):
            return
        for node in walk(root):
            if isinstance(node, ast.Call):
                self.call(node, frames, group)
            elif isinstance(node, (ast.Assign, ast.Delete)) and _assigns_grad(node):
                self.add("clear", node, frames, group)

    def may_hold_event(self, root: ast.AST) -> bool:
        """Whether the text of `root` has what any event needs (see `call`): most lines of
        a training loop have none, and reading them is cheaper than walking them."""
        text = source_text(self.block, root)
        if EVENT_TEXT.search(text):
            return True
        names = self.facts.candidates.keys()
        return bool(names) and not names.isdisjoint(IDENTIFIER.findall(text))

    def call(self, node: ast.Call, frames, group) -> None:
        func = node.func
        attr = func.attr if isinstance(func, ast.Attribute) else ""
        name = dotted_name(func) or attr
        if attr in ("backward", "manual_backward") or name == "torch.autograd.backward":
            self.add("backward", node, frames, group)
        elif attr == "zero_grad":
            self.add("zero", node, frames, group, dotted_name(func.value))
        elif attr == "step":
            receiver = dotted_name(func.value)
            closure = bool(node.args or node.keywords)
            if (
                receiver
                and node.args
                and name_fallback.fallback_role(receiver, name_fallback.SCALER_ROLE)
            ):
                receiver, closure = dotted_name(node.args[0]), False
            if receiver and self.is_optimizer(receiver):
                self.add("step", node, frames, group, receiver, closure)
        elif _clears_grad_tensor(node) or (
            self.facts.clears(last_part(name)) or CLEARING_NAME.search(name)
        ):
            self.add("clear", node, frames, group)

    def is_optimizer(self, receiver: str) -> bool:
        return is_optimizer(receiver, self.facts, self.evidence)

    def add(self, kind, node, frames, group, receiver=None, closure=False) -> None:
        event = Event(kind, node, self.block, frames, group, len(self.events), receiver, closure)
        self.events.append(event)


def is_optimizer(receiver: str, facts: FileFacts, evidence) -> bool:
    """Built by a torch.optim constructor in the file, or used as one: `step()` and
    `zero_grad()`, `param_groups` (roles.py) -- never because of its name."""
    if last_part(receiver) in facts.optimizers:
        return True
    role = evidence.role(receiver, free=True) if evidence is not None else None
    if role is not None:
        return role == roles.OPTIMIZER_ROLE
    return name_fallback.fallback_role(receiver, roles.OPTIMIZER_ROLE)  # nothing else is known


def check(scope: Scope, facts: FileFacts, path: str = "") -> list:
    collector = EventCollector(facts, roles.scope_roles(scope))
    for block, statement in scope.items:
        collector.block = block
        collector.statement(statement, (), ("scope", 0))
    events = collector.events
    steps = [e for e in events if e.kind == "step" and not e.closure]
    if not steps or not any(e.kind == "backward" for e in events):
        return []
    findings = []
    for stepped in steps:
        found = _cleared_too_late(stepped, events, steps, facts, collector.evidence)
        if found is None:
            loop = _loop_of(stepped, events)
            if loop is not None and not _conditional_in(stepped, loop):
                found = _never_cleared(stepped, loop, events) or _other_optimizer(
                    stepped, loop, events, facts
                )
        if found is not None:
            findings.append(replace(found, path=path))
    return _unique(findings)


def _unique(findings):
    seen, out = set(), []
    for item in findings:
        key = (item.span, item.kind)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _loop_of(stepped: Event, events: list[Event]):
    """The innermost loop around the step that also holds a backward."""
    loops = [node for kind, node in stepped.frames if kind == "loop"]
    for loop in reversed(loops):
        if any(e.kind == "backward" and _inside(e, loop) for e in events):
            return loop
    return None


def _inside(event: Event, loop) -> bool:
    return any(node is loop for _kind, node in event.frames)


def _conditional_in(event: Event, loop) -> bool:
    after = False
    for kind, node in event.frames:
        if node is loop:
            after = True
        elif after and kind == "if":
            return True
    return False


def _never_cleared(stepped: Event, loop, events: list[Event]):
    if any(e.kind in ("zero", "clear") and _inside(e, loop) for e in events):
        return None
    backward = next(e for e in events if e.kind == "backward" and _inside(e, loop))
    message = (
        f"`{short(stepped.node)}` runs every iteration but nothing in the loop clears the "
        f"gradients: each backward() adds to the gradients of all earlier iterations. Call "
        f"`{stepped.receiver}.zero_grad()` once per step (or step under a condition when "
        f"accumulating on purpose)"
    )
    evidence = [
        step(backward.block, backward.node, "backward() adds into .grad", Role.BUILT),
        step(
            stepped.block,
            stepped.node,
            "steps with the gradients summed over every iteration so far",
            Role.FAILS,
        ),  # fmt: skip
    ]
    return finding(CODE, message, stepped.block, stepped.node, evidence,
                   "never-cleared")  # fmt: skip


def _cleared_too_late(stepped: Event, events, steps, facts: FileFacts, evidence=None):
    """zero_grad() between the last backward and the step, in one straight-line run."""
    run = [e for e in events if e.group == stepped.group and e.seq < stepped.seq]
    backwards = [e for e in run if e.kind == "backward"]
    if not backwards:
        return None
    last_backward = backwards[-1]
    stepped_names = {s.receiver for s in steps}
    single_optimizer = len(stepped_names) == 1
    for zero in run:
        if zero.kind != "zero" or zero.seq < last_backward.seq:
            continue
        same = zero.receiver == stepped.receiver
        receiver_is_optimizer = zero.receiver is not None and is_optimizer(
            zero.receiver, facts, evidence
        )
        if same or (single_optimizer and not receiver_is_optimizer):
            message = (
                f"`{short(zero.node)}` runs after `{short(last_backward.node)}` and before "
                f"`{short(stepped.node)}`: the step sees cleared gradients and the parameters "
                f"do not move. Clear gradients before the backward (or after the step)"
            )
            evidence = [
                step(
                    last_backward.block, last_backward.node, "gradients computed here", Role.BUILT
                ),  # fmt: skip
                step(zero.block, zero.node, "and cleared here", Role.NOTE),
                step(
                    stepped.block,
                    stepped.node,
                    "steps with zero (or None) gradients: nothing changes",
                    Role.FAILS,
                ),  # fmt: skip
            ]
            return finding(CODE, message, zero.block, zero.node, evidence,
                           "cleared-before-step")  # fmt: skip
    return None


def _other_optimizer(stepped: Event, loop, events, facts: FileFacts):
    """The loop clears optimizer A's gradients and steps B, which it never clears."""
    if last_part(stepped.receiver) not in facts.optimizers:
        return None
    clears = [e for e in events if e.kind in ("zero", "clear") and _inside(e, loop)]
    others = []
    for clear in clears:
        if clear.kind == "clear" or clear.receiver is None:
            return None
        if clear.receiver == stepped.receiver:
            return None
        if last_part(clear.receiver) not in facts.optimizers:
            return None  # a model's zero_grad(): which parameters it clears is unknown here
        others.append(clear)
    before = [e for e in others if e.seq < stepped.seq]
    zero = (before or others)[-1]
    backward = next(e for e in events if e.kind == "backward" and _inside(e, loop))
    message = (
        f"`{short(zero.node)}` clears `{zero.receiver}`, but `{short(stepped.node)}` steps "
        f"`{stepped.receiver}`, whose gradients nothing in the loop clears: they pile up over "
        f"iterations. Add `{stepped.receiver}.zero_grad()`"
    )
    evidence = [
        step(backward.block, backward.node, "backward() adds into .grad", Role.BUILT),
        step(zero.block, zero.node, f"clears only `{zero.receiver}`", Role.NOTE),
        step(
            stepped.block,
            stepped.node,
            f"steps `{stepped.receiver}` with gradients summed over iterations",
            Role.FAILS,
        ),  # fmt: skip
    ]
    return finding(CODE, message, zero.block, zero.node, evidence,
                   "other-optimizer")  # fmt: skip
