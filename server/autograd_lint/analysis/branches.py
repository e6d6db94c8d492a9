"""`if` statements: which branch a stable flag takes, and periodic backward branches.

A condition made of names, attributes and constants that nothing changes in between
(`if args.train_text_encoder:` ... `if args.train_text_encoder:`) takes the same branch
both times: what the first one's branches bound is kept for the second, and the graphs
only the other side brought in leave the value (`remember_branches` / `recall_branch`).
In a loop's first pass, an `if` whose one branch back-propagates is followed, not joined
(`periodic_backward_branch`). The interpreter mixes this in.
"""

from __future__ import annotations

import ast
import operator
import weakref
from typing import NamedTuple

from .bound_methods import decide_set_test
from .exprs import walk
from .literal_arguments import decided_by_literal
from .syntax_facts import has_backward, none_tests
from .values import EMPTY, NOTHING, Binding, Val, join_states

STABLE_CONDITION_NODES = (
    ast.Name, ast.Attribute, ast.Constant, ast.Load, ast.BoolOp, ast.And, ast.Or, ast.Compare,
    ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn,
)  # fmt: skip


def stable_condition(test: ast.expr):
    """(key, polarity) of a condition made only of names, attributes and constants (an
    `args.flag`, `not cfg.use_ema`): one the loop body does not compute; else None."""
    polarity = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, polarity = test.operand, not polarity
    if not all(isinstance(n, STABLE_CONDITION_NODES) for n in walk(test)):
        return None
    # A bare name too (`freeze_text_encoder = not args.train_text_encoder`): the names a
    # condition reads must keep their binding from one `if` to the next (`condition_guards`),
    # and no enclosing loop may assign them (`Interpreter.stable_here`).
    return condition_key(test), polarity


def condition_key(node: ast.AST):
    """A structural key of a stable condition (`ast.dump` would leave reference cycles)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return (condition_key(node.value), node.attr)
    if isinstance(node, ast.Constant):
        return ("const", repr(node.value))
    if isinstance(node, ast.BoolOp):
        return (type(node.op).__name__, *(condition_key(v) for v in node.values))
    if isinstance(node, ast.Compare):
        ops = tuple(type(op).__name__ for op in node.ops)
        return ("compare", ops, condition_key(node.left), *map(condition_key, node.comparators))
    return type(node).__name__


def assigned_names(node: ast.AST, field: str = "body") -> frozenset[str]:
    """The names the statements of `node.<field>` assign, kept while the tree lives (loops
    are run twice, and each `if` inside asks about every enclosing loop)."""
    kept = _ASSIGNED.setdefault(node, {})
    found = kept.get(field)
    if found is None:
        statements = getattr(node, field, None)
        found = kept[field] = frozenset(
            n.id
            for statement in (statements if isinstance(statements, list) else ())
            for n in walk(statement)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
    return found


_ASSIGNED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def condition_names(test: ast.expr) -> tuple[str, ...]:
    """The names a condition reads, kept while the tree lives (asked at every `if`, every pass)."""
    found = _CONDITION_NAMES.get(test)
    if found is None:
        found = _CONDITION_NAMES[test] = tuple(n.id for n in walk(test) if isinstance(n, ast.Name))
    return found


_CONDITION_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class BranchMemory(NamedTuple):
    """What the `if`s on one stable condition bound so far (Frame.branches' values)."""

    branches: dict  # taken (True/False) -> {name: the binding that branch left}
    joined: dict  # name -> its binding after the join, to see a later rebinding
    added: dict  # taken -> {name: the graphs only that side brought in}
    guards: tuple  # the bindings of the names the condition reads (condition_guards)


class BranchMixin:
    """The interpreter's `if` handling; needs its state, frames and evaluators."""

    def do_If(self, node: ast.If) -> None:
        decided = decide_set_test(self, node.test)  # `if self.hook is not None:`, hook set
        if decided is not None:
            self.exec_block(node.body if decided else node.orelse)
            return
        # `if index == 0:` in a call `f(x, 0)` runs one branch (literal_arguments.py).
        by_literal = decided_by_literal(node.test, self.frame.literals)
        if by_literal is not None:
            self.exec_block(node.body if by_literal else node.orelse)
            return
        none_in_body, none_in_else = none_tests(node.test)
        condition = stable_condition(node.test)
        if condition is not None and not self.stable_here(node.test):
            condition = None  # the loop it is in changes what the condition reads
        before = self.state
        befores = {}
        if condition is not None:
            names = assigned_names(node) | assigned_names(node, "orelse")
            befores = {n: before.env.get(n) for n in names}
        self.state = before.copy()
        for expr in none_in_body:
            self.assign_to(expr, NOTHING, node)
        self.recall_branch(condition, True, node.test)
        self.exec_block(node.body)
        after_body = self.state
        self.state = before
        for expr in none_in_else:
            self.assign_to(expr, NOTHING, node)
        self.recall_branch(condition, False, node.test)
        self.exec_block(node.orelse)
        after_else = self.state
        taken = self.periodic_backward_branch(node)
        if taken is None:
            self.state = join_states([after_body, self.state])
        elif taken == "body":
            self.state = after_body
        self.remember_branches(condition, node, after_body, after_else, befores)

    def stable_here(self, test: ast.expr) -> bool:
        """No enclosing loop of this frame assigns a name the condition reads."""
        read = set(condition_names(test))
        return not any(read & assigned_names(loop.node) for loop in self.loop_frames)

    def remember_branches(self, condition, node: ast.If, after_body, after_else, befores) -> None:
        """`if c:` ... `if c:` on a condition nothing changes in between takes the same
        branch both times: what the first one's branches bound is kept for the second."""
        if condition is None or self.state is None:
            return
        key, polarity = condition
        branches = {}
        for taken, state, part in ((polarity, after_body, "body"),
                                   (not polarity, after_else, "orelse")):  # fmt: skip
            if state is not None:
                names = assigned_names(node, part)
                branches[taken] = {n: state.env[n] for n in names if n in state.env}
        joined = {n: self.state.env.get(n) for part in branches.values() for n in part}
        # The graphs each side brought in, over every `if` on this condition so far.
        previous = self.branch_memory(key, node.test)
        added = {truth: dict(previous.added[truth]) if previous else {} for truth in (True, False)}
        for truth, bound in branches.items():
            for name, binding in bound.items():
                earlier = befores.get(name)
                new = binding.val.origins - (earlier.val.origins if earlier else EMPTY)
                if new:
                    added[truth][name] = added[truth].get(name, EMPTY) | new
        guards = self.condition_guards(node.test)
        self.frame.branches[key] = BranchMemory(branches, joined, added, guards)

    def condition_guards(self, test: ast.expr) -> tuple:
        """The bindings of the names a condition reads: another `if` on it takes the same
        branch only while they are the same (`found = False` in between makes it another)."""
        return tuple(self.lookup(name) for name in condition_names(test))

    def branch_memory(self, key, test: ast.expr) -> BranchMemory | None:
        found = self.frame.branches.get(key)
        if found is None:
            return None
        guards = self.condition_guards(test)
        if len(guards) != len(found.guards) or any(map(operator.is_not, guards, found.guards)):
            return None
        return found

    def recall_branch(self, condition, taken: bool, test: ast.expr) -> None:
        if condition is None or self.state is None:
            return
        key, polarity = condition
        found = self.branch_memory(key, test)
        if found is None:
            return
        branches, joined, added, _ = found
        truth = taken == polarity
        for name, binding in branches.get(truth, {}).items():
            if self.state.env.get(name) is joined.get(name):  # not rebound since
                self.state.env[name] = binding
        # What only the other side bound (in an earlier `if` on the condition, or in an
        # earlier iteration) did not happen on this path: its graphs leave the value
        # (`prompt_embeds` computed once before the loop, recomputed with grad only
        # `if args.train_text_encoder:`).
        for name, removed in added[not truth].items():
            current = self.state.env.get(name)
            if current is None or not removed & current.val.origins:
                continue
            removed = removed - added[truth].get(name, EMPTY)
            kept = Val(current.val.origins - removed, current.val.kind, current.val.ref)
            self.state.env[name] = Binding(kept, current.site)

    def periodic_backward_branch(self, node: ast.If) -> str | None:
        """In a loop's first pass, which branch of `if` to follow instead of joining.

        `if (step + 1) % k == 0: loss.backward()` runs the backward in some iterations:
        the next one that does starts from an iteration that took the branch. Following
        that branch into pass 2 keeps what the branch frees and what it resets together.
        """
        if not self.context or self.context[-1].number != 1 or self.state is None:
            return None
        in_body, in_else = has_backward(node.body), has_backward(node.orelse)
        if in_body == in_else:
            return None
        # Where the other branch does something (`else: pending += loss`), the iterations
        # between two backwards run it: run_flipped follows it too.
        if assigned_names(node, "orelse" if in_body else "body"):
            loop = self.loop_frames[-1]
            loop.periodic = True
            if id(loop.node) in self.periodic_flipped:
                in_body = not in_body
        return "body" if in_body else "else"
