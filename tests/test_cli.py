"""`autograd-lint check / rules / lsp`, run in-process and once as the installed script.

Tests marked "needs the engine" use fixtures that real analysis must flag (AG001);
they fail while `analyze` only reports syntax errors. The fixtures' crash is checked
against torch itself in `test_rnn_fixture_really_crashes_under_torch`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from autograd_lint import __version__
from autograd_lint.cli import build_parser, main
from autograd_lint.rules import RULES
from expectations import expected_marks

RNN_BUGGY = """\
import torch
from torch import nn

cell = nn.RNNCell(4, 8)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
hidden = torch.zeros(2, 8)
for step in range(3):
    inputs = torch.randn(2, 4)
    hidden = cell(inputs, hidden)
    loss = hidden.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
"""
RNN_FIXED = RNN_BUGGY.replace("cell(inputs, hidden)", "cell(inputs, hidden.detach())").replace(
    "  # expect: AG001", ""
)
BROKEN = "def f(:\n    pass\n"  # AG000 at 1:6 (0-based column)
CLEAN = "x = 1\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory (with its own pyproject.toml) as the working directory."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def write(root: Path, relative: str, text: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def run_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def reported(document: dict) -> list[tuple[str, str, int]]:
    return [(f["path"], f["code"], f["range"]["start"]["line"]) for f in document["findings"]]


# -- exit codes and basic runs ----------------------------------------------------------------


def test_clean_project_passes(project, capsys):
    write(project, "pkg/a.py", CLEAN)
    write(project, "pkg/b.py", RNN_FIXED)
    assert main(["check"]) == 0
    assert capsys.readouterr().out == "All checks passed (2 files checked).\n"


def test_syntax_error_is_reported_and_the_run_goes_on(project, capsys):
    write(project, "a_broken.py", BROKEN)
    write(project, "b_broken.py", "x = (1,\n")
    write(project, "c.py", CLEAN)
    write(project, "d_train.py", RNN_BUGGY)  # needs the engine
    assert main(["check", "--no-color"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "a_broken.py:1:7: AG000 error: syntax error: invalid syntax"
    assert out[1].startswith("b_broken.py:1:") and " AG000 " in out[1]
    assert out[2].startswith("d_train.py:") and " AG001 " in out[2]
    assert out[-1] == "Found 3 findings in 3 files (4 files checked)."


def test_undecodable_file_is_an_ag000_at_the_start(project, capsys):
    write(project, "latin.py", b"x = 1\ny = '\xe9t\xe9'\n")
    write(project, "ok.py", CLEAN)
    code, document = run_json(capsys, ".")
    assert code == 1
    (only,) = document["findings"]
    assert (only["path"], only["code"]) == ("latin.py", "AG000")
    assert only["range"]["start"] == {"line": 1, "column": 0}
    assert "cannot decode" in only["message"] and "line 2" in only["message"]
    assert document["files"] == 2


def test_declared_encoding_is_honoured(project, capsys):
    write(project, "latin.py", b"# -*- coding: latin-1 -*-\ny = '\xe9t\xe9'\n")
    assert main(["check"]) == 0


def test_exit_zero(project, capsys):
    write(project, "broken.py", BROKEN)
    assert main(["check", "--exit-zero"]) == 0
    assert "AG000" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["check", "missing.py"], "no such file or directory: missing.py"),
        (["check", "--format", "xml"], "invalid choice: 'xml'"),
        (["check", "--select", "E501"], "invalid rule code 'E501'"),
        (["check", "--config", "nowhere.toml"], "config file not found"),
        (["frobnicate"], "invalid choice"),
        ([], "usage:"),
        (["lsp", "--tcp", "localhost"], "expected HOST:PORT"),
    ],
)
def test_usage_errors_exit_2(project, capsys, argv, complaint):
    write(project, "a.py", CLEAN)
    assert main(argv) == 2
    assert complaint in capsys.readouterr().err


def test_bad_configuration_exits_2(project, capsys):
    write(project, "a.py", CLEAN)
    write(project, "pyproject.toml", "[tool.autograd-lint]\nignore = [\n")
    assert main(["check"]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    write(project, "pyproject.toml", '[tool.autograd-lint]\nseverity = { AG001 = "loud" }\n')
    assert main(["check"]) == 2
    assert "severity of AG001 must be one of" in capsys.readouterr().err


def test_version_and_rules(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"autograd-lint {__version__}"
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == list(RULES)
    assert all(RULES[line.split()[0]].name in line for line in listed)
    assert main(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert [r["code"] for r in rules] == list(RULES)
    assert rules[0]["docs"] == RULES[rules[0]["code"]].docs_url


# -- walking ----------------------------------------------------------------------------------


def test_directory_walk_skips_tool_and_environment_directories(project, capsys):
    # Every file is broken, so each file that is checked shows up as an AG000.
    checked = ["src/pkg/mod.py", "env/rl_env.py", "venv_notes/x.py", "top.py"]
    skipped = [
        ".git/hooks/x.py",
        ".hg/x.py",
        ".venv/lib/x.py",
        "venv/lib/x.py",
        "myenv/lib/x.py",
        "lib/site-packages/x.py",
        "web/node_modules/x.py",
        "src/__pycache__/x.py",
        ".tox/py311/x.py",
        ".nox/x.py",
        "build/lib/x.py",
        "dist/x.py",
    ]
    for relative in checked + skipped:
        write(project, relative, BROKEN)
    write(project, "venv/pyvenv.cfg", "home = /usr\n")
    write(project, "myenv/pyvenv.cfg", "home = /usr\n")
    write(project, "src/pkg/notes.txt", BROKEN)
    write(project, "src/pkg/stub.pyi", BROKEN)
    code, document = run_json(capsys)
    assert code == 1
    assert sorted(path for path, _, _ in reported(document)) == sorted(checked)
    assert document["files"] == len(checked)


def test_exclude_from_pyproject_and_explicit_files(project, capsys):
    write(
        project,
        "pyproject.toml",
        '[tool.autograd-lint]\nexclude = ["generated", "tests/data/", "*_pb2.py", "!keep_pb2.py"]\n',
    )
    for relative in [
        "src/generated/a.py",
        "tests/data/b.py",
        "src/model_pb2.py",
        "src/keep_pb2.py",
        "src/real.py",
        "tests/test_x.py",
    ]:
        write(project, relative, BROKEN)
    code, document = run_json(capsys)
    assert code == 1
    assert sorted(path for path, _, _ in reported(document)) == [
        "src/keep_pb2.py",
        "src/real.py",
        "tests/test_x.py",
    ]
    # Named on the command line, an excluded file is checked.
    code, document = run_json(capsys, "src/model_pb2.py", "tests/data/b.py")
    assert [path for path, _, _ in reported(document)] == ["src/model_pb2.py", "tests/data/b.py"]


def test_config_is_found_from_the_checked_path(tmp_path, monkeypatch, capsys):
    project = tmp_path / "proj"
    write(project, "pyproject.toml", '[tool.autograd-lint]\nexclude = ["skip_me"]\n')
    write(project, "skip_me/a.py", BROKEN)
    write(project, "b.py", BROKEN)
    monkeypatch.chdir(tmp_path)
    code, document = run_json(capsys, "proj")
    assert [path for path, _, _ in reported(document)] == ["proj/b.py"]


def test_explicit_config_file(project, capsys):
    write(project, "a.py", BROKEN)
    write(project, "other.toml", '[tool.autograd-lint]\nignore = ["AG000"]\n')
    assert main(["check", "--config", "other.toml"]) == 0


def test_a_file_named_twice_is_checked_once(project, capsys):
    write(project, "a.py", BROKEN)
    code, document = run_json(capsys, ".", "a.py", str(project / "a.py"))
    assert reported(document) == [("a.py", "AG000", 1)]
    assert document["files"] == 1


# -- select / ignore / severity / suppression -------------------------------------------------


def test_select_and_ignore(project, capsys):
    write(project, "a.py", BROKEN)
    assert main(["check", "--ignore", "AG000"]) == 0
    # Syntax errors are kept under a narrow select or an ignored prefix.
    assert main(["check", "--select", "AG001"]) == 1
    assert main(["check", "--ignore", "AG0"]) == 1
    write(project, "pyproject.toml", '[tool.autograd-lint]\nignore = ["AG000"]\n')
    assert main(["check"]) == 0
    capsys.readouterr()


def test_severity_override(project, capsys):
    write(project, "a.py", BROKEN)
    write(project, "pyproject.toml", '[tool.autograd-lint]\nseverity = { AG000 = "warning" }\n')
    code, document = run_json(capsys)
    assert code == 1
    assert document["findings"][0]["severity"] == "warning"
    main(["check", "--format", "github"])
    assert capsys.readouterr().out.startswith("::warning file=a.py,")


def test_suppression_comment(project, capsys):
    write(project, "a.py", "def f(:  # autograd-lint: ignore[AG000]\n    pass\n")
    write(project, "b.py", "def f(:  # autograd-lint: ignore[AG001]\n    pass\n")
    code, document = run_json(capsys)
    assert reported(document) == [("b.py", "AG000", 1)]


# -- needs the engine: AG001 on a real-looking training loop -----------------------------------


def test_rnn_fixture_really_crashes_under_torch(tmp_path, torch_python):
    buggy = write(tmp_path, "buggy.py", RNN_BUGGY)
    fixed = write(tmp_path, "fixed.py", RNN_FIXED)
    crashed = subprocess.run(
        [torch_python, str(buggy)], capture_output=True, text=True, timeout=300
    )
    assert "Trying to backward through the graph a second time" in crashed.stderr
    assert f'buggy.py", line {expected_marks(RNN_BUGGY)[0][0]}' in crashed.stderr
    ran = subprocess.run([torch_python, str(fixed)], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr


def test_engine_finding_in_every_format(project, capsys):
    write(project, "train.py", RNN_BUGGY)
    line = expected_marks(RNN_BUGGY)[0][0]
    code, document = run_json(capsys)
    assert code == 1
    assert reported(document) == [("train.py", "AG001", line)]
    assert document["findings"][0]["evidence"], "AG001 explains itself with evidence"

    assert main(["check", "--no-color"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"train.py:{line}:") and " AG001 " in out[0]
    assert out[1].startswith("    ")  # evidence, indented

    assert main(["check", "--format", "github"]) == 1
    assert capsys.readouterr().out.startswith(f"::error file=train.py,line={line},")

    assert main(["check", "--format", "sarif"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["ruleId"] == "AG001"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == line


def test_engine_finding_can_be_suppressed_ignored_and_downgraded(project, capsys):
    line = expected_marks(RNN_BUGGY)[0][0]
    lines = RNN_BUGGY.splitlines(keepends=True)
    write(project, "train.py", RNN_BUGGY)
    assert main(["check", "--ignore", "AG001"]) == 0
    assert main(["check", "--select", "AG002"]) == 0
    capsys.readouterr()
    write(project, "pyproject.toml", '[tool.autograd-lint]\nseverity = { AG001 = "info" }\n')
    code, document = run_json(capsys)
    assert [f["severity"] for f in document["findings"]] == ["info"]
    lines[line - 1] = lines[line - 1].replace("# expect: AG001", "# autograd-lint: ignore[AG001]")
    write(project, "train.py", "".join(lines))
    assert main(["check"]) == 0
    capsys.readouterr()


# -- colour -----------------------------------------------------------------------------------


def test_colour_only_on_a_terminal(project, capsys, monkeypatch):
    write(project, "a.py", BROKEN)
    main(["check"])
    assert "\033[" not in capsys.readouterr().out  # captured output is not a terminal
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    main(["check"])
    assert "\033[1;31mAG000\033[0m" in capsys.readouterr().out
    main(["check", "--no-color"])
    assert "\033[" not in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    main(["check"])
    assert "\033[" not in capsys.readouterr().out


# -- the lsp subcommand hands over to autograd_lint.lsp.server:main ----------------------------


def test_lsp_options_reach_the_server(monkeypatch):
    received = []
    fake = types.ModuleType("autograd_lint.lsp.server")
    fake.main = lambda args: received.append(args) or 0
    monkeypatch.setitem(sys.modules, "autograd_lint.lsp.server", fake)
    assert main(["lsp", "--tcp", "127.0.0.1:2087"]) == 0
    assert main(["lsp", "--stdio"]) == 0
    assert main(["lsp", "--tcp", "[::1]:0"]) == 0
    assert [(a.tcp, a.stdio) for a in received] == [
        (("127.0.0.1", 2087), False),
        (None, True),
        (("::1", 0), False),
    ]
    assert build_parser().parse_args(["lsp"]).tcp is None


# -- the installed console script ---------------------------------------------------------------


def test_installed_script(tmp_path):
    script = Path(sys.executable).with_name("autograd-lint")
    assert script.exists(), "the package is installed with its console script"
    write(tmp_path, "broken.py", BROKEN)
    write(tmp_path, "ok.py", CLEAN)
    env = {**os.environ, "NO_COLOR": "1"}
    run = subprocess.run(
        [str(script), "check", "--format", "json", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 1, run.stderr
    document = json.loads(run.stdout)
    assert reported(document) == [("broken.py", "AG000", 1)]
    clean = subprocess.run(
        [str(script), "check", "ok.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert (clean.returncode, clean.stdout) == (0, "All checks passed (1 file checked).\n")


# -- formatters, with hand-built findings -------------------------------------------------------


def sample_report():
    from autograd_lint.analysis import Finding, Role, Severity, Span, Step
    from autograd_lint.output import Report

    carried = Finding(
        "AG001",
        Severity.ERROR,
        "backward reaches a graph built in an earlier iteration",
        Span.of(12, 4, 12, 19),
        (
            Step(Span.of(9, 13, 9, 32), "graph built here", Role.BUILT, "hidden"),
            Step(Span.of(9, 4, 9, 10), "carried into the next iteration", Role.CARRIED, "hidden"),
            Step(Span.of(3, 0, 3, 8), "defined here, in a helper", Role.CALL, path="lib/util.py"),
        ),
        path="train.py",
    )
    note = Finding(
        "AG004",
        Severity.INFO,
        "retain_graph=True, 100% inside a loop",
        Span.of(2, 0, 3, 1),
        path="dir,with:odd/x.py",
    )
    return Report([carried, note], files_checked=3)


def test_text_format():
    from autograd_lint.output import Report, text

    report = sample_report()
    assert text.render(report).splitlines() == [
        "train.py:12:5: AG001 error: backward reaches a graph built in an earlier iteration",
        "    9:14: graph built here",
        "    9:5: carried into the next iteration",
        "    lib/util.py:3:1: defined here, in a helper",
        "dir,with:odd/x.py:2:1: AG004 info: retain_graph=True, 100% inside a loop",
        "Found 2 findings in 2 files (3 files checked).",
    ]
    coloured = text.render(report, color=True)
    assert "\033[1;31mAG001\033[0m" in coloured and "\033[1;36mAG004\033[0m" in coloured
    one = Report(report.findings[:1], files_checked=1)
    assert text.render(one).splitlines()[-1] == "Found 1 finding in 1 file (1 file checked)."
    assert text.render(Report([], 0)) == "All checks passed (0 files checked).\n"


def test_json_format():
    from autograd_lint.output import json_format

    document = json.loads(json_format.render(sample_report()))
    assert document["version"] == 1 and document["files"] == 3
    first = document["findings"][0]
    assert first == {
        "path": "train.py",
        "code": "AG001",
        "severity": "error",
        "message": "backward reaches a graph built in an earlier iteration",
        "range": {"start": {"line": 12, "column": 4}, "end": {"line": 12, "column": 19}},
        "evidence": [
            {
                "range": {"start": {"line": 9, "column": 13}, "end": {"line": 9, "column": 32}},
                "message": "graph built here",
            },
            {
                "range": {"start": {"line": 9, "column": 4}, "end": {"line": 9, "column": 10}},
                "message": "carried into the next iteration",
            },
            {
                "range": {"start": {"line": 3, "column": 0}, "end": {"line": 3, "column": 8}},
                "message": "defined here, in a helper",
                "path": "lib/util.py",
            },
        ],
    }
    assert document["findings"][1]["severity"] == "info"


def test_sarif_format(monkeypatch, tmp_path):
    from autograd_lint.analysis import Finding, Severity, Span
    from autograd_lint.output import Report, sarif

    monkeypatch.chdir(tmp_path)
    report = sample_report()
    outside = Finding("AG000", Severity.WARNING, "m", Span.of(1, 0, 1, 1), path="/abs/p q.py")
    document = json.loads(sarif.render(Report([*report.findings, outside], 3)))
    assert document["version"] == "2.1.0" and "sarif" in document["$schema"]
    (run,) = document["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("autograd-lint", __version__)
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    for described in driver["rules"]:
        rule = RULES[described["id"]]
        assert described["name"] == rule.name
        assert described["shortDescription"] == {"text": rule.summary}
        assert described["helpUri"] == rule.docs_url
        assert described["defaultConfiguration"]["level"] in {"error", "warning", "note"}

    carried, note, absolute = run["results"]
    assert (carried["ruleId"], carried["level"]) == ("AG001", "error")
    assert carried["message"] == {"text": report.findings[0].message}
    location = carried["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 12, "startColumn": 5, "endLine": 12, "endColumn": 20}
    related = carried["relatedLocations"]
    assert [r["id"] for r in related] == [0, 1, 2]
    assert related[0]["message"] == {"text": "graph built here"}
    assert related[2]["physicalLocation"]["artifactLocation"]["uri"] == "lib/util.py"
    (flow,) = carried["codeFlows"]
    (thread,) = flow["threadFlows"]
    assert [
        step["location"]["physicalLocation"]["region"]["startLine"] for step in thread["locations"]
    ] == [9, 9, 3]
    assert note["level"] == "note" and "relatedLocations" not in note
    assert (
        note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "dir%2Cwith%3Aodd/x.py"
    )
    assert absolute["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "file:///abs/p%20q.py"
    }
    for result in run["results"]:
        if result["ruleId"] in RULES:
            assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_github_format():
    from autograd_lint.output import github

    carried, note = github.render(sample_report()).splitlines()
    assert carried == (
        "::error file=train.py,line=12,col=5,endLine=12,endColumn=19,title=AG001::"
        "backward reaches a graph built in an earlier iteration"
        "%0Aline 9:14: graph built here"
        "%0Aline 9:5: carried into the next iteration"
        "%0Alib/util.py:3:1: defined here, in a helper"
    )
    assert note == (
        "::notice file=dir%2Cwith%3Aodd/x.py,line=2,col=1,endLine=3,endColumn=1,title=AG004::"
        "retain_graph=True, 100%25 inside a loop"
    )
    assert github.escape_data("a\r\nb:c,d%") == "a%0D%0Ab:c,d%25"
    assert github.escape_property("a\r\nb:c,d%") == "a%0D%0Ab%3Ac%2Cd%25"
