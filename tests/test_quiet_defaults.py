"""Less noise on correct code and in CI: evidence that restates the message is not shown,
`--fail-on`, an unknown rule code is a usage error, `# noqa: AG00x` and
`# autograd-lint: ignore-file[...]` are honoured."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
from autograd_lint.analysis import Severity, analyze
from autograd_lint.analysis.suppress import filter_suppressed
from autograd_lint.cli import main
from autograd_lint.explain import evidence_to_show
from autograd_lint.lsp.convert import LineIndex, to_diagnostic
from autograd_lint.output import Report, text
from autograd_lint.output.json_format import render as render_json
from lsprotocol import types

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
DATA_READ = SAMPLES / "ag006_loss_data_buggy.py"
CARRIED = SAMPLES / "ag001_rnn_hidden_buggy.py"


def findings_of(path: Path, code: str):
    source = path.read_text()
    return source, [f for f in analyze(source, str(path)) if f.code == code]


def test_evidence_that_only_restates_the_message_is_not_shown():
    source, (read,) = findings_of(DATA_READ, "AG006")
    # Both steps point at the `.data` read itself: they say again what the message says.
    assert read.evidence and all(step.span == read.span for step in read.evidence)
    assert evidence_to_show(read) == ()
    out = text.render(Report([read], files_checked=1))
    assert out.splitlines()[1:] == ["Found 1 finding in 1 file (1 file checked)."]
    lines = LineIndex(source.splitlines(keepends=True), "utf-16")
    diagnostic = to_diagnostic(read, 0, lines, "file:///x.py", related_information=True)
    assert diagnostic.related_information is None
    plain = to_diagnostic(read, 0, lines, "file:///x.py", related_information=False)
    assert plain.message == read.message
    # Machine formats keep every step.
    (as_json,) = json.loads(render_json(Report([read], files_checked=1)))["findings"]
    assert len(as_json["evidence"]) == len(read.evidence)


def test_evidence_elsewhere_in_the_file_is_shown():
    source, (carried,) = findings_of(CARRIED, "AG001")
    assert evidence_to_show(carried) == carried.evidence
    lines = LineIndex(source.splitlines(keepends=True), "utf-16")
    diagnostic = to_diagnostic(carried, 0, lines, "file:///x.py", related_information=True)
    assert len(diagnostic.related_information) == len(carried.evidence)


@pytest.mark.parametrize(
    "sample,fail_on,status",
    [
        ("ag006_loss_data_buggy.py", "info", 1),  # an info
        ("ag006_loss_data_buggy.py", "warning", 0),
        ("ag004_retain_every_step_buggy.py", "warning", 1),  # a warning
        ("ag004_retain_every_step_buggy.py", "error", 0),
        ("ag001_rnn_hidden_buggy.py", "error", 1),  # an error
    ],
)
def test_fail_on_sets_the_least_severity_that_fails(sample, fail_on, status, capsys):
    assert main(["check", "--no-color", "--fail-on", fail_on, str(SAMPLES / sample)]) == status
    # Whatever the exit status, the finding is reported.
    assert "AG00" in capsys.readouterr().out


def test_fail_on_default_fails_on_any_finding_and_exit_zero_wins(capsys):
    assert main(["check", str(DATA_READ)]) == 1
    assert main(["check", "--exit-zero", "--fail-on", "info", str(DATA_READ)]) == 0


@pytest.mark.parametrize("option", ["--select", "--ignore"])
@pytest.mark.parametrize("code", ["AG999", "AG01", "AG1"])
def test_an_unknown_code_on_the_command_line_is_a_usage_error(option, code, capsys):
    assert main(["check", option, code, str(DATA_READ)]) == 2
    assert f"names no rule: '{code}'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "table",
    ['select = ["AG0", "AG099"]', 'ignore = ["AG10"]', 'severity = { AG009 = "info" }'],
)
def test_an_unknown_code_in_the_config_is_a_usage_error(table, tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text(f"[tool.autograd-lint]\n{table}\n")
    (tmp_path / "train.py").write_text(DATA_READ.read_text())
    status = main(["check", "--config", str(tmp_path / "pyproject.toml"), str(tmp_path)])
    assert status == 2
    assert "names no rule" in capsys.readouterr().err


def test_known_prefixes_still_select(capsys):
    assert main(["check", "--select", "AG,AG0,AG00,AG006", str(DATA_READ)]) == 1
    assert main(["check", "--ignore", "AG00", str(DATA_READ)]) == 0


def _kept(source: str) -> list[str]:
    return [f.code for f in filter_suppressed(analyze(source, "x.py"), source)]


def test_noqa_with_our_code_suppresses_that_line():
    source = DATA_READ.read_text()
    line = "running += loss.data  # expect: AG006"
    assert _kept(source) == ["AG006"]
    assert _kept(source.replace(line, "running += loss.data  # noqa: E501, AG006")) == []
    assert _kept(source.replace(line, "running += loss.data  # noqa: AG001")) == ["AG006"]
    # A bare noqa belongs to the other linters.
    assert _kept(source.replace(line, "running += loss.data  # noqa")) == ["AG006"]
    # Beside our own comment.
    both = "running += loss.data  # autograd-lint: ignore[AG001]  # noqa: AG006"
    assert _kept(source.replace(line, both)) == []


def test_ignore_file_suppresses_in_the_whole_file():
    source = DATA_READ.read_text()
    assert _kept("# autograd-lint: ignore-file[AG006]\n" + source) == []
    assert _kept(source + "# autograd-lint: ignore-file[AG001, AG006]\n") == []
    assert _kept("# autograd-lint: ignore-file\n" + source) == []
    assert _kept("# autograd-lint: ignore-file[AG001]\n" + source) == ["AG006"]
    # In a string it is not a comment.
    assert _kept('NOTE = "# autograd-lint: ignore-file"\n' + source) == ["AG006"]


# A correct DCGAN step (after the PyTorch DCGAN tutorial's loop, rebuilt small) that logs
# the discriminator's mean output through `.data`, as the tutorial does. One file, which the
# VS Code e2e opens too (client/e2e/ui-offline.mjs).
DCGAN = (ROOT / "client" / "test" / "fixtures" / "dcgan_logging_correct.py").read_text()


def _editor_severities(source: str, findings) -> list:
    lines = LineIndex(source.splitlines(keepends=True), "utf-16")
    return [
        to_diagnostic(f, i, lines, "file:///x.py", related_information=True).severity
        for i, f in enumerate(findings)
    ]


def test_a_correct_dcgan_gets_no_squiggle_in_the_editor(tmp_path, torch_python):
    script = tmp_path / "dcgan.py"
    script.write_text(DCGAN)
    run = subprocess.run([torch_python, str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr  # torch: the program is correct
    findings = analyze(DCGAN, str(script))
    assert [(f.code, f.kind) for f in findings] == [("AG006", "read")] * 3
    # Hints: no squiggle, no Problems row; the command line still lists them.
    assert _editor_severities(DCGAN, findings) == [types.DiagnosticSeverity.Hint] * 3


def test_a_data_write_and_a_raised_severity_still_show():
    source, (write,) = findings_of(SAMPLES / "ag006_manual_sgd_buggy.py", "AG006")
    assert _editor_severities(source, [write]) == [types.DiagnosticSeverity.Warning]
    source, (read,) = findings_of(DATA_READ, "AG006")
    raised = dataclasses.replace(read, severity=Severity.WARNING)  # severity = {AG006 = ...}
    assert _editor_severities(source, [raised]) == [types.DiagnosticSeverity.Warning]


def test_the_server_does_not_log_a_cancel_it_has_already_answered(caplog):
    import logging

    from autograd_lint.lsp.transport import quiet_expected_warnings

    quiet_expected_warnings()
    quiet_expected_warnings()  # once is enough; twice adds nothing
    logger = logging.getLogger("pygls.protocol.json_rpc")
    with caplog.at_level(logging.WARNING, logger="pygls.protocol.json_rpc"):
        # What pygls logs for VS Code's routine cancel of an answered hover request...
        logger.warning('Cancel notification for unknown message id "%s"', 17)
        # ...and a warning that still matters.
        logger.warning("Unknown method %s", "textDocument/foo")
    assert [r.getMessage() for r in caplog.records] == ["Unknown method textDocument/foo"]
    assert sum(type(f).__name__ == "_ExpectedCancels" for f in logger.filters) == 1
