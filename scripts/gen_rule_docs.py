"""Write docs/rules/<CODE>.md from each rule module's docstring and examples.

The rule modules are the single source: `python scripts/gen_rule_docs.py` rewrites
the pages; `tests/test_rule_docs.py` fails when a page is out of date.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from autograd_lint.rules import RULE_MODULES

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"
SECTIONS = ("What it does", "Why it is bad", "Why it matters", "Example", "Fix")


def sections(doc: str) -> tuple[str, dict[str, str]]:
    lines = doc.strip().splitlines()
    title, body = lines[0], lines[1:]
    found: dict[str, list[str]] = {}
    current = None
    for line in body:
        if line.strip() in SECTIONS and not line.startswith(" "):
            current = line.strip()
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return title, {k: textwrap.dedent("\n".join(v)).strip() for k, v in found.items()}


def render(code: str) -> str:
    module = RULE_MODULES[code]
    rule = module.RULE
    title, parts = sections(module.__doc__)
    out = [f"# {rule.code} `{rule.name}`", "", f"Default severity: **{rule.severity.value}**.", ""]
    out += [f"{rule.summary}.", ""]
    for name, text in parts.items():
        out += [f"## {name}", ""]
        out += ["```python", text, "```"] if name == "Example" else [text]
        out.append("")
    for label, examples in (("Flagged", module.INVALID), ("Not flagged", module.VALID)):
        if examples:
            out += [f"## {label}", ""]
            for example in examples:
                out += ["```python", example.strip("\n"), "```", ""]
    out += [
        "## Suppressing it",
        "",
        f"Add `# autograd-lint: ignore[{rule.code}]` at the end of the reported line, or list "
        f'`"{rule.code}"` under `ignore` in `[tool.autograd-lint]`.',
        "",
    ]
    return "\n".join(out)


def main() -> int:
    DOCS.mkdir(parents=True, exist_ok=True)
    for code in RULE_MODULES:
        (DOCS / f"{code}.md").write_text(render(code), encoding="utf-8")
    print(f"wrote {len(RULE_MODULES)} rule pages to {DOCS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
