"""The rule registry: one module per code, holding everything about its rule.

A rule module defines `RULE` (a `Rule`: code, name, title, summary, severity, whether a
run can confirm it, the README's line), its docs in its docstring, and the example lists
`VALID` and `INVALID`; `INVALID` entries mark each expected finding with `# expect: CODE`
on its line, and one generic test collects them all. Everything else reads the rules
from here: the analysis's severities (`severity_of`), the CLI's and the server's
confirmable codes, and, through `scripts/gen_rule_docs.py`, the docs pages, the README
table and `package.json`'s settings schema. `scripts/add_rule.py` scaffolds a new one.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType

from ..analysis.model import Severity

DOCS_BASE = "https://github.com/autograd-lint/autograd-lint/blob/main/docs/rules/"


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    # A few words for menus and the editor's settings ("zero_grad misplaced").
    title: str
    # The README table's "what" cell (Markdown).
    what: str
    # Whether runtime confirmation can show the failure (the harness stops a backward that
    # would raise); a rule whose findings never raise, such as a growing graph, cannot.
    confirmable: bool = False
    # Severities of finer kinds of finding (`Finding.kind`) that differ from `severity`.
    kind_severity: Mapping[str, Severity] = field(default_factory=dict, hash=False)

    @property
    def docs_url(self) -> str:
        return f"{DOCS_BASE}{self.code}.md"

    def severity_for(self, kind: str = "") -> Severity:
        return self.kind_severity.get(kind, self.severity)

    @property
    def severities(self) -> tuple[Severity, ...]:
        """Every severity its findings can have, its default first."""
        others = [s for s in self.kind_severity.values() if s is not self.severity]
        return (self.severity, *dict.fromkeys(others))

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "title": self.title,
            "severity": self.severity.value,
            "summary": self.summary,
            "confirmable": self.confirmable,
            "docs": self.docs_url,
        }


def _load() -> dict[str, ModuleType]:
    modules = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("ag") and info.name[2:].isdigit():
            module = importlib.import_module(f"{__name__}.{info.name}")
            modules[module.RULE.code] = module
    return dict(sorted(modules.items()))


RULE_MODULES: dict[str, ModuleType] = _load()
RULES: dict[str, Rule] = {code: module.RULE for code, module in RULE_MODULES.items()}
# The codes runtime confirmation checks, on the command line and in the editor alike.
CONFIRMABLE: frozenset[str] = frozenset(code for code, r in RULES.items() if r.confirmable)


def rule(code: str) -> Rule:
    return RULES[code]


def message(code: str, key: str, **fields: str) -> str:
    """The text of `code`'s message `key` (its module's `MESSAGES`), `fields` filled in."""
    return RULE_MODULES[code].MESSAGES[key].format(**fields)


def severity_of(code: str, kind: str = "") -> Severity:
    """The severity a finding of `code` (and `kind`) is reported with, before settings.

    The one place a finding's severity comes from: its rule's module says it.
    """
    found = RULES.get(code)
    return found.severity_for(kind) if found is not None else Severity.ERROR
