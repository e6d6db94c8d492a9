"""Other files of the project, as seen from the one being analysed.

A `ModuleSummary` is a file's `Program` (its definitions, nothing run) with blocks that
know their path, so evidence can point into `models.py` from `train.py`. Summaries are
produced by `summarize` and handed out by a resolver — `workspace.Workspace` in the
CLI and the language server — with whatever caching that resolver wants.
"""

from __future__ import annotations

from dataclasses import dataclass

from .blocks import build_blocks, split_lines
from .module_globals import remember_definitions
from .program import Program
from .values import Binding


@dataclass(eq=False)
class ModuleSummary:
    path: str
    program: Program
    key: int  # changes whenever the file's text does

    def lookup(self, name: str) -> Binding | None:
        return self.program.definitions.get(name)


def summarize(source: str, path: str, resolver=None) -> ModuleSummary:
    """Parse one file into its definitions; imports it makes resolve through `resolver`."""
    blocks = build_blocks(source, split_lines(source))
    for block in blocks:
        block.path = path
    program = Program(blocks, path, resolver)
    remember_definitions(blocks, program.definitions)  # its functions' globals: module_globals.py
    return ModuleSummary(path, program, hash(source))
