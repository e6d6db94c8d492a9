"""Findings that rest on a parameter's class read from its calls: warnings, not errors.

A root's parameter that nothing in the file passes (`train(model, ...)` called from
another script) is taken for an instance of the file's class when its annotation names
that class, or when that class is the file's only top module class whose `forward`
accepts every call the function makes on it (parameter_classes.py). The annotation is the
user's word; the calls are evidence, but what is passed could still come from elsewhere.
So a crash the analysis finds inside what such an instance does rests on a guess: it is
reported as a warning, and its evidence says what was taken for what and why.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .model import Role
from .report import RawStep
from .values import Site

# The codes that claim a crash: an error unless the chain rests on a guess.
CRASH_CODES = frozenset({"AG001", "AG002", "AG007"})
EXTRA_KEY = "rests_on_guess"


@dataclass(frozen=True, slots=True)
class Guess:
    """A root parameter taken for an instance of `class_name` from its calls."""

    site: Site  # the parameter in the root's signature
    parameter: str
    function: str
    class_name: str


class GuessedParameters:
    """Interpreter state: the instances made up for guessed parameters, and the function
    bodies run on their behalf (their methods and whatever those call)."""

    def __init__(self):
        self.by_instance: dict = {}  # instance ref -> Guess
        self.bodies: dict = {}  # (id(block), first line, last line) -> Guess
        # Bodies also run with no guessed instance behind them (a helper the root calls
        # itself): what happens in them does not rest on the guess.
        self.unguessed: set = set()

    def record(self, instance_ref, guess: Guess) -> None:
        self.by_instance[instance_ref] = guess

    def entered(self, receivers: list, block, node: ast.AST) -> None:
        """A function body starts running with `receivers` on the call stack."""
        if not self.by_instance:
            return
        key = (id(block), node.lineno, getattr(node, "end_lineno", node.lineno))
        for ref in receivers:
            guess = self.by_instance.get(ref)
            if guess is not None:
                self.bodies.setdefault(key, guess)
                return
        self.unguessed.add(key)

    def guess_behind(self, sites) -> Guess | None:
        for site in sites:
            line = getattr(site.node, "lineno", None)
            if line is None:
                continue
            for key, guess in self.bodies.items():
                block_id, first, last = key
                inside = block_id == id(site.block) and first <= line <= last
                if inside and key not in self.unguessed:
                    return guess
        return None

    def mark(self, raws) -> None:
        """Give each crash finding whose evidence lies in a guessed instance's code the
        step that names the guess (and so a warning's severity, engine._render)."""
        if not self.bodies:
            return
        for raw in raws:
            if raw.code not in CRASH_CODES or EXTRA_KEY in raw.extra:
                continue
            guess = self.guess_behind([raw.site, *(step.site for step in raw.steps)])
            if guess is None:
                continue
            raw.extra[EXTRA_KEY] = guess.parameter
            raw.steps.append(
                RawStep(
                    guess.site,
                    f"`{guess.parameter}` is taken to be a `{guess.class_name}`: nothing in "
                    f"the file passes it to `{guess.function}()`, and `{guess.class_name}` is "
                    "the file's only top module class whose `forward` accepts its calls "
                    "(a guess: a warning, not an error)",
                    Role.NOTE,
                    guess.parameter,
                )
            )


def rests_on_guess(extra: dict) -> bool:
    return EXTRA_KEY in extra
