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
            found.extend(
                (number, code.strip()) for code in match.group(1).split(",") if code.strip()
            )
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


RUNNER = r"""
import json, sys, traceback
results = []
for index, source in enumerate(json.load(sys.stdin)):
    name = f"<example {index}>"
    try:
        exec(compile(source, name, "exec"), {"__name__": "__main__"})
        results.append({"error": None, "line": None})
    except Exception as exc:
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == name]
        results.append({"error": f"{type(exc).__name__}: {exc}", "line": lines[-1] if lines else None})
print(json.dumps(results))
"""

GRAPH_CODES = ("AG001", "AG002", "AG003", "AG004")


def test_graph_rule_examples_behave_as_marked_under_torch(torch_python):
    """Ground truth for AG001-AG004's own examples: run them all in one torch process."""
    import json
    import subprocess

    cases = [
        (code, kind, source)
        for code in GRAPH_CODES
        for kind in ("VALID", "INVALID")
        for source in getattr(RULE_MODULES[code], kind)
    ]
    proc = subprocess.run(
        [torch_python, "-c", RUNNER],
        input=json.dumps([source for _, _, source in cases]),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])  # examples may print
    for (code, kind, source), result in zip(cases, results, strict=True):
        crashing = [line for line, c in marks(source) if c in ("AG001", "AG002")]
        if crashing:
            assert "backward through the graph a second time" in (result["error"] or ""), (
                code,
                source,
            )
            assert result["line"] == crashing[0], (code, result, source)
        else:
            assert result["error"] is None, (code, kind, result, source)
