"""The rule registry: one module per code, each with its docs and its own examples.

A rule module defines `RULE` (a `Rule`) and the example lists `VALID` and `INVALID`;
`INVALID` entries mark each expected finding with `# expect: CODE` on its line, and
one generic test collects them all.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType

from ..analysis.model import Severity

DOCS_BASE = "https://github.com/autograd-lint/autograd-lint/blob/main/docs/rules/"


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str

    @property
    def docs_url(self) -> str:
        return f"{DOCS_BASE}{self.code}.md"


def _load() -> dict[str, ModuleType]:
    modules = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("ag") and info.name[2:].isdigit():
            module = importlib.import_module(f"{__name__}.{info.name}")
            modules[module.RULE.code] = module
    return dict(sorted(modules.items()))


RULE_MODULES: dict[str, ModuleType] = _load()
RULES: dict[str, Rule] = {code: module.RULE for code, module in RULE_MODULES.items()}


def rule(code: str) -> Rule:
    return RULES[code]
