"""The command-line snippets of README.md and docs/cli.md that show no output of their own, as
written: the quick start, the `--diff` / `--fix` lines and the before/after diff under them,
the synopses (every option they name exists, with the choices they list), the suppression
comments, and docs/cli.md's GitHub Actions steps. test_docs_examples.py covers the commands
shown with their output."""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz.stdio_client import StdioServer
from help_options import declared_options

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI_MD = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # where `autograd-lint` is installed
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


def run(command: str | list[str], cwd: Path = ROOT, **kwargs) -> subprocess.CompletedProcess:
    argv = shlex.split(command) if isinstance(command, str) else command
    return subprocess.run(
        argv, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=600, **kwargs
    )


def test_the_quick_start_installs_and_checks_the_samples(tmp_path):
    (quick_start,) = [b for b in blocks(README, "sh") if "autograd-lint check samples/" in b]
    install, check = (part.strip() for part in quick_start.strip().split("&&"))
    assert install == "python3 -m pip install ."
    # `pip install .` from a copy of what the build reads (the working tree stays clean), into
    # a target folder; the dependencies come from this environment.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "server", source / "server", ignore=shutil.ignore_patterns("*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    target = tmp_path / "target"
    argv = shlex.split(install) + ["--no-deps", "--no-build-isolation", "--target", str(target)]
    assert run(argv, cwd=source).returncode == 0
    # The installed copy (its package data included) checks the samples.
    argv = [str(target / "bin" / "autograd-lint"), *shlex.split(check)[1:], "--no-cache"]
    env = {**ENV, "PYTHONPATH": str(target)}
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stderr
    flagged = {line.split(":")[0] for line in result.stdout.splitlines() if ": AG00" in line}
    samples = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "samples").glob("*.py"))
    buggy = [s for s in samples if s.endswith("_buggy.py")]
    fixed = [s for s in samples if s.endswith("_fixed.py")]
    assert buggy and fixed
    assert [s for s in buggy if s not in flagged] == []  # each buggy sample reports
    assert [s for s in fixed if s in flagged] == []  # each fixed one is clean


def quick_fix_lines() -> tuple[str, str]:
    (block,) = [b for b in blocks(README, "sh") if "check --diff" in b and "check --fix" in b]
    diff_line, fix_line = (line.split("  #")[0].strip() for line in block.strip().splitlines())
    return diff_line, fix_line


def test_the_diff_line_prints_the_before_and_after_shown_below_it():
    diff_line, _ = quick_fix_lines()
    result = run(diff_line)
    assert result.returncode == 1, result.stderr  # something to change
    printed = result.stdout.splitlines()
    assert printed[0].startswith("--- a/") and printed[1].startswith("+++ b/")
    (shown,) = blocks(README.split("## Quick fixes")[1], "diff")[:1]
    shown = shown.splitlines()
    start = printed.index(shown[0])
    assert printed[start : start + len(shown)] == shown


def test_the_fix_line_writes_that_fix_and_the_fixed_script_runs(tmp_path):
    diff_line, fix_line = quick_fix_lines()
    sample = ROOT / shlex.split(diff_line)[-1]
    argv = shlex.split(fix_line)
    target = tmp_path / argv[-1]  # the user's script, here the sample the --diff line shows
    shutil.copy(sample, target)
    original = target.read_text(encoding="utf-8")
    result = run(argv, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr  # nothing left
    fixed = target.read_text(encoding="utf-8")
    added = [
        line[1:]
        for line in difflib.unified_diff(original.splitlines(), fixed.splitlines(), lineterm="")
        if line.startswith("+") and not line.startswith("+++")
    ]
    predicted = [
        line[1:]
        for line in run(diff_line).stdout.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    assert added == predicted and added
    trained = subprocess.run(
        [sys.executable, target.name], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert trained.returncode == 0, trained.stderr[-2000:]  # torch: the fixed script trains


def synopses() -> list[tuple[str, str, str]]:
    """(page, subcommand, the synopsis text for it) from README's and cli.md's."""
    found = []
    for page, body in (
        (
            "README.md",
            next(b for b in blocks(README, "sh") if b.startswith("autograd-lint check [")),
        ),
        ("cli.md", blocks(CLI_MD, "")[0]),
    ):
        current = None
        for line in body.splitlines():
            if line.startswith("autograd-lint "):
                words = line.split()
                current = [words[1] if not words[1].startswith("-") else "", line]
                found.append((page, current[0], line))
            elif current and line.startswith(" "):
                found[-1] = (page, current[0], found[-1][2] + " " + line.strip())
    return found


SYNOPSES = synopses()


def test_the_synopses_name_every_subcommand():
    assert {sub for _, sub, _ in SYNOPSES} >= {"check", "rules", "lsp"}


@pytest.mark.parametrize(("page", "sub", "synopsis"), SYNOPSES, ids=lambda v: str(v)[:24])
def test_every_option_of_a_synopsis_exists(page, sub, synopsis):
    text = re.sub(r"\s+#.*", "", synopsis)
    help_text = run(["autograd-lint", *([sub] if sub else []), "--help"]).stdout
    declared = declared_options(help_text)
    for option, choices in re.findall(r"(--[\w-]+)(?:[ =]([\w:]+(?:\|[\w:]+)+))?", text):
        assert option in declared, f"{page}: {sub} has no {option}"
        if choices and f"{option} {{" in help_text:  # argparse lists its choices
            assert "{" + choices.replace("|", ",") + "}" in help_text, f"{page}: {option}"
    if sub == "":
        assert run(["autograd-lint", *text.split()[1:]]).returncode == 0


def suppression_lines() -> list[str]:
    found = []
    for body in blocks(CLI_MD, "python"):
        found.extend(line for line in body.splitlines() if "autograd-lint: ignore" in line)
    return found


def findings(path: Path) -> list[str]:
    result = run(["autograd-lint", "check", "--format", "json", "--no-cache", str(path)])
    return [f["code"] for f in json.loads(result.stdout)["findings"]]


@pytest.mark.parametrize("directive", suppression_lines())
def test_each_suppression_comment_works_as_written(directive, tmp_path):
    if directive.startswith("#"):  # a file-level one, over a sample with AG006 findings
        sample = ROOT / "samples" / "ag006_loss_data_buggy.py"
        script = tmp_path / "train.py"
        script.write_text(directive + "\n" + sample.read_text(encoding="utf-8"))
        gone = {"AG006"}
    else:  # on the line of the sample's AG001
        sample = ROOT / "samples" / "ag001_rnn_hidden_buggy.py"
        lines = sample.read_text(encoding="utf-8").splitlines()
        (i,) = [i for i, line in enumerate(lines) if line.strip().startswith("loss.backward()")]
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = indent + directive
        script = tmp_path / "train.py"
        script.write_text("\n".join(lines) + "\n")
        gone = {"AG001"}
    assert gone <= set(findings(sample))  # the comment has something to hide
    assert not gone & set(findings(script)), directive


def test_the_sarif_steps_run_in_github_actions_and_upload_sarif(tmp_path):
    yaml = pytest.importorskip("yaml")
    (steps,) = [b for b in blocks(CLI_MD, "yaml") if "--format sarif" in b]
    shutil.copy(ROOT / "samples" / "ag001_rnn_hidden_buggy.py", tmp_path / "train.py")
    uploaded = None
    for step in yaml.safe_load(steps):
        if "run" in step:
            # GitHub runs a `run:` step as `bash -e {0}`: a non-zero exit fails the job.
            result = run(["bash", "-e", "-c", step["run"]], cwd=tmp_path)
            assert result.returncode == 0, f"{step['run']!r} fails the job: {result.stderr}"
        elif step.get("uses", "").startswith("github/codeql-action/upload-sarif"):
            uploaded = tmp_path / step["with"]["sarif_file"]
    sarif = json.loads(uploaded.read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["AG001"]


def test_the_fix_on_save_setting_names_a_kind_the_server_answers(tmp_path):
    fixes_md = (ROOT / "docs" / "fixes.md").read_text(encoding="utf-8")
    (setting,) = [b for b in blocks(fixes_md, "json") if "codeActionsOnSave" in b]
    (kind,) = json.loads("{" + setting + "}")["editor.codeActionsOnSave"]
    shutil.copy(ROOT / "samples" / "ag001_rnn_hidden_buggy.py", tmp_path / "train.py")
    client = StdioServer(tmp_path, ENV, [str(BIN / "autograd-lint"), "lsp"])
    try:
        capabilities = {
            "textDocument": {
                "codeAction": {
                    "codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix", "source"]}
                    }
                }
            }
        }
        answer = client.initialize(capabilities=capabilities)
        assert kind in answer["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"]
        uri = (tmp_path / "train.py").as_uri()
        text = (tmp_path / "train.py").read_text(encoding="utf-8")
        client.open(uri, text, version=0)
        # What VS Code asks on save: the actions of that kind for the whole file.
        whole = {
            "start": {"line": 0, "character": 0},
            "end": {"line": len(text.splitlines()), "character": 0},
        }
        actions = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": whole,
                "context": {"diagnostics": [], "only": [kind], "triggerKind": 2},
            },
        )["result"]
        assert [a["kind"] for a in actions] == [kind]
    finally:
        client.close()


def shape_matches(shown, real, where="") -> list[str]:
    """Where `shown` (the page's example) has a key or a kind of value that `real` lacks."""
    if isinstance(shown, dict):
        if not isinstance(real, dict):
            return [f"{where}: not an object"]
        missing = [f"{where}.{key}" for key in shown if key not in real]
        nested = [shape_matches(shown[k], real[k], f"{where}.{k}") for k in shown if k in real]
        return missing + [problem for problems in nested for problem in problems]
    if isinstance(shown, list):
        if not isinstance(real, list) or (shown and not real):
            return [f"{where}: not a non-empty list"]
        return shape_matches(shown[0], real[0], f"{where}[0]") if shown else []
    if shown in ("...", {}):  # a value left out
        return []
    return [] if type(shown) is type(real) else [f"{where}: {type(real).__name__}"]


def test_the_json_example_has_the_shape_of_real_output(tmp_path):
    (example,) = [b for b in blocks(CLI_MD, "json") if b.startswith('{"version"')]
    shown = json.loads(example.replace("{...}", "{}"))
    shutil.copy(ROOT / "samples" / "ag001_rnn_hidden_buggy.py", tmp_path / "train.py")
    result = run(["autograd-lint", "check", "--format", "json", "--no-cache", "."], cwd=tmp_path)
    assert shape_matches(shown, json.loads(result.stdout)) == []
