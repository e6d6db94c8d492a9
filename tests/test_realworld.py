"""The real-world yardstick (tests/realworld/): its manifest, its labels under torch, and
the analyzer's score on it.

The labels are checked by running every case's completion with torch (one interpreter,
a fork per case: `tests/realworld/run_cases.py`): a crash must raise its error at its
marked line, a correct program must run to the end. The analyzer's result is compared
with the labels and *reported* — recall and false alarms, every miss by mechanism — and
the test fails only when the score falls below the floor recorded in
`tests/realworld/baseline.json` (raise the floor when the analysis gets better).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "realworld"))

import yardstick  # noqa: E402

CASES = yardstick.load_manifest()
IDS = [case.id for case in CASES]
RUNNER = yardstick.ROOT / "run_cases.py"
MIN_CASES, MIN_CRASHES, MIN_SOURCES = 60, 40, 40
RUN_TIMEOUT_S = 1500


def repository_of(url: str) -> str | None:
    """`https://github.com/owner/name/`, the repository a GitHub URL lies in."""
    match = re.match(r"https://github\.com/[^/]+/[^/]+/", url + "/")
    return match.group(0) if match else None


def header_source(path: Path) -> str | None:
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# Source:"):
            return line.removeprefix("# Source:").strip()
    return None


# -- the manifest ----------------------------------------------------------------------


def test_the_yardstick_is_big_and_varied_enough() -> None:
    crashes = [case for case in CASES if case.kind == "crash"]
    assert len(CASES) >= MIN_CASES
    assert len(crashes) >= MIN_CRASHES
    assert len({case.source for case in CASES}) >= MIN_SOURCES
    assert len({case.mechanism for case in crashes}) >= 10
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_files_cite_their_source_and_mark_their_line(case: yardstick.Case) -> None:
    assert case.path.stem == case.id and case.runnable_path.stem == case.id
    assert header_source(case.path) == case.source
    assert header_source(case.runnable_path) == case.source
    from run_cases import FAILS_MARK, marked_lines

    assert len(marked_lines(case.runnable_path)) == (1 if case.kind == "crash" else 0)
    # The analysed file says nothing about where it fails: the analyzer reads it blind.
    assert not any(map(FAILS_MARK.search, case.path.read_text(encoding="utf-8").splitlines()))
    if case.kind == "crash":
        lines = case.path.read_text(encoding="utf-8").splitlines()
        assert case.line <= len(lines)
        failing = lines[case.line - 1].strip()
        assert failing and not failing.startswith("#")
    for module in case.project_modules:
        # Each module of the project is rebuilt from a file of the case's own repository,
        # cited by its URL there, and says nothing about where the program fails either.
        cited = header_source(module)
        assert cited and repository_of(cited) == repository_of(case.source), module
        assert not any(map(FAILS_MARK.search, module.read_text(encoding="utf-8").splitlines()))


PROJECTS = [case for case in CASES if case.project]


def imported_files(path: Path, workspace) -> set[Path]:
    """The project files one file's imports load (a package's __init__ among them)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names = [(base, node.level)]
            names += [(f"{base}.{alias.name}".lstrip("."), node.level) for alias in node.names]
        else:
            continue
        for module, level in names:
            parts = module.split(".")
            for end in range(1, len(parts) + 1):  # `a.b.c` loads a/__init__, a/b/__init__...
                target = workspace.module_path(".".join(parts[:end]), level, str(path))
                if target is not None:
                    found.add(target)
    return found


@pytest.mark.parametrize("case", PROJECTS, ids=[case.id for case in PROJECTS])
def test_every_project_module_is_imported_by_the_case(case: yardstick.Case) -> None:
    """A project holds only what its entry's imports reach, directly or through another
    project module: the files the user's editor would read for this entry."""
    from autograd_lint.workspace import Workspace

    workspace = Workspace(case.project_root)
    reached, todo = set(), [case.path.resolve()]
    while todo:
        for target in imported_files(todo.pop(), workspace) - reached:
            reached.add(target)
            todo.append(target)
    unread = {p.resolve() for p in case.project_modules} - reached
    assert not unread, sorted(map(str, unread))


def test_a_project_case_is_analysed_with_its_modules(tmp_path: Path) -> None:
    """The yardstick resolves a project case's imports inside its folder, as the CLI does:
    a model class kept in another file carries its state into the entry's loop."""
    project = tmp_path / "stateful"
    (project / "nets").mkdir(parents=True)
    (project / "nets" / "__init__.py").write_text("", encoding="utf-8")
    (project / "nets" / "keeper.py").write_text(
        "import torch\n\n\nclass Keeper(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.layer = torch.nn.Linear(2, 2)\n        self.kept = torch.zeros(1, 2)\n\n"
        "    def forward(self, x):\n        self.kept = self.layer(x + self.kept)\n"
        "        return self.kept.sum()\n",
        encoding="utf-8",
    )
    entry = project / "train.py"
    entry.write_text(
        "import torch\nfrom nets.keeper import Keeper\n\nmodel = Keeper()\n"
        "for step in range(3):\n    model(torch.ones(1, 2)).backward()\n",
        encoding="utf-8",
    )
    fields = dict(id="stateful", source="https://example.org/t", mechanism="m", kind="crash",
                  file=str(entry), line=6, runnable=str(entry), requires=())  # fmt: skip
    alone = yardstick.judge(yardstick.Case(**fields))
    as_project = yardstick.judge(yardstick.Case(**fields, project=str(project)))
    assert not alone.found
    assert as_project.found and "AG001" in as_project.codes_at_line


def test_a_project_must_hold_its_entry() -> None:
    entries = json.loads(yardstick.MANIFEST.read_text(encoding="utf-8"))
    entry = next(entry for entry in entries if "project" not in entry)  # a file alone
    assert not yardstick.problems(entry)
    assert any(
        "not inside its project" in p for p in yardstick.problems(dict(entry, project="runnable"))
    )
    assert any("not a folder" in p for p in yardstick.problems(dict(entry, project="nowhere")))


# -- the labels, from torch ------------------------------------------------------------


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, torch_python) -> dict:
    out = tmp_path_factory.mktemp("realworld") / "outcomes.json"
    files = [str(case.runnable_path) for case in CASES]
    # The runner imports torch before its forks; the warm interpreter has it already.
    subprocess.run(
        [torch_python, str(RUNNER), "--json", str(out), *files],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_label_holds_under_torch(case: yardstick.Case, outcomes: dict) -> None:
    result = outcomes[str(case.runnable_path)]
    assert result["ok"], result["why"] + "\n" + result.get("output_tail", "")[-800:]
    if case.kind == "crash":
        from run_cases import error_kind

        assert error_kind(result["message"]) == case.error
    else:
        assert result["outcome"] == "clean"


# -- the analyzer's score --------------------------------------------------------------


def test_the_analysis_never_raises_on_real_code() -> None:
    for case in CASES:
        assert yardstick.judge(case).error is None, case.id


def test_score_does_not_fall_below_the_recorded_floor(capsys) -> None:
    result = yardstick.score(CASES)
    floor = yardstick.baseline()
    summary = result.summary()
    with capsys.disabled():
        print(
            f"\nreal-world yardstick: recall {summary['found']}/{summary['crashes']}, "
            f"false alarms {summary['false_alarms']}/{summary['correct']}"
        )
        for verdict in result.missed:
            print(f"  known gap: {verdict.case.id} ({verdict.case.mechanism})")
        for verdict in result.false_alarms:
            print(f"  false alarm: {verdict.case.id} {verdict.alarms}")
    assert summary["found"] >= floor["found_at_least"]
    assert summary["false_alarms"] <= floor["false_alarms_at_most"]
