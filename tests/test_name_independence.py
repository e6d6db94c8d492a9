"""Findings do not depend on what the user called things (issue 12).

Every name a file binds — variables, parameters, functions, classes, `self.` attributes;
imports, builtins and framework hook names stay — is renamed to a neutral one (`v1`,
`v2`, ...) by bench/neutral_renamer.py, and the analyzer must report exactly the same
findings (line and code) on the renamed file: none lost, none added. The renamer's own
behaviour is pinned by tests/test_neutral_names.py.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from autograd_lint.analysis import analyze

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from neutral_renamer import rename_source  # noqa: E402


def _parses(path: Path) -> bool:
    try:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    except SyntaxError:
        return False  # its AG000 is the corpus test's to check
    return True


FILES = sorted(
    path
    for folder in ("samples", "tests/corpus", "tests/realworld/cases")
    for path in (ROOT / folder).glob("*.py")
    if _parses(path)
)


def _findings(source: str, path: Path) -> Counter:
    return Counter((f.span.start.line, f.code) for f in analyze(source, str(path)))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_renaming_every_bound_name_keeps_every_finding(path):
    source = path.read_text(encoding="utf-8")
    renamed = rename_source(source)
    before = _findings(source, path)
    after = _findings(renamed.text, path)
    assert after == before, (
        sorted((before - after).elements()),
        sorted((after - before).elements()),
    )


def test_the_renaming_changes_the_names_findings_once_hung_on():
    """The renamer really reaches the names the analysis used to read: the models and
    optimizers of a renamed GAN sample are called something else, and its finding stays."""
    path = ROOT / "samples" / "ag002_gan_fake_buggy.py"
    source = path.read_text(encoding="utf-8")
    renamed = rename_source(source)
    for name in ("generator", "discriminator", "g_optimizer", "d_optimizer"):
        assert name in source and name in renamed.mapping, name
    assert _findings(source, path) == _findings(renamed.text, path) != Counter()
