"""Issue 16, files: nothing a cloned repository holds can hang, stall or escape the checker.

FIFOs, device symlinks, symlink loops and oversized files are reported and skipped, the
run goes on; `exclude` patterns cannot backtrack; `--fix` never writes through a symlink
out of the project and imports are never followed above its root.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from autograd_lint.checker import read_python_file
from autograd_lint.cli import main
from autograd_lint.config import ConfigError, Settings
from autograd_lint.workspace import Workspace

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
BUGGY = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text()
# Generous: these runs take well under a second; only a hang (the bug) comes near it.
HANG = 120


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from autograd_lint.cli import main; sys.exit(main())",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    pkg = project / "pkg"
    pkg.mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.autograd-lint]\nmax-file-size = 200000\n")
    (pkg / "good.py").write_text(BUGGY)
    os.mkfifo(pkg / "fifo.py")
    (pkg / "zero.py").symlink_to("/dev/zero")
    (pkg / "loop1.py").symlink_to("loop2.py")
    (pkg / "loop2.py").symlink_to("loop1.py")
    (pkg / "selfdir").symlink_to("selfdir")
    (pkg / "up").symlink_to("..")
    (pkg / "huge.py").write_text("x = 1\n" * 50_000)  # 300 kB, over the configured limit
    return project


def test_hostile_tree_is_checked_to_the_end(hostile):
    result = run_cli("check", "pkg", cwd=hostile)
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert "pkg/good.py:41:5: AG001" in out  # the real file is still checked
    assert "pkg/fifo.py:1:1: AG000 error: skipped: not a regular file" in out
    assert "pkg/zero.py:1:1: AG000 error: skipped: not a regular file" in out
    assert "pkg/loop1.py:1:1: AG000 error: cannot read file" in out
    assert (
        "pkg/huge.py:1:1: AG000 error: skipped: too large (300,000 bytes; the limit is 200,000"
        in out
    )
    assert result.returncode == 1


def test_fifo_named_directly_does_not_hang(hostile):
    result = run_cli("check", "pkg/fifo.py", "pkg/zero.py", cwd=hostile)
    assert "fifo.py:1:1: AG000 error: skipped: not a regular file" in result.stdout
    assert "zero.py:1:1: AG000 error: skipped: not a regular file" in result.stdout


def test_fix_does_not_hang_on_a_fifo_or_a_device(hostile):
    result = run_cli("check", "--diff", "pkg", cwd=hostile)
    assert "Traceback" not in result.stderr
    assert "+    hidden = hidden.detach()" in result.stdout


def test_size_limit_option_and_setting(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 1000)
    data, problem = read_python_file(big, 5000)
    assert data is None and problem.startswith("skipped: too large (6,000 bytes")
    assert read_python_file(big, 6000)[0] == big.read_bytes()
    assert Settings.from_mapping({"max-file-size": 7}).max_file_size == 7
    with pytest.raises(ConfigError, match="max-file-size"):
        Settings.from_mapping({"max-file-size": "big"})
    result = run_cli("check", "--max-file-size", "100", "big.py", cwd=tmp_path)
    assert "AG000 error: skipped: too large (6,000 bytes; the limit is 100" in result.stdout


def test_backtracking_exclude_pattern_cannot_stall_the_run(tmp_path):
    # As a regex this pattern backtracks for hours on a path of many e's.
    pattern = "**e" * 12 + "**z"
    (tmp_path / "pyproject.toml").write_text(f'[tool.autograd-lint]\nexclude = ["{pattern}"]\n')
    deep = tmp_path / ("e" * 30) / ("e" * 30)
    deep.mkdir(parents=True)
    (deep / ("e" * 40 + ".py")).write_text(BUGGY)
    (deep / ("e" * 40 + "z")).mkdir()
    result = run_cli("check", ".", cwd=tmp_path)
    assert "AG001" in result.stdout


def test_exclude_patterns_keep_their_meaning():
    settings = Settings.from_mapping(
        {"exclude": ["notebooks/scratch_*.py", "*_generated.py", "data/**", "**/vendor/*.py"]}
    )
    settings.root = Path("/project")
    excluded = {
        "notebooks/scratch_1.py": True,
        "notebooks/sub/scratch_1.py": False,
        "src/a_generated.py": True,
        "data/x/y.py": True,
        "a/b/vendor/lib.py": True,
        "a/vendor/sub/lib.py": False,
        "src/train.py": False,
    }
    for relative, expected in excluded.items():
        assert settings.is_excluded(Path("/project", relative)) is expected, relative


def test_fix_does_not_write_through_a_symlink_out_of_the_project(tmp_path):
    outside = tmp_path / "home" / "mine.py"
    outside.parent.mkdir()
    outside.write_text(BUGGY)
    project = tmp_path / "clone"
    project.mkdir()
    (project / ".git").mkdir()
    (project / "train.py").symlink_to(outside)
    result = run_cli("check", "--fix", "train.py", cwd=project)
    assert outside.read_text() == BUGGY
    assert "train.py: not fixed: it is a link to" in result.stderr
    assert "AG001" in result.stdout  # still reported


def test_fix_writes_through_a_symlink_inside_the_project(tmp_path):
    project = tmp_path / "clone"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "src" / "real.py").write_text(BUGGY)
    (project / "train.py").symlink_to("src/real.py")
    run_cli("check", "--fix", "train.py", cwd=project)
    assert "hidden = hidden.detach()" in (project / "src" / "real.py").read_text()


def test_relative_import_above_the_root_is_not_read(tmp_path, caplog):
    (tmp_path / "__init__.py").write_text("class Net:\n    pass\n")
    project = tmp_path / "clone"
    (project / "a").mkdir(parents=True)
    (project / ".git").mkdir()
    importer = project / "a" / "train.py"  # `...` is the folder above the clone
    importer.write_text("from ... import Net\n")
    workspace = Workspace(project)
    with caplog.at_level("WARNING"):
        assert workspace.resolve("", 3, str(importer)) is None
    assert "outside the project" in caplog.text
    # Within the project the same form is followed.
    (project / "__init__.py").write_text("class Net:\n    pass\n")
    assert workspace.resolve("", 2, str(importer)) is not None


def test_one_failing_path_does_not_abort_the_run(tmp_path, monkeypatch, capsys):
    import autograd_lint.cli as cli

    (tmp_path / "a.py").write_text(BUGGY)
    (tmp_path / "b.py").write_text(BUGGY)
    real = cli.check_path

    def flaky(path, *args, **kwargs):
        if path.name == "a.py":
            raise RuntimeError("boom")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cli, "check_path", flaky)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out
    assert "a.py:1:1: AG000 error: not checked: internal error (RuntimeError)" in out
    assert "b.py:41:5: AG001" in out
