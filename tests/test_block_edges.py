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
