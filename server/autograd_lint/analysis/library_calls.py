"""Calls into libraries modelled as data (analysis/library_models/): what a row says the
call does replaces the policy for calls we cannot see.

`Variable(t)` has no history, `accelerator.prepare(m, opt)` hands its arguments back,
`from_pretrained(...)` makes a module, `accelerator.backward(loss)` back-propagates, and
`LBFGS.step(closure)` calls the closure several times within one step (run here as a loop
of two passes, so a graph built outside the closure is back-propagated twice, as torch
does). Rows are found by qualified name, through the file's imports.
"""

from __future__ import annotations

import ast
import logging

from . import library_models
from .values import CONTAINER, EMPTY, MODULE, NOTHING, LoopPass, Val

log = logging.getLogger(__name__)


def row_for(qualified: str | None):
    """The library model row for a qualified name, or None (never raises)."""
    if not qualified:
        return None
    try:
        return library_models.lookup(qualified)
    except Exception:  # noqa: BLE001 - a broken data file costs its rows, nothing more
        log.exception("autograd-lint: library models could not be read")
        return None


class LibraryMixin:
    def modelled_result(self, node: ast.Call, qualified: str | None, args: list[Val]):
        """What a modelled library call returns, or None when no row models its result."""
        row = row_for(qualified)
        if row is None:
            return None
        backward = row.effect("backward-of-argument")
        if backward is not None:
            position = backward.get("position", 0)
            if position < len(node.args):
                self.backward(node, args[position], node)
        if row.effect("result-no-history") is not None:
            return NOTHING
        if row.effect("result-module") is not None:
            return Val(EMPTY, MODULE, None)
        if row.effect("result-arguments") is not None:
            if len(args) == 1:
                return args[0]
            return Val(EMPTY.union(*(a.origins for a in args)), CONTAINER, None, tuple(args))
        return NOTHING if backward is not None else None

    def calls_closure_repeatedly(self, qualified: str | None) -> bool:
        row = row_for(qualified)
        effect = row.effect("calls-argument") if row is not None else None
        return effect is not None and effect.get("times") == "repeatedly"

    def call_closure_repeatedly(self, node: ast.Call, closure) -> None:
        """The closure called in a loop of its own: two abstract passes, like a `for`."""
        loop = self.enter_loop(node)
        try:
            for number in (1, 2):
                self.context.append(LoopPass(node, number))
                try:
                    self.call_function(node, closure, [], None)
                finally:
                    self.context.pop()
                if number == 1 and self.state is not None:
                    loop.pass1_end = self.state.copy()
        finally:
            self.leave_loop()
