"""The rule registry is the one source of each rule's severity and confirmability."""

import io
import json
import subprocess
from contextlib import redirect_stdout
from pathlib import Path

from autograd_lint.analysis import analyze
from autograd_lint.checker import check_path
from autograd_lint.cli import main
from autograd_lint.config import Settings
from autograd_lint.lsp import confirm as lsp_confirm
from autograd_lint.notebook.check import check_notebook
from autograd_lint.rules import CONFIRMABLE, RULE_MODULES, RULES, severity_of
from autograd_lint.runtime import cli_options
from test_rule_examples import RUNNER, marks

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def _every_finding():
    for module in RULE_MODULES.values():
        for source in module.INVALID:
            yield from analyze(source, "example.py")
    for path in sorted(SAMPLES.rglob("*.py")):
        yield from check_path(path)
    for path in sorted(SAMPLES.rglob("*.ipynb")):
        yield from check_notebook(path, Settings())


def test_every_finding_has_its_rules_severity():
    """Nothing but the rule module decides a severity: checks, interpreter, notebooks alike."""
    findings = list(_every_finding())
    kinds = {(f.code, f.kind) for f in findings}
    assert {code for code, _ in kinds} == set(RULES)
    for finding in findings:
        assert finding.severity is severity_of(finding.code, finding.kind), finding
    # Each kind a rule gives its own severity is one the analysis produces, except the
    # notice for a file too long to analyse (tests/test_hardening_analysis.py has it).
    for code, rule in RULES.items():
        for kind in rule.kind_severity:
            assert (code, kind) in kinds or kind == "not-analysed", (code, kind)


def test_command_line_and_editor_confirm_the_same_codes():
    assert cli_options.CONFIRMABLE is CONFIRMABLE
    assert lsp_confirm.CONFIRMABLE is CONFIRMABLE
    assert {code for code, rule in RULES.items() if rule.confirmable} == CONFIRMABLE


def test_confirmable_means_the_invalid_examples_raise_under_torch(torch_python):
    """Ground truth for `confirmable`: the harness can only confirm a backward that raises.

    Every INVALID example of AG001-AG007 runs in one torch process; it raises exactly when
    one of its marked findings belongs to a confirmable rule.
    """
    cases = [
        (code, source)
        for code, module in RULE_MODULES.items()
        if code != "AG000"  # a syntax error is not run
        for source in module.INVALID
    ]
    proc = subprocess.run(
        [torch_python, "-c", RUNNER],
        input=json.dumps([source for _, source in cases]),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    for (code, source), result in zip(cases, results, strict=True):
        confirmable = any(RULES[marked].confirmable for _, marked in marks(source))
        raised = (result["error"] or "").startswith("RuntimeError")
        assert raised == confirmable, (code, result, source)


def test_rules_command_lists_what_the_server_sends():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(out.getvalue())
    assert listed == [rule.to_json() for rule in RULES.values()]
    assert {r["code"] for r in listed if r["confirmable"]} == CONFIRMABLE
