"""The globals a function of another project file runs with: its own module's names.

Python looks a function's free names up in the module that defines it. A class imported
from `network.py`, whose `__init__` builds `Cell()` and whose forward calls a helper of
that file, finds `Cell` and the helper in network.py whether or not the training script
imported them too. The interpreter inlined such a function with the *caller's* globals,
so a name the caller had not imported was unknown: the layer it builds became an opaque
module, and the state that layer keeps on itself between calls was lost.

A summarised module's blocks remember its definitions (classes, functions, what it
imports from the project); a function of those blocks runs with a copy of them (a copy:
`global x` in the function writes into its globals, never into the summary).
"""

from __future__ import annotations

_DEFINITIONS = "module_definitions"


def remember_definitions(blocks, definitions: dict) -> None:
    """Called when a project module is summarised: its blocks know the module's names."""
    for block in blocks:
        block.memo[_DEFINITIONS] = definitions


def globals_for(fn, caller_globals: dict) -> dict:
    """The globals `fn` runs with: its own module's names when it is defined in another
    project file than the analysed one, else the caller's. Only a summarised module's
    blocks remember definitions (modules.summarize builds them apart from any document's):
    the analysed file's blocks, and library source parsed for evidence, find none. Every
    function the interpreter runs is made from a block, so `fn.block` is never None."""
    own = fn.block.memo.get(_DEFINITIONS)
    return dict(own) if own is not None else caller_globals
