"""What fixes/infer.py says a carried state holds, checked against what it holds when the
program runs: its nn classes come from the imports, whatever they are called (issue 12).

The detach fix writes `h.detach()` for a tensor and detaches each element of a tuple (an
LSTM's `(h, c)`); which one it writes rests on these kinds.
"""

from __future__ import annotations

import textwrap

import pytest
from autograd_lint.fixes.document import Document
from autograd_lint.fixes.infer import TENSOR, TUPLE, Inference

PROGRAMS = {
    # torch's LSTM imported under another name: its state is a tuple.
    "an LSTM imported under another name": """
        import torch
        from torch import nn as layers

        rnn = layers.LSTM(3, 4)
        state = (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4))
        for _ in range(2):
            out, state = rnn(torch.randn(5, 1, 3), state)
    """,
    # A module whose methods call their instance `this`: `this.rnn` is the class's LSTM.
    "a method receiver not called self": """
        import torch

        class Tagger(torch.nn.Module):
            def __init__(this):
                super().__init__()
                this.rnn = torch.nn.LSTM(3, 4)

            def forward(this, x, s):
                return this.rnn(x, s)

        tagger = Tagger()
        state = (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4))
        for _ in range(2):
            out, state = tagger(torch.randn(5, 1, 3), state)
    """,
    # A user's cell named like torch's LSTM returns one tensor: its name says nothing.
    "a local class named LSTM": """
        import torch

        class LSTM(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(3, 3)

            def forward(self, x, h):
                return torch.tanh(self.lin(x) + h)

        cell = LSTM()
        state = torch.zeros(1, 3)
        for _ in range(2):
            state = cell(torch.randn(1, 3), state)
    """,
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_state_kind_agrees_with_the_run(name: str) -> None:
    import torch

    source = textwrap.dedent(PROGRAMS[name])
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, "<program>", "exec"), namespace)  # noqa: S102
    held = namespace["state"]
    truth = TUPLE if isinstance(held, tuple) else TENSOR
    assert isinstance(held, (tuple, torch.Tensor))
    document = Document(source)
    kinds = Inference(document).name_kinds("state", document.tree)
    assert kinds == {truth}
