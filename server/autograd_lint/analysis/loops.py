"""Loops: two abstract passes over each body, and a second order of periodic branches.

Pass 1 stands for the first iteration, pass 2 for any later one: pass 2 starts where pass
1 ended, so a graph built in iteration 1 and reached by a backward in iteration 2 is what
it looks like. The interpreter mixes this in.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field

from .iterator_protocol import iterated_element
from .lifetimes import LifetimeTracker
from .syntax_facts import has_backward
from .values import CONTAINER, ELEMENT, LoopPass, State, Val, join_states

MAX_UNROLL_DEPTH = 3  # nested loops unrolled twice each; deeper ones get one pass


@dataclass(eq=False)
class LoopFrame:
    node: ast.AST
    entry: State
    block: object = None
    pass1_end: State | None = None
    pass2_end: State | None = None
    trains: bool = False  # a backward ran inside it
    periodic: bool = False  # pass 1 followed one branch of a periodic backward `if`
    passes: int = 2  # 1 past MAX_UNROLL_DEPTH: its one pass stands for every iteration
    breaks: list = field(default_factory=list)
    continues: list = field(default_factory=list)
    # Pass 1's `continue`s that skip a backward after them (see do_Continue).
    skipping: list = field(default_factory=list)


def skips_backward(loop: ast.AST, node: ast.Continue) -> bool:
    """Whether the loop's body back-propagates after `node`: the iterations the `continue`
    ends do not run that backward. Kept while the tree lives (loops run several times)."""
    found = _SKIPS.get(node)
    if found is None:
        after = (node.lineno, node.col_offset)
        found = _SKIPS[node] = any(
            has_backward([statement])
            for top in loop.body  # not its `else:`, which runs after the loop
            for statement in ast.walk(top)
            if isinstance(statement, ast.stmt) and (statement.lineno, statement.col_offset) > after
        )
    return found


_SKIPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class LoopMixin:
    """The interpreter's loops; needs its state, frames and evaluators."""

    def do_Break(self, node: ast.Break) -> None:
        if self.frame.loops:
            self.frame.loops[-1].breaks.append(self.state)
        self.state = None

    def do_Continue(self, node: ast.Continue) -> None:
        if self.frame.loops:
            loop = self.frame.loops[-1]
            current = self.context[-1] if self.context else None
            first = current is not None and current.loop is loop.node and current.number == 1
            if first and loop.passes == 2 and skips_backward(loop.node, node):
                # `if step == 0: continue` before `loss.backward()`: as for a periodic
                # backward `if` (branches.py), pass 1 stands for an iteration that runs the
                # backward, so pass 2 meets what it freed; run_flipped follows the others.
                loop.skipping.append(self.state)
                loop.periodic = True
            else:
                loop.continues.append(self.state)
        self.state = None

    # -- loops ----------------------------------------------------------------------------
    def do_For(self, node: ast.For) -> None:
        source = self.ev(node.iter)
        element = iterated_element(self, node, source) or self.element_of(source)
        if source.kind == CONTAINER and element.origins:
            element = Val(element.origins, ELEMENT)
        self.run_loop(node, lambda: self.bind(node.target, element, node), always_exits=False)

    do_AsyncFor = do_For

    def do_While(self, node: ast.While) -> None:
        infinite = isinstance(node.test, ast.Constant) and bool(node.test.value)
        self.run_loop(node, lambda: self.ev(node.test), always_exits=not infinite)

    def enter_loop(self, node) -> LoopFrame:
        loop = LoopFrame(node, self.state, self.frame.block)
        self.frame.loops.append(loop)
        self.loop_frames.append(loop)
        return loop

    def leave_loop(self) -> None:
        self.frame.loops.pop()
        self.loop_frames.pop()

    def run_loop(self, node, begin_pass, always_exits: bool) -> None:
        entry = self.state
        loop = self.run_passes(node, entry, begin_pass)
        last_end = loop.pass2_end if loop.pass2_end is not None else loop.pass1_end
        if loop.pass2_end is not None:
            self.lifetimes.on_loop_end(self, loop, loop.pass2_end)
        if loop.periodic and not self.periodic_flipped and entry is not None:
            # Not within another loop's second order: one flip at a time keeps the work at
            # most twice a loop's, however deep the periodic `if`s are nested.
            self.run_flipped(node, entry, begin_pass)
        # Assume the body ran at least once: joining in the zero-iteration path would
        # forget every graph the loop freed.
        after = join_states([last_end, *loop.breaks])
        if after is None and always_exits:
            after = entry
        self.state = after.copy() if after is not None else None
        if node.orelse and self.state is not None:
            self.exec_block(node.orelse)

    def run_library_loop(self, node, passes: int, body) -> None:
        """A loop a library runs at `node` (LBFGS calling the closure, a fit's iterations):
        `body()` once per abstract pass, in the loop's context, as a `for` would run."""
        loop = self.enter_loop(node)
        try:
            for number in range(1, passes + 1):
                self.context.append(LoopPass(node, number))
                try:
                    body()
                finally:
                    self.context.pop()
                if number == 1 and self.state is not None:
                    loop.pass1_end = self.state.copy()
        finally:
            self.leave_loop()

    def run_passes(self, node, entry, begin_pass) -> LoopFrame:
        passes = 2 if len(self.loop_frames) < MAX_UNROLL_DEPTH else 1
        loop = self.enter_loop(node)
        loop.passes = passes
        start = entry
        try:
            for number in range(1, passes + 1):
                self.context.append(LoopPass(node, number))
                self.state = start.copy()
                begin_pass()
                self.exec_block(node.body)
                end = join_states([self.state, *loop.continues])
                if loop.skipping and (end is None or id(node) in self.periodic_flipped):
                    # Every path skipped the backward, or the second order follows those
                    # that do: pass 2 runs after an iteration that skipped it.
                    end = join_states(loop.skipping)
                loop.continues, loop.skipping = [], []
                self.context.pop()
                if number == 1:
                    loop.pass1_end = end
                else:
                    loop.pass2_end = end
                if end is None:
                    break
                start = end  # pass 2 runs after pass 1 ran to its end
        finally:
            self.leave_loop()
        return loop

    def run_flipped(self, node, entry, begin_pass) -> None:
        """Pass 1 again, through the other branch of its periodic backward `if`.

        Pass 1 follows the branch that back-propagates (what it frees and what it resets
        stay together). The iterations between two such backwards take the other branch:
        `pending += loss` there, while a backward every iteration frees `loss`'s graph, is
        the crash at the next periodic backward. Each order is one that runs, so the
        conflicts of either are real; only they are kept (the first run's state goes on,
        and the lifetime checks, which judge both passes together, saw it already).
        """
        kept = (self.lifetimes, self.frame.branches, self.state)
        self.lifetimes = LifetimeTracker()
        self.frame.branches = dict(self.frame.branches)
        self.periodic_flipped.add(id(node))
        try:
            self.run_passes(node, entry, begin_pass)
        finally:
            self.periodic_flipped.discard(id(node))
            self.lifetimes, self.frame.branches, self.state = kept
