"""Issue 16, the analysis: editor results equal fresh ones, columns come from the text given,
and odd but legal input (CR-only files, a byte-order mark) is handled like any other."""

from __future__ import annotations

import random
from pathlib import Path

from autograd_lint.analysis import analyze
from autograd_lint.analysis.engine import AnalysisCache
from autograd_lint.fixes.engine import fix_all

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
RNN = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text()


def as_tuples(findings):
    return [
        (f.code, f.span, f.message, [(s.span, s.message) for s in f.evidence]) for f in findings
    ]


def test_closing_a_docstring_leaves_no_stale_syntax_error():
    cache = AnalysisCache()
    analyze("import torch\nx = torch.ones(1)\n", "f.py", cache=cache)
    opened = analyze('"""\nimport torch\nx = torch.ones(1)\n', "f.py", cache=cache)
    assert [f.code for f in opened] == ["AG000"]
    closed = analyze('"""Doc.\n"""\nimport torch\nx = torch.ones(1)\n', "f.py", cache=cache)
    assert closed == []


def test_broken_file_reports_what_a_fresh_analysis_reports():
    # Opening a string above cut pieces joins them; the pieces below must be cut again.
    cache = AnalysisCache()
    text = "import torch\n\ndef f():\n    pass\n\ndef g(:\n    pass\n\nx = 1\n"
    analyze(text, "f.py", cache=cache)
    for edited in (
        text.replace("def f():", '"""def f():'),
        text.replace("def f():", '"""def f():').replace("x = 1", 'x = 1"""'),
        text.replace("def g(:", "def g():"),
    ):
        assert as_tuples(analyze(edited, "f.py", cache=cache)) == as_tuples(analyze(edited, "f.py"))


TOKENS = ['"""', "'''", "(", ")", ":", "\n", "\n    ", "def f(", "#", "\\", '"', "\t", "é"]


def test_random_edits_of_samples_keep_incremental_equal_to_fresh():
    rng = random.Random(16)
    for sample in sorted(SAMPLES.glob("*.py"))[:12]:
        text = sample.read_text()
        cache = AnalysisCache()
        analyze(text, "f.py", cache=cache)
        for _ in range(15):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.6:
                text = text[:at] + rng.choice(TOKENS) + text[at:]
            else:
                text = text[:at] + text[at + rng.randrange(1, 40) :]
            incremental = as_tuples(analyze(text, "f.py", cache=cache))
            assert incremental == as_tuples(analyze(text, "f.py")), (sample.name, text)


def test_syntax_error_column_comes_from_the_text_not_the_file_on_disk(tmp_path, monkeypatch):
    unsaved = "x = 1\ndef f(:\n    pass\n\nyyyyyyyyyyyyyyyy = (1 +* 2)\n"
    on_disk = tmp_path / "train.py"
    on_disk.write_text("x = 1\ndef f(:\n    pass\n\ny = (1 +* 2)\n")
    # Also a file named like a placeholder filename in the working directory.
    monkeypatch.chdir(tmp_path)
    for name in ("<unknown>", "<string>"):
        (tmp_path / name).write_text("a\nb\nc\nd\ne\n")
    for path in (str(on_disk), "<string>", "<unknown>"):
        errors = [f for f in analyze(unsaved, path) if f.code == "AG000"]
        assert [(f.span.start.line, f.span.start.column) for f in errors] == [(2, 6), (5, 23)]


def test_a_buffer_starting_with_a_byte_order_mark_is_analysed_as_without_it():
    findings = analyze("\ufeff" + RNN, "f.py")
    assert [f.code for f in findings] == [f.code for f in analyze(RNN, "f.py")]
    assert "AG000" not in [f.code for f in findings]


def test_fix_is_found_in_a_file_with_carriage_return_line_ends():
    fixed, applied, _ = fix_all(RNN.replace("\n", "\r"))
    assert [fix.code for fix in applied] == ["AG001"]
    assert "\n" not in fixed
    assert fixed.replace("\r", "\n") == fix_all(RNN)[0]


HEAD = (
    "import torch\nmodel = torch.nn.Linear(2, 2)\n"
    "opt = torch.optim.SGD(model.parameters(), 0.1)\nx = torch.randn(3, 2)\n"
)
DEEP = {
    # a 900-term sum over a graph built before the loop: AG001 at the backward (line 8)
    "sum": "loss = model(x).sum()\nfor i in range(3):\n    total = "
    + " + ".join(["loss"] * 900)
    + "\n    total.backward()\n",
    # 199 nested calls (as deep as the parser allows), then a .data write: AG006 (line 8)
    "nested": "for i in range(3):\n    out = "
    + "torch.relu(" * 199
    + "model(x)"
    + ")" * 199
    + "\n    out.sum().backward()\n    out.data = 1\n",
    # a 900-long method chain over a graph built before the loop: AG001 (line 8)
    "chain": "h = model(x)\nfor i in range(3):\n    out = h"
    + ".exp()" * 900
    + "\n    out.sum().backward()\n",
}
EXPECTED = {"sum": [("AG001", 8)], "nested": [("AG006", 8)], "chain": [("AG001", 8)]}


def test_deep_but_valid_code_is_analysed(caplog):
    for name, body in DEEP.items():
        with caplog.at_level("ERROR"):
            findings = analyze(HEAD + body, "f.py")
        assert [(f.code, f.span.start.line) for f in findings] == EXPECTED[name], name
        assert "internal error" not in caplog.text, name


def test_code_too_deep_to_analyse_is_reported_and_the_rest_still_checked(monkeypatch):
    import sys

    from autograd_lint.analysis import engine

    # As on Python 3.10, where the analysis keeps the default limit: 900 calls are too deep.
    monkeypatch.setattr(engine, "DEEP_CODE_RECURSION_LIMIT", 0)
    source = HEAD + (
        "h = model(x)\nstate = model(x)\nfor i in range(3):\n"
        f"    out = h{'.exp()' * 900}\n"
        "    state.sum().backward()\n"
    )
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        findings = analyze(source, "f.py")
    finally:
        sys.setrecursionlimit(previous)
    notes = [f for f in findings if f.code == "AG000"]
    assert [(n.span.start.line, n.severity.value) for n in notes] == [(8, "warning")]
    assert notes[0].message.startswith("not analysed: this statement is nested too deeply")
    # The backward on the next line, through a graph from before the loop, is still found.
    assert [(f.code, f.span.start.line) for f in findings if f.code != "AG000"] == [("AG001", 9)]


def test_a_huge_file_is_analysed_up_to_a_bound_that_is_reported(monkeypatch):
    from autograd_lint.analysis import engine

    monkeypatch.setattr(engine, "MAX_ANALYSED_LINES", 60)
    first = RNN.count("\n")  # 43 lines, with an AG001 at line 41
    source = RNN + "\n" + RNN + "\n" + RNN
    findings = analyze(source, "f.py")
    # Cut before the second copy's first top-level statement at or before line 61.
    notes = [f for f in findings if f.code == "AG000"]
    assert len(notes) == 1 and notes[0].severity.value == "warning"
    stopped = notes[0].span.start.line - 1
    assert first < stopped <= 60
    assert notes[0].message.startswith(f"not analysed: analysis stopped at line {stopped}; the ")
    assert [f.span.start.line for f in findings if f.code == "AG001"] == [41]
    # The editor's cache cuts the same way.
    cache = AnalysisCache()
    analyze(RNN, "f.py", cache=cache)
    assert as_tuples(analyze(source, "f.py", cache=cache)) == as_tuples(findings)


def test_a_file_within_the_bound_is_not_cut(monkeypatch):
    from autograd_lint.analysis import engine

    monkeypatch.setattr(engine, "MAX_ANALYSED_LINES", RNN.count("\n") + 1)
    assert "AG000" not in [f.code for f in analyze(RNN, "f.py")]


def test_names_in_a_message_are_ordered_the_same_in_a_file_cut_into_pieces():
    # Found by the fuzzer: carriers were sorted by their node's line as parsed, which a
    # block parsed alone counts from 1; a broken line elsewhere then reordered the names.
    valid = (
        "import torch\nenc = torch.nn.GRU(4, 4)\nsrc = torch.randn(3, 1, 4)\n"
        "_, enc_hidden = enc(src)\ndec_h = enc_hidden * 2\n"
        "for i in range(3):\n    loss = dec_h.sum() + enc_hidden.sum() + _.sum()\n"
        "    loss.backward()\n"
    )
    broken = valid + "\ndef broken(:\n    pass\n"
    cache = AnalysisCache()
    analyze(valid, "f.py", cache=cache)
    incremental = analyze(broken, "f.py", cache=cache)
    (ag001,) = [f for f in incremental if f.code == "AG001"]
    assert "`_`, `enc_hidden`, `dec_h`" in ag001.message
    assert as_tuples(incremental) == as_tuples(analyze(broken, "f.py"))
