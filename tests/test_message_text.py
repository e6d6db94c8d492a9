"""The code a message quotes reads as the code the user wrote."""

import ast

import pytest
from autograd_lint.analysis.report import call_text


@pytest.mark.parametrize(
    "written, quoted",
    [
        ("loss.backward()", "loss.backward()"),
        ("(w_rec * weight).backward()", "(w_rec * weight).backward()"),
        ("(-objective).backward()", "(-objective).backward()"),
        ("losses[0].backward()", "losses[0].backward()"),
        ("model(x).sum().backward()", "model(x).sum().backward()"),
        ("(a if flag else b).backward(retain_graph=True)", "(a if flag else b).backward()"),
    ],
)
def test_a_backward_call_is_quoted_with_its_receivers_parentheses(written, quoted):
    call = ast.parse(written, mode="eval").body
    assert call_text(call) == quoted
