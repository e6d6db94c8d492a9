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
from dataclasses import dataclass, replace

from .. import name_fallback, roles
from ..blocks import IDENTIFIER
from ..exprs import walk
from ..model import Role
from .scopes import (
    FUNCTIONS,
    LOOPS,
    Scope,
    dotted_name,
    finding,
    last_part,
    short,
    source_text,
    step,
)
from .zero_grad_facts import (
    FileFacts,
    assigns_grad,
    clears_body,
    clears_grad_tensor,
    file_function,
    is_optimizer,
    scaler_uses,
)

CODE = "AG005"
# Every event's text: backward, step, zero_grad, `.grad`, or a clearing name (the fallback's
# row for functions the file does not define).
EVENT_TEXT = re.compile(r"backward|step|grad|zero|clear|reset", re.IGNORECASE)


def wanted(text: str) -> bool:
    return "backward" in text and "step" in text


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
    def __init__(self, facts: FileFacts, evidence=None, scope=None, aliases=None):
        self.facts = facts
        self.aliases = aliases or {}  # the file's imports: local name -> dotted name
        # Local names of torch.autograd.backward (`from torch.autograd import backward as
        # bw`): a line calling one holds an event whatever its text says.
        self.backward_names = frozenset(
            local for local, dotted in self.aliases.items() if dotted == "torch.autograd.backward"
        )
        self.scope = scope
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
            if any(kind == "loop" for kind, _ in frames) and clears_body(node, self.facts):
                self.add("clear", node, frames, group)
        else:
            self.expression(node, frames, group)

    def expression(self, root: ast.AST, frames, group) -> None:
        if not self.may_hold_event(root):
            return
        for node in walk(root):
            if isinstance(node, ast.Call):
                self.call(node, frames, group)
            elif isinstance(node, (ast.Assign, ast.Delete)) and assigns_grad(node):
                self.add("clear", node, frames, group)

    def may_hold_event(self, root: ast.AST) -> bool:
        """Whether the text of `root` has what any event needs (see `call`): most lines of
        a training loop have none, and reading them is cheaper than walking them."""
        text = source_text(self.block, root)
        if EVENT_TEXT.search(text):
            return True
        names = self.facts.candidates.keys() | self.backward_names
        return bool(names) and not names.isdisjoint(IDENTIFIER.findall(text))

    def call(self, node: ast.Call, frames, group) -> None:
        func = node.func
        attr = func.attr if isinstance(func, ast.Attribute) else ""
        name = dotted_name(func) or attr
        qualified = roles.qualify(name, self.aliases) if name else ""
        if attr in ("backward", "manual_backward") or qualified == "torch.autograd.backward":
            self.add("backward", node, frames, group)
        elif attr == "zero_grad":
            self.add("zero", node, frames, group, dotted_name(func.value))
        elif attr == "step":
            receiver = dotted_name(func.value)
            closure = bool(node.args or node.keywords)
            stepped = self.stepped_argument(receiver, node)
            if stepped is not None:
                receiver, closure = stepped, False
            if receiver and (stepped is not None or self.is_optimizer(receiver)):
                self.add("step", node, frames, group, receiver, closure)
        elif clears_grad_tensor(node) or self.clears(name, func):
            self.add("clear", node, frames, group)

    def clears(self, name: str, func: ast.AST) -> bool:
        """A call of a function of the file is judged by its body; one the file does not
        define (imported, a method of an object built elsewhere), by the name fallback."""
        function = file_function(func)
        if function is None:
            return False  # `model.train()`: a torch method, whatever the file defines
        if self.facts.defines(function):
            return self.facts.clears(function)
        return bool(name) and name_fallback.fallback_role(name, name_fallback.CLEARING_ROLE)

    def stepped_argument(self, receiver: str | None, node: ast.Call) -> str | None:
        """`scaler.step(optimizer)`: the optimizer an object's `step(x)` steps, when `x` is
        one. The receiver is a grad scaler by construction or by use (`scaler.scale(loss)
        .backward()`, `scaler.unscale_(opt)`), or `x` is an optimizer by construction or
        use; an optimizer's own `step(closure)` is none of these."""
        argument = dotted_name(node.args[0]) if node.args else None
        if receiver is None or argument is None:
            return None
        if last_part(receiver) in self.facts.optimizers:
            return None
        if last_part(receiver) in self.facts.scalers or receiver in scaler_uses(self.scope):
            return argument
        if last_part(argument) in self.facts.optimizers:
            return argument
        role = self.evidence.role(argument, free=True) if self.evidence is not None else None
        if role is not None:
            return argument if role == roles.OPTIMIZER_ROLE else None
        receiver_role = self.evidence.role(receiver, free=True) if self.evidence else None
        if receiver_role is None and name_fallback.fallback_role(
            argument, name_fallback.OPTIMIZER_ROLE
        ):
            return argument  # nothing is known of either: the fallback's row
        return None

    def is_optimizer(self, receiver: str) -> bool:
        return is_optimizer(receiver, self.facts, self.evidence)

    def add(self, kind, node, frames, group, receiver=None, closure=False) -> None:
        event = Event(kind, node, self.block, frames, group, len(self.events), receiver, closure)
        self.events.append(event)


def check(scope: Scope, facts: FileFacts, path: str = "", aliases=None) -> list:
    collector = EventCollector(facts, roles.scope_roles(scope), scope, aliases)
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
