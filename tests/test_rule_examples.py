"""Every rule's own VALID / INVALID examples, collected in one place (Fixit style)."""

import re

import pytest

from autograd_lint.analysis import analyze
from autograd_lint.rules import RULE_MODULES

EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")


def marks(source: str) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(source.split("\n"), start=1):
        match = EXPECT.search(line)
        if match:
            found.extend((number, code.strip()) for code in match.group(1).split(",") if code.strip())
    return sorted(found)


def examples(kind: str):
    for code, module in RULE_MODULES.items():
        for index, source in enumerate(getattr(module, kind)):
            yield pytest.param(code, source, id=f"{code}-{kind.lower()}-{index}")


@pytest.mark.parametrize(("code", "source"), list(examples("VALID")))
def test_valid_examples_have_no_finding(code, source):
    assert analyze(source, "example.py") == []


@pytest.mark.parametrize(("code", "source"), list(examples("INVALID")))
def test_invalid_examples_find_exactly_the_marks(code, source):
    findings = analyze(source, "example.py")
    assert sorted((f.span.start.line, f.code) for f in findings) == marks(source)
    assert any(f.code == code for f in findings)
    for finding in findings:
        if finding.code in ("AG001", "AG002"):
            roles = [step.role.value for step in finding.evidence]
            assert roles[0] == "built" and roles[-1] == "fails", roles


def test_every_rule_has_examples_and_docs():
    for code, module in RULE_MODULES.items():
        assert module.__doc__ and "Fix" in module.__doc__, code
        assert module.VALID and module.INVALID, code
