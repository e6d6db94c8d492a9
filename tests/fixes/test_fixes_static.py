"""Every rewrite offered for the samples and the runnable corpus, checked without running it.

(a) after the fix the finding is gone and no new one appears; (c) every line outside
the edited ranges is byte-identical; the fix is idempotent.
"""

from __future__ import annotations

import difflib

import pytest
from autograd_lint.fixes import fix_all, fixes_for
from autograd_lint.fixes.text import split_lines
from fix_cases import RULES, all_findings, findings_of, rewrite_cases

CASES = rewrite_cases()


def _key(source: str, finding) -> tuple:
    """A finding's identity across edits that move lines: rule, shape and its line's text."""
    line = split_lines(source)[finding.span.start.line - 1].strip()
    return finding.code, finding.kind, line


def test_the_programs_have_findings_with_rewrites():
    # Guards the parametrisations below against silently testing nothing.
    assert len(all_findings()) >= 40
    assert len(CASES) >= 40


@pytest.mark.parametrize(
    "path,source,finding", all_findings(), ids=lambda v: getattr(v, "stem", "")
)
def test_every_finding_has_an_ignore_and_at_most_one_preferred_fix(path, source, finding):
    fixes = fixes_for(source, finding)
    assert fixes[-1].strategy == "ignore"
    assert not fixes[-1].preferred
    rewrites = fixes[:-1]
    if rewrites:
        assert [f.preferred for f in rewrites].count(True) == 1
        assert rewrites[0].preferred, "the preferred fix comes first"
    for fix in fixes:
        assert fix.code == finding.code and fix.kind == "quickfix" and fix.title


def _rewritten_lines(old: str, new: str) -> list[tuple[range, range]]:
    """(old lines, new lines), 1-based, of each run of lines the fix rewrote."""
    matcher = difflib.SequenceMatcher(a=split_lines(old), b=split_lines(new), autojunk=False)
    return [
        (range(i1 + 1, i2 + 1), range(j1 + 1, j2 + 1))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _new_findings(case) -> list:
    """Findings of the fixed text that the original did not have. A finding on a line the
    fix rewrote (an AG002 on the backward whose needless `retain_graph` an AG004 fix
    dropped) is the same finding when the rewritten lines held one of its rule and shape."""
    before = findings_of(case.source, case.path)
    fixed_one = _key(case.source, case.finding)
    known = {_key(case.source, f) for f in before} - {fixed_one}
    rewritten = _rewritten_lines(case.source, case.fixed)
    out = []
    for finding in findings_of(case.fixed, case.path):
        if _key(case.fixed, finding) in known:
            continue
        line = finding.span.start.line
        held = [
            f
            for old_lines, new_lines in rewritten
            if line in new_lines
            for f in before
            if f.span.start.line in old_lines and (f.code, f.kind) == (finding.code, finding.kind)
        ]
        if not any(_key(case.source, f) != fixed_one for f in held):
            out.append(_key(case.fixed, finding))
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fix_removes_the_finding_and_adds_none(case):
    after = {_key(case.fixed, f) for f in findings_of(case.fixed, case.path)}
    assert _key(case.source, case.finding) not in after
    assert _new_findings(case) == []


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_lines_outside_the_edits_are_untouched(case):
    old_lines = split_lines(case.source)
    new_lines = split_lines(case.fixed)
    edited = set()
    for edit in case.fix.edits:
        assert edit.span.start.column == 0 and edit.span.end.column == 0, "whole-line edits"
        edited.update(range(edit.span.start.line - 1, edit.span.end.line - 1))
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    kept = set()
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            kept.update(range(i1, i2))
    untouched = set(range(len(old_lines))) - edited
    # Every line the edits leave alone survives byte for byte (line endings included),
    # and no edit rewrites a line it does not change.
    assert untouched <= kept
    assert not (kept & edited), "an edit covers a line it does not change"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_no_retain_graph_for_carried_graphs(case):
    if case.finding.code == "AG001":
        added = "".join(e.new_text for e in case.fix.edits)
        assert "retain_graph" not in added


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixed_source_needs_no_more_fixes(case):
    fixed = case.fixed
    again, applied, remaining = fix_all(fixed)
    others = [
        f
        for f in findings_of(case.source, case.path)
        if _key(case.source, f) != _key(case.source, case.finding)
    ]
    if not others:
        assert again == fixed and applied == [] and remaining == []
    else:
        # A program with two findings (an AG002 and the AG004 on the same call): what is
        # left to do is the other finding's fix, never this one again.
        assert {f.code for f in applied} <= {f.code for f in others}
        assert _key(case.source, case.finding) not in {_key(again, f) for f in remaining}


@pytest.mark.parametrize(
    "path,source,finding", all_findings(), ids=lambda v: getattr(v, "stem", "")
)
def test_fix_all_is_stable(path, source, finding):
    fixed, applied, remaining = fix_all(source, path=str(path))
    has_rewrite = any(f.preferred for f in fixes_for(source, finding))
    if has_rewrite:
        assert applied and fixed != source
    again, applied_again, _ = fix_all(fixed, path=str(path))
    assert again == fixed and not applied_again
    assert all(f.code in RULES or f.code == "AG000" for f in remaining)
