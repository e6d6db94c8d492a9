"""The README's CI recipes, as written: the GitHub Actions job's autograd-lint commands run and
give what the later steps need (valid SARIF, a failing status on an error), and the
pre-commit configuration, with the repository's hook manifest, runs the hook for real
(`pre-commit try-repo`, which installs this repository into a fresh environment, as a user's
pre-commit does)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from pre_commit.clientlib import load_config, load_manifest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


def recipe(name: str) -> str:
    """The fenced block right after `<!-- ci-recipe: NAME -->` in the README."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- ci-recipe: {name} -->\n```\w*\n(.*?)```", text, re.DOTALL)
    assert match, f"README has no {name} recipe"
    return match.group(1)


def project(tmp_path: Path) -> Path:
    """A project with one buggy training script and one correct one."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(SAMPLES / "ag001_rnn_hidden_buggy.py", root / "train.py")
    shutil.copy(SAMPLES / "ag001_rnn_hidden_fixed.py", root / "ok.py")
    return root


def environment() -> dict:
    # The console script installed with this interpreter, as the workflow's pip puts it.
    scripts = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": scripts + os.pathsep + os.environ.get("PATH", "")}


def test_github_actions_recipe_runs_as_written(tmp_path):
    workflow = yaml.safe_load(recipe("github-actions"))
    steps = workflow["jobs"]["autograd-lint"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload"))
    runs = [s["run"] for s in steps if s.get("run", "").startswith("autograd-lint ")]
    assert len(runs) == 2
    root = project(tmp_path)
    sarif_run = subprocess.run(
        runs[0], shell=True, cwd=root, env=environment(), capture_output=True, text=True
    )
    assert sarif_run.returncode == 0, sarif_run.stderr  # --exit-zero: the upload step runs
    sarif = json.loads((root / upload["with"]["sarif_file"]).read_text())
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "AG001" and result["level"] == "error"
    gate = subprocess.run(
        runs[1], shell=True, cwd=root, env=environment(), capture_output=True, text=True
    )
    assert gate.returncode == 1  # the error fails the job
    assert gate.stdout.startswith("::error file=train.py,line=41")
    # The workflow can write its code-scanning results.
    assert workflow["jobs"]["autograd-lint"]["permissions"]["security-events"] == "write"


def test_pre_commit_recipe_runs_the_repositorys_hook(tmp_path):
    (hook,) = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(recipe("pre-commit"))
    (repository,) = load_config(str(config))["repos"]
    assert [h["id"] for h in repository["hooks"]] == [hook["id"]]
    assert {"python", "jupyter"} <= set(hook["types_or"])

    root = project(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    env = {**environment(), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    # The hook as that configuration names it, installed from this repository.
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook["id"]]
    command += ["--ref", "HEAD", "--files", "train.py", "ok.py"]
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "train.py:41:5: AG001 error:" in result.stdout
    assert "ok.py:" not in result.stdout
