"""Pattern checkers that run beside the graph engine: AG005, AG006, AG007.

`run_checks(blocks)` takes the engine's blocks and returns findings in file coordinates.
Each checker walks one scope (a function body, or the module's own code) once; a scope
whose text cannot hold a checker's pattern is never walked by it.
"""

from __future__ import annotations

from ..blocks import Block
from ..model import Finding
from . import data_attr, inplace, zero_grad
from .scopes import iter_scopes

CHECKERS = (zero_grad, data_attr, inplace)


def _wanted(text: str) -> bool:
    return any(checker.wanted(text) for checker in CHECKERS)


def run_checks(blocks: list[Block], path: str = "") -> list[Finding]:
    """AG005/AG006/AG007 findings for the blocks of one file (broken blocks are skipped)."""
    scopes = iter_scopes(blocks, _wanted)
    if not scopes:
        return []
    findings: list[Finding] = []
    facts = optimizers = None
    for scope in scopes:
        text = scope.text
        try:
            if zero_grad.wanted(text):
                if facts is None:
                    facts = zero_grad.file_facts(blocks)
                findings.extend(zero_grad.check(scope, facts, path))
            if data_attr.wanted(text):
                findings.extend(data_attr.check(scope, path))
            if inplace.wanted(text):
                if optimizers is None:
                    optimizers = inplace.optimized_models(blocks)
                findings.extend(inplace.check(scope, path, optimizers))
        except RecursionError:
            # An expression nested thousands deep: give up on this scope, not the file.
            continue
    findings.sort(key=Finding.sort_key)
    return findings


__all__ = ["run_checks"]
