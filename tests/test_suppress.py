"""Inline `# autograd-lint: ignore[...]` comments."""

from __future__ import annotations

import random

import pytest
from autograd_lint.analysis import Finding, Severity, Span
from autograd_lint.analysis.suppress import comments, filter_suppressed, suppressions


def finding(line: int, code: str = "AG001") -> Finding:
    return Finding(code, Severity.ERROR, "message", Span.of(line, 4, line, 10), path="t.py")


def kept_lines(source: str, *found: Finding) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in filter_suppressed(list(found), source)]


def test_named_code_on_the_reported_line_is_suppressed():
    source = "a = 1\nloss.backward()  # autograd-lint: ignore[AG001]\n"
    assert kept_lines(source, finding(2), finding(2, "AG002"), finding(1)) == [
        (2, "AG002"),
        (1, "AG001"),
    ]


def test_several_codes_and_spacing():
    source = "x\nloss.backward()  #autograd-lint:ignore[ AG001 ,ag002 ]\n"
    assert kept_lines(source, finding(2), finding(2, "AG002"), finding(2, "AG003")) == [
        (2, "AG003")
    ]


def test_bare_ignore_suppresses_every_code():
    source = "loss.backward()  # autograd-lint: ignore\n"
    assert kept_lines(source, finding(1), finding(1, "AG002"), finding(1, "AG000")) == []


def test_only_the_start_line_of_the_finding_counts():
    source = "loss.backward(\n    x,\n)  # autograd-lint: ignore\n"
    multi_line = Finding("AG001", Severity.ERROR, "m", Span.of(1, 0, 3, 1))
    assert filter_suppressed([multi_line], source) == [multi_line]


def test_directive_after_another_comment():
    source = "loss.backward()  # noqa: E501  # autograd-lint: ignore[AG001]\n"
    assert kept_lines(source, finding(1)) == []


@pytest.mark.parametrize(
    "line",
    [
        's = "# autograd-lint: ignore"',
        "s = '# autograd-lint: ignore[AG001]'",
        "loss.backward()  # autograd-lint: ignored",
        "loss.backward()  # autograd-lint: ignore-all",
        "loss.backward()  # autograd-lint: ignore[]",
        "loss.backward()  # autograd-lint: ignore[AG002]",
        "loss.backward()  # lint: ignore",
    ],
)
def test_what_does_not_suppress(line):
    assert kept_lines(line + "\n", finding(1)) == [(1, "AG001")]


def test_hash_inside_a_multi_line_string_is_not_a_comment():
    source = 'doc = """\n# autograd-lint: ignore\n"""\n'
    assert kept_lines(source, finding(2)) == [(2, "AG001")]


def test_comments_after_a_tokenizer_error_are_still_found():
    # The dedent to a column no block opened stops `tokenize` on line 4.
    source = (
        "if x:\n"
        "        a = 1\n"
        "    # autograd-lint: ignore[AG002]\n"
        "  b = 2\n"
        "c = 'not # a comment'\n"
        "loss.backward()  # autograd-lint: ignore[AG001]\n"
    )
    assert suppressions(source) == {
        3: frozenset({"AG002"}),
        6: frozenset({"AG001"}),
    }


def test_unterminated_string_does_not_hide_later_lines_from_the_fallback():
    source = "if x:\n        a = 1\n  b = 'open\nloss.backward()  # autograd-lint: ignore\n"
    assert kept_lines(source, finding(4)) == []


def test_comment_inside_an_unclosed_bracket():
    source = "loss = f(  # autograd-lint: ignore[AG001]\n"
    assert kept_lines(source, finding(1)) == []


def test_no_directive_returns_findings_unchanged():
    found = [finding(1), finding(2)]
    assert filter_suppressed(found, "a = 1\nb = 2\n") == found


def test_junk_never_raises():
    rng = random.Random(1234)
    alphabet = "#'\"\\\n\r\t ([{}]):autograd-lint ignore AG001\x00\x7f\u00e9\ufeff"
    for _ in range(300):
        source = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        lines = [finding(n) for n in range(1, source.count("\n") + 2)]
        kept = filter_suppressed(lines, source)
        assert set(kept) <= set(lines)
        list(comments(source))
