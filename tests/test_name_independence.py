"""Findings do not depend on what the user called things (issue 12).

Every name a file binds — variables, parameters, functions, classes, `self.` attributes;
imports, builtins and framework hook names stay — is renamed to a neutral one (`v1`,
`v2`, ...) by bench/neutral_renamer.py, and the analyzer must report exactly the same
findings (line and code) on the renamed file: none lost, none added. The yardstick's cases
come from its manifest and are analysed as it judges them; a project case is renamed
across all its files too. The renamer's own behaviour is pinned by tests/test_neutral_names.py.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from autograd_lint.analysis import analyze

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests" / "realworld")]

from neutral_names import rename_project  # noqa: E402
from neutral_renamer import rename_source  # noqa: E402
from yardstick import case_findings, load_manifest  # noqa: E402


def _parses(path: Path) -> bool:
    try:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    except SyntaxError:
        return False  # its AG000 is the corpus test's to check
    return True


FILES = sorted(
    path
    for folder in ("samples", "tests/corpus")
    for path in (ROOT / folder).glob("*.py")
    if _parses(path)
)
# The yardstick by its manifest, so that no case falls out however it is laid out: each
# entry analysed as the yardstick judges it (a project case with its folder's modules).
CASES = load_manifest()
PROJECTS = [case for case in CASES if case.project is not None]


def _findings(source: str, path: Path) -> Counter:
    return Counter((f.span.start.line, f.code) for f in analyze(source, str(path)))


def _keys(findings) -> Counter:
    return Counter((f.span.start.line, f.code) for f in findings)


def _same(before: Counter, after: Counter) -> None:
    assert after == before, (
        sorted((before - after).elements()),
        sorted((after - before).elements()),
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_renaming_every_bound_name_keeps_every_finding(path):
    source = path.read_text(encoding="utf-8")
    renamed = rename_source(source)
    _same(_findings(source, path), _findings(renamed.text, path))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_yardstick_case_keeps_every_finding_when_its_entry_is_renamed(case):
    renamed = rename_source(case.path.read_text(encoding="utf-8"))
    _same(_keys(case_findings(case)), _keys(case_findings(case, {case.path: renamed.text})))


@pytest.mark.parametrize("case", PROJECTS, ids=lambda case: case.id)
def test_a_project_case_keeps_every_finding_when_all_its_files_are_renamed(case):
    """The modules' names count as much as the entry's: a layer keeping its state on
    `self` is found by what it does, whatever the repository called it. Names another file
    of the project spells stay (rename_project), so the imports still meet."""
    renamed = rename_project(case)
    assert any(renamed[module].mapping for module in case.project_modules), "nothing renamed"
    texts = {path: result.text for path, result in renamed.items()}
    _same(_keys(case_findings(case)), _keys(case_findings(case, texts)))


def test_every_file_of_the_yardstick_is_a_file_of_a_case():
    """What the tests above read (the manifest's entries and their projects' modules) is
    every Python file under tests/realworld/cases: none can fall out of them."""
    folder = ROOT / "tests" / "realworld" / "cases"
    on_disk = {p.resolve() for p in folder.rglob("*.py") if "__pycache__" not in p.parts}
    read = {path.resolve() for case in CASES for path in case.files}
    assert on_disk == read, (sorted(on_disk - read), sorted(read - on_disk))
    assert len(PROJECTS) < len(CASES)


def test_the_renaming_changes_the_names_findings_once_hung_on():
    """The renamer really reaches the names the analysis used to read: the models and
    optimizers of a renamed GAN sample are called something else, and its finding stays."""
    path = ROOT / "samples" / "ag002_gan_fake_buggy.py"
    source = path.read_text(encoding="utf-8")
    renamed = rename_source(source)
    for name in ("generator", "discriminator", "g_optimizer", "d_optimizer"):
        assert name in source and name in renamed.mapping, name
    assert _findings(source, path) == _findings(renamed.text, path) != Counter()
