"""`check --jobs N` gives the serial run's output, and the result cache (cache.py) answers
unchanged files without analysing them, re-checking a file when a module it imports
changes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import autograd_lint.cli as cli
import pytest
from autograd_lint.cache import CACHE_DIR_NAME

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
PROJECT = SAMPLES / "project_stateful"
CLI = [sys.executable, "-c", "import sys; from autograd_lint.cli import main; sys.exit(main())"]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, "check", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_two_jobs_print_exactly_what_one_job_prints(tmp_path):
    serial = run_cli(str(SAMPLES), "--jobs", "1", "--no-cache", cwd=tmp_path)
    parallel = run_cli(str(SAMPLES), "--jobs", "2", "--no-cache", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 1
    assert parallel.stdout == serial.stdout
    located = [line.split(":")[0] for line in serial.stdout.splitlines() if ": AG0" in line]
    assert len(set(located)) > 20  # findings in many files, each file's together, in order
    assert located == sorted(located)
    as_json = run_cli(str(SAMPLES), "--jobs", "2", "--no-cache", "--format", "json", cwd=tmp_path)
    again = run_cli(str(SAMPLES), "--jobs", "1", "--no-cache", "--format", "json", cwd=tmp_path)
    assert json.loads(as_json.stdout) == json.loads(again.stdout)


def test_a_run_the_cache_answers_imports_no_engine_and_no_runtime(tmp_path):
    """The analysis engine, the notebook checker and the runtime's runner are imported when
    a file is analysed or a run asked for: a second run over an unchanged tree needs none
    of them (they were about a tenth of its time)."""
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    shutil.copy(SAMPLES / "ag001_rnn_hidden_buggy.py", root / "alone.py")
    shown = "import sys; from autograd_lint.cli import main; main(); "
    shown += "print('|'.join(sorted(sys.modules)), file=sys.stderr)"
    runs = [
        subprocess.run([sys.executable, "-c", shown, "check", ".", "--jobs", "1"], cwd=root,
                       capture_output=True, text=True, timeout=600)
        for _ in range(2)
    ]  # fmt: skip
    first, second = (set(run.stderr.strip().rsplit("\n", 1)[-1].split("|")) for run in runs)
    assert runs[0].stdout == runs[1].stdout and "AG001" in runs[1].stdout
    assert "autograd_lint.analysis.engine" in first  # the list is real: that run analysed
    late = {"autograd_lint.analysis.engine", "autograd_lint.notebook.check",
            "autograd_lint.runtime.runner", "asyncio"}  # fmt: skip
    assert not late & second


@pytest.fixture
def project(tmp_path, monkeypatch):
    """samples/project_stateful as a project of its own, plus a file that imports nothing
    of it; the working directory is the project."""
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n", encoding="utf-8")
    shutil.copy(SAMPLES / "ag001_rnn_hidden_buggy.py", root / "alone.py")
    monkeypatch.chdir(root)
    return root


def counted_check(monkeypatch) -> list[str]:
    """The paths the CLI analyses (the cache answers the others)."""
    analysed: list[str] = []
    real = cli.check_path

    def counting(path, *args, **kwargs):
        analysed.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cli, "check_path", counting)
    return analysed


def check(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(["check", ".", "--jobs", "1", *args])
    return code, capsys.readouterr().out


def test_an_unchanged_tree_is_answered_from_the_cache(project, monkeypatch, capsys):
    analysed = counted_check(monkeypatch)
    first = check(capsys)
    assert sorted(analysed) == ["alone.py", "models.py", "train_buggy.py", "train_fixed.py"]
    assert "train_buggy.py:" in first[1] and "AG001" in first[1]
    analysed.clear()
    assert check(capsys) == first
    assert analysed == []
    cache = project / CACHE_DIR_NAME
    assert (cache / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert len(list(next(p for p in cache.iterdir() if p.is_dir()).iterdir())) == 4


def test_editing_an_imported_module_rechecks_its_importers_only(project, monkeypatch, capsys):
    analysed = counted_check(monkeypatch)
    first = check(capsys)
    assert [line for line in first[1].splitlines() if "train_buggy.py:" in line and "AG001" in line]
    # StatefulRNN now cuts its state's history as TruncatedRNN does (train_fixed.py, run
    # under torch by the cross-file tests, shows that this trains)
    models = project / "models.py"
    text = models.read_text(encoding="utf-8")
    stateful = text.index("class StatefulRNN")
    forward = text.index("        out, self.hidden = self.rnn(x, self.hidden)", stateful)
    detach = "        if self.hidden is not None:\n            self.hidden = self.hidden.detach()\n"
    models.write_text(text[:forward] + detach + text[forward:], encoding="utf-8")
    analysed.clear()
    code, out = check(capsys)
    assert sorted(analysed) == ["models.py", "train_buggy.py", "train_fixed.py"]
    assert "train_buggy.py:" not in out
    assert "alone.py:" in out  # its own finding, from the cache
    assert code == 1


def test_no_cache_neither_reads_nor_writes_it(project, monkeypatch, capsys):
    analysed = counted_check(monkeypatch)
    check(capsys, "--no-cache")
    check(capsys, "--no-cache")
    assert len(analysed) == 8
    assert not (project / CACHE_DIR_NAME).exists()


def test_the_cache_dir_setting_moves_the_cache(project, monkeypatch, capsys):
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8") + "\n[tool.autograd-lint]\ncache-dir = 'build/agl'\n",
        encoding="utf-8",
    )
    analysed = counted_check(monkeypatch)
    check(capsys)
    check(capsys)
    assert len(analysed) == 4
    assert (project / "build" / "agl" / ".gitignore").is_file()
    assert not (project / CACHE_DIR_NAME).exists()


def test_changed_settings_are_not_answered_with_other_settings_findings(
    project, monkeypatch, capsys
):
    analysed = counted_check(monkeypatch)
    _, everything = check(capsys)
    _, selected = check(capsys, "--select", "AG006")
    assert "AG001" in everything and "AG001" not in selected
    assert len(analysed) == 8


def test_runs_of_files_have_about_equal_cost_and_cover_every_file_once():
    from autograd_lint.jobs import _balanced_bounds

    costs = [100, 1, 1, 1, 1, 1, 50, 50, 1, 1, 1, 1, 1, 1, 1, 1]
    bounds = _balanced_bounds(costs, 4)
    assert bounds[0] == 0 and bounds[-1] == len(costs)
    assert all(a < b for a, b in zip(bounds, bounds[1:]))  # no run is empty
    totals = [sum(costs[a:b]) for a, b in zip(bounds, bounds[1:])]
    assert totals[0] == 100  # the big file alone: not a quarter of the files by count
    assert max(totals) <= 100 and len(totals) <= 4
    assert _balanced_bounds([5], 8) == [0, 1]
    assert _balanced_bounds([0, 0, 0], 2)[-1] == 3  # files of no size: still all checked


def test_costliest_runs_first_still_give_the_files_order(tmp_path):
    """Big files first and small ones last in the pool; the findings in the files' order."""
    from autograd_lint.jobs import FileTask, can_fork, check_files

    if not can_fork():
        pytest.skip("the pool needs fork; elsewhere files are checked in one process")
    files = []
    for index in range(12):
        path = tmp_path / f"f{index:02}.py"
        path.write_text("x = 1\n" * (1 + (index % 3) * 400), encoding="utf-8")
        files.append(path)
    tasks = [FileTask(p, p, None, None, False) for p in files]
    found = check_files(tasks, lambda task: [task.file.name], 2, None)
    assert found == [[p.name] for p in files]


def test_a_changed_library_file_rechecks_the_files_whose_analysis_read_it(
    tmp_path, monkeypatch, capsys
):
    """A class of an installed library (test_library_summaries' EvolveLike) kept its last
    weight; the library's new version does not: the file that builds one is checked
    again (and its finding goes), the file that uses no library is answered from the cache."""
    from autograd_lint.analysis import library_layers
    from autograd_lint.environment import Environment
    from autograd_lint.library_summaries import LibrarySummaries
    from test_library_summaries import EVOLVING, fake_site

    python = fake_site(tmp_path, EVOLVING)

    def fresh_summaries() -> None:  # each run is a new process: nothing kept in memory
        summaries = LibrarySummaries(Environment(python), tmp_path / "summaries")
        monkeypatch.setattr(library_layers, "_DEFAULT", summaries)

    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n", encoding="utf-8")
    (root / "train.py").write_text(
        "import torch\nfrom evolving import EvolveLike\n\nlayer = EvolveLike(3)\n"
        "for _ in range(2):\n    layer(torch.rand(2, 3)).sum().backward()\n",
        encoding="utf-8",
    )
    shutil.copy(SAMPLES / "ag001_rnn_hidden_buggy.py", root / "alone.py")
    monkeypatch.chdir(root)
    analysed = counted_check(monkeypatch)
    fresh_summaries()
    _, first = check(capsys)
    assert sorted(analysed) == ["alone.py", "train.py"]
    assert "train.py:6:5: AG001" in first  # the kept weight: the second backward raises
    analysed.clear()
    fresh_summaries()
    assert check(capsys)[1] == first and analysed == []
    base = tmp_path / "site" / "evolving" / "base.py"
    base.write_text(base.read_text().replace("self.weight = self.recurrent", "w = self.recurrent"))
    fresh_summaries()
    _, after = check(capsys)
    assert analysed == ["train.py"]
    assert "train.py" not in after and "alone.py" in after


def test_a_remembered_library_answer_names_its_files_for_every_file_that_asks(tmp_path):
    import hashlib

    from autograd_lint.cache import recording_library_reads
    from autograd_lint.environment import Environment
    from autograd_lint.library_summaries import LibrarySummaries
    from test_library_summaries import EVOLVING, fake_site

    python = fake_site(tmp_path, EVOLVING)
    summaries = LibrarySummaries(Environment(python), tmp_path / "summaries")
    with recording_library_reads() as first:  # computed: the class's modules are read
        summaries.class_state("evolving.EvolveLike")
    with recording_library_reads() as again:  # answered from memory
        summaries.class_state("evolving.EvolveLike")
    with recording_library_reads() as from_disk:  # another run: from the summaries' cache
        LibrarySummaries(Environment(python), tmp_path / "summaries").class_state(
            "evolving.EvolveLike"
        )
    base = (tmp_path / "site" / "evolving" / "base.py").resolve()
    digest = hashlib.sha256(base.read_bytes()).hexdigest()
    assert {Path(p).resolve(): d for p, d in first.items()}[base] == digest
    assert again == first and from_disk == first
    with recording_library_reads() as unrelated:
        pass
    assert unrelated == {}
