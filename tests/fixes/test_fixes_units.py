"""The fix engine's parts on small, made-up programs: edits, suppression comments, the
shapes of generated detach code, fix-all, and inputs that must not break it."""

from __future__ import annotations

import textwrap

import pytest
from autograd_lint.analysis import Finding, Severity, Span, analyze
from autograd_lint.analysis.suppress import filter_suppressed
from autograd_lint.fixes import TextEdit, apply_fixes, fix_all, fixes_for
from autograd_lint.fixes.text import apply_edits, minimal_edits


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def only_finding(source: str, rule: str = "AG001") -> Finding:
    found = [f for f in analyze(source) if f.code == rule]
    assert len(found) == 1, found
    return found[0]


def preferred(source: str, finding: Finding):
    return next(f for f in fixes_for(source, finding) if f.preferred)


def added_lines(fix) -> list[str]:
    return [line for e in fix.edits for line in e.new_text.splitlines()]


# -- edits -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old,new",
    [
        ("a\nb\nc\n", "a\nx\nb\nc\n"),
        ("a\r\nb\r\n", "a\r\nb2\r\n"),
        ("a\nb", "a\nb\nc"),  # no newline at the end
        ("é = 1\nπ = 2\n", "é = 1\nπ = 3\n"),
        ("", "x\n"),
        ("x\n", ""),
    ],
)
def test_minimal_edits_rebuild_the_new_text(old, new):
    edits = minimal_edits(old, new)
    assert apply_edits(old, edits) == new
    assert minimal_edits(old, old) == ()


def test_minimal_edits_cover_only_changed_lines():
    old = "one\ntwo\nthree\nfour\n"
    new = "one\nTWO\nthree\nfour\nfive\n"
    assert [(e.span.start.line, e.span.end.line, e.new_text) for e in minimal_edits(old, new)] == [
        (2, 3, "TWO\n"),
        (5, 5, "five\n"),
    ]


def test_overlapping_fixes_are_skipped_not_merged():
    source = "a\nb\n"
    first = TextEdit(Span.of(1, 0, 2, 0), "A\n")
    second = TextEdit(Span.of(1, 0, 2, 0), "Z\n")
    from autograd_lint.fixes.model import Fix

    fixes = [Fix("first", "AG001", (first,)), Fix("second", "AG001", (second,))]
    assert apply_fixes(source, fixes) == "A\nb\n"


# -- suppression comments ----------------------------------------------------------------
RNN = code(
    """
    import torch
    from torch import nn

    rnn = nn.GRU(4, 8)
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
    h = torch.zeros(1, 2, 8)
    for x in torch.randn(3, 5, 2, 4):
        out, h = rnn(x, h)
        optimizer.zero_grad()
        out.sum().backward()
        optimizer.step()
    """
)


def ignore_of(source: str, finding: Finding):
    return next(f for f in fixes_for(source, finding) if f.strategy == "ignore")


def test_ignore_adds_a_suppression_comment_that_works():
    finding = only_finding(RNN)
    fix = ignore_of(RNN, finding)
    assert fix.title == "Ignore AG001 on this line" and not fix.preferred
    fixed = apply_fixes(RNN, [fix])
    assert "out.sum().backward()  # autograd-lint: ignore[AG001]\n" in fixed
    assert filter_suppressed(analyze(fixed), fixed) == []


def test_ignore_keeps_an_existing_comment():
    source = RNN.replace("out.sum().backward()", "out.sum().backward()  # note")
    fixed = apply_fixes(source, [ignore_of(source, only_finding(source))])
    assert "out.sum().backward()  # note  # autograd-lint: ignore[AG001]\n" in fixed


def test_ignore_extends_an_existing_directive():
    source = RNN.replace(
        "out.sum().backward()", "out.sum().backward()  # autograd-lint: ignore[AG002]"
    )
    fixed = apply_fixes(source, [ignore_of(source, only_finding(source))])
    assert "# autograd-lint: ignore[AG002, AG001]\n" in fixed
    assert filter_suppressed(analyze(fixed), fixed) == []


def test_no_ignore_where_a_comment_cannot_go():
    source = 'x = """one\ntwo"""\n'
    finding = Finding("AG001", Severity.ERROR, "m", Span.of(1, 0, 1, 3), kind="carried-state")
    assert fixes_for(source, finding) == []


# -- the detach code fits the value --------------------------------------------------------
def test_lstm_state_that_starts_as_none_is_guarded_and_detached_element_wise():
    source = code(
        """
        import torch
        from torch import nn

        lstm = nn.LSTM(4, 8)
        optimizer = torch.optim.SGD(lstm.parameters(), lr=0.1)
        state = None
        for x in torch.randn(3, 5, 2, 4):
            out, state = lstm(x, state)
            optimizer.zero_grad()
            out.sum().backward()
            optimizer.step()
        """
    )
    fix = preferred(source, only_finding(source))
    assert added_lines(fix) == [
        "    if state is not None:",
        "        state = tuple(t.detach() for t in state)",
    ]
    fixed = apply_fixes(source, [fix])
    exec(compile(fixed, "<fixed>", "exec"), {})  # runs with torch, no error


def test_separate_names_are_detached_together():
    source = code(
        """
        import torch
        from torch import nn

        cell = nn.LSTMCell(4, 8)
        optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
        h, c = torch.zeros(2, 8), torch.zeros(2, 8)
        for x in torch.randn(3, 2, 4):
            h, c = cell(x, (h, c))
            optimizer.zero_grad()
            h.sum().backward()
            optimizer.step()
        """
    )
    fix = preferred(source, only_finding(source))
    assert added_lines(fix) == ["    h, c = h.detach(), c.detach()"]
    assert fix.title == "Detach `h` and `c` at the start of each iteration"


def test_a_leaf_that_requires_grad_stays_one():
    source = code(
        """
        import torch

        x = torch.randn(4, 3)
        w = torch.zeros(3, 3, requires_grad=True)
        for step in range(3):
            h = torch.tanh(x @ w)
            loss = h.pow(2).mean()
            loss.backward()
            w = w + 0.1 * (x.t() @ h)
        """
    )
    fix = preferred(source, only_finding(source))
    assert added_lines(fix) == ["    w = w.detach().requires_grad_()"]
    exec(compile(apply_fixes(source, [fix]), "<fixed>", "exec"), {})


def test_state_of_unknown_shape_gets_code_right_for_tensor_and_tuple():
    source = code(
        """
        import torch

        def train(model, optimizer, batches, hidden):
            for x in batches:
                out, hidden = model(x, hidden)
                optimizer.zero_grad()
                out.sum().backward()
                optimizer.step()
            return hidden

        gru, lstm = torch.nn.GRU(4, 8), torch.nn.LSTM(4, 8)
        """
    )
    finding = only_finding(
        source
        + "train(gru, torch.optim.SGD(gru.parameters(), lr=0.1), torch.randn(3, 5, 2, 4), None)\n"
    )
    fix = preferred(source, finding)
    (line,) = added_lines(fix)
    assert "isinstance(hidden, torch.Tensor)" in line
    fixed = apply_fixes(source, [fix])
    for model, start in (
        ("gru", "torch.zeros(1, 2, 8)"),
        ("lstm", "(torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))"),
    ):
        run = f"train({model}, torch.optim.SGD({model}.parameters(), lr=0.1), torch.randn(3, 5, 2, 4), {start})\n"
        exec(compile(fixed + run, "<fixed>", "exec"), {})


def test_rewrite_keeps_comments_tabs_and_quotes():
    source = RNN.replace("    ", "\t").replace(
        "for x in torch.randn(3, 5, 2, 4):",
        "for x in torch.randn(3, 5, 2, 4):  # 'batches'\n\t# the state flows on",
    )
    fix = preferred(source, only_finding(source))
    fixed = apply_fixes(source, [fix])
    assert fixed.replace("\th = h.detach()\n", "", 1) == source
    assert "\th = h.detach()\n\t# the state flows on\n" in fixed


# -- AG002 ---------------------------------------------------------------------------------
def test_retain_graph_is_added_after_the_other_arguments():
    source = code(
        """
        import torch

        w = torch.ones(3, requires_grad=True)
        shared = (w * 2).exp()
        first, second = shared.sum(), (shared * 3).sum()
        first.backward(inputs=[w])
        second.backward()
        """
    )
    finding = only_finding(source, "AG002")
    fixes = fixes_for(source, finding)
    retain = next(f for f in fixes if f.strategy == "retain-first")
    assert "first.backward(inputs=[w], retain_graph=True)\n" in apply_fixes(source, [retain])
    for fix in fixes[:-1]:
        exec(compile(apply_fixes(source, [fix]), "<fixed>", "exec"), {})


def test_retain_graph_on_the_first_of_two_identical_backwards_doubles_the_gradient():
    # Why removing the second call, not keeping the graph, is the preferred fix.
    import torch  # here, not at the top: collecting this file (every worker) need not load it

    w = torch.ones(2, requires_grad=True)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert torch.equal(w.grad, 2 * (2 * torch.ones(2)))


# -- fix-all and robustness ---------------------------------------------------------------
def test_fix_all_fixes_every_finding_and_says_what_it_did():
    gan = code(
        """
        G, D = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
        opt_g, opt_d = torch.optim.SGD(G.parameters(), lr=0.1), torch.optim.SGD(D.parameters(), lr=0.1)
        for step in range(2):
            fake = G(torch.randn(4, 2))
            opt_d.zero_grad()
            d_loss = D(fake).mean()
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(fake).mean()
            g_loss.backward()
            opt_g.step()
        """
    )
    source = RNN + gan
    assert {f.code for f in analyze(source)} == {"AG001", "AG002"}
    fixed, applied, remaining = fix_all(source)
    assert remaining == [] and len(applied) == 2
    assert {f.strategy for f in applied} == {"detach-loop-top", "detach-shared"}
    exec(compile(fixed, "<fixed>", "exec"), {})
    assert fix_all(fixed) == (fixed, [], [])


def test_a_source_that_does_not_parse_gets_only_the_ignore():
    source = RNN + "def broken(:\n"
    finding = only_finding(source)
    assert [f.strategy for f in fixes_for(source, finding)] == ["ignore"]


def test_a_finding_that_does_not_match_the_text_gets_no_rewrite():
    finding = only_finding(RNN)
    assert [f.strategy for f in fixes_for("x = 1\n" * 20, finding)] == ["ignore"]


def test_evidence_in_another_file_gets_no_rewrite():
    import dataclasses

    from autograd_lint.analysis import Role

    finding = only_finding(RNN)
    assert len(fixes_for(RNN, finding)) > 1
    moved = tuple(
        dataclasses.replace(step, path="elsewhere.py") if step.role is Role.CARRIED else step
        for step in finding.evidence
    )
    foreign = dataclasses.replace(finding, evidence=moved, path="train.py")
    assert [f.strategy for f in fixes_for(RNN, foreign)] == ["ignore"]


def test_header_comments_and_a_missing_final_newline_survive():
    source = "#!/usr/bin/env python\n# a header comment\n\n" + RNN.rstrip("\n")
    fixed = apply_fixes(source, [preferred(source, only_finding(source))])
    assert fixed.replace("    h = h.detach()\n", "", 1) == source
    assert not fixed.endswith("\n")


def test_a_syntax_error_gets_no_fix():
    source = RNN + "def broken(:\n"
    (syntax,) = [f for f in analyze(source) if f.code == "AG000"]
    assert fixes_for(source, syntax) == []
