"""The code a message quotes reads as the code the user wrote."""

import ast

import pytest
from autograd_lint.analysis import analyze
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


TWO_LAYERS_KEEP_STATE = """import torch
from torch import nn


class Leaky(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.mem = torch.zeros(1, 3)

    def forward(self, x):
        self.mem = 0.9 * self.mem + self.lin(x)
        return self.mem


first, second = Leaky(), Leaky()
opt = torch.optim.SGD([*first.parameters(), *second.parameters()], lr=0.1)
for step in range(3):
    out = second(first(torch.randn(1, 3)))
    loss = out.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_carrier_two_objects_share_is_named_once():
    # Two layers of one class each keep `self.mem`: one name, said once.
    (finding,) = analyze(TWO_LAYERS_KEEP_STATE, "snn.py")
    assert finding.code == "AG001"
    assert finding.message.count("`self.mem`") == 1, finding.message
    assert "`self.mem` carries the graph" in finding.message
    assert finding.extra["carried"] == ["self.mem"]
