"""Edges of cutting a file into blocks and parsing them, each one a mutant survived before.

(docs/mutation.md lists the mutation runs; these cases are the ones no other test
distinguished.)
"""

from __future__ import annotations

import ast

from autograd_lint.analysis import analyze
from autograd_lint.analysis.blocks import build_blocks, split_lines


def test_statements_sharing_a_line_are_one_block():
    # A block is the unit the editor's cache re-analyses; two blocks on one line would
    # each claim that line.
    source = "import torch; hidden = torch.zeros(1)\nsteps = 3\n"
    blocks = build_blocks(source, split_lines(source))
    assert [(b.start, b.end, len(b.statements)) for b in blocks] == [(1, 1, 2), (2, 2, 1)]


def test_text_python_cannot_encode_is_reported_in_pythons_words():
    # An editor may hold half of a UTF-16 surrogate pair; Python refuses to compile such
    # text with a UnicodeEncodeError (a ValueError, not a SyntaxError).
    source = 'label = "\ud800"\nloss.backward()\n'
    try:
        ast.parse(source)
    except ValueError as error:
        python_says = str(error)
    else:
        raise AssertionError("Python compiled a lone surrogate")
    (finding,) = analyze(source, "typed.py")
    assert finding.code == "AG000"
    assert finding.message.endswith(python_says)


def test_a_line_of_a_control_character_python_refuses_is_a_syntax_error():
    # A vertical tab alone on a line between statements: str.strip() calls that line
    # blank, Python does not.
    source = "import torch\nsteps = 1\n\x0b\nsteps = 2\n"
    try:
        ast.parse(source)
    except SyntaxError as error:
        python_line = error.lineno
    else:
        raise AssertionError("Python compiled a vertical tab line")
    (finding,) = analyze(source, "typed.py")
    assert (finding.code, finding.span.start.line) == ("AG000", python_line)


def test_a_syntax_error_message_names_the_files_line_not_the_blocks():
    # CPython numbers the lines of the text it parses; a broken block is parsed alone.
    source = "import torch\n\n\nsteps = 3\nfor step in range(steps):\nprint(step)\n"
    try:
        ast.parse(source)
    except SyntaxError as error:
        python_says = error.msg
    else:
        raise AssertionError("Python compiled a for loop without a body")
    assert "on line 5" in python_says
    (finding,) = analyze(source, "typed.py")
    assert finding.message == f"syntax error: {python_says}"


CARRIED_AFTER_BACKSLASH_COMMENT = """import torch

total = (
# the sum of the losses \\
def train(model, batches, optimizer):
    hidden = torch.zeros(1, 4)
    for x in batches:
        out, hidden = model(x, hidden)
        loss = out.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_comment_ending_in_a_backslash_joins_no_line_to_it():
    # A backslash ends a comment, it continues nothing: the `def` after it starts a block
    # of its own, which is analysed while the bracket above is still open.
    found = {(f.code, f.span.start.line) for f in analyze(CARRIED_AFTER_BACKSLASH_COMMENT, "t.py")}
    assert ("AG001", 11) in found and any(code == "AG000" for code, _ in found)


def test_an_edit_that_completes_a_body_continued_by_backslashes_reparses_the_file():
    # `def f():` then a `\` line then indented lines: the indented text after the
    # backslash is the function's body, which no piece from the backslash on parses alone.
    from autograd_lint.analysis.engine import AnalysisCache

    typing = (
        "import torch\n\n\ndef train(model, batches):\n\\\n    hidden = None\n\\\n"
        "    for x in batches:\n        out, hidden = model(x, hidden)\n"
        "        loss = out.sum(\n        loss.backward()\n"
    )
    typed = typing.replace("out.sum(\n", "out.sum()\n")
    ast.parse(typed)
    cache = AnalysisCache()
    analyze(typing, "t.py", cache=cache)
    in_editor = [(f.code, f.span, f.message) for f in analyze(typed, "t.py", cache=cache)]
    assert in_editor == [(f.code, f.span, f.message) for f in analyze(typed, "t.py")]
    assert [code for code, _, _ in in_editor] == ["AG001"]
