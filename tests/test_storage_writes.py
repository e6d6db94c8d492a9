"""An in-place write into a tensor an object keeps, after a pending graph saved it.

storage_writes.py's claims about torch, each run here (the version counter a view and a
`.detach()` share, `.data`'s own one, einsum's saved operands), and the analysis on
neutral names: what counts as the same storage and what does not. The corpus pair
tests/corpus/queue_written_after_scoring.py / clean_queue_cloned_before_scoring.py is
torch's verdict on the whole shape.
"""

import pytest
import torch
from autograd_lint.analysis import analyze
from autograd_lint.analysis.storage_writes import SHARING_ATTRIBUTES, SHARING_METHODS

SHARING_ARGS = {
    "view": (9,),
    "view_as": (torch.zeros(3, 3),),
    "transpose": (0, 1),
    "permute": (1, 0),
    "unsqueeze": (0,),
    "expand": (2, 3, 3),
    "expand_as": (torch.zeros(2, 3, 3),),
    "narrow": (0, 0, 2),
    "select": (0, 1),
    "movedim": (0, 1),
    "swapaxes": (0, 1),
    "unfold": (0, 2, 1),
}


@pytest.mark.parametrize("name", sorted(SHARING_METHODS | SHARING_ATTRIBUTES))
def test_sharing_rows_share_the_version_counter(name):
    kept = torch.randn(3, 3)
    shared = getattr(kept, name)
    if name in SHARING_METHODS:
        shared = shared(*SHARING_ARGS.get(name, ()))
    before = shared._version
    kept[0, 0] = 1.0  # a write into the kept tensor...
    assert shared._version != before  # ...is a new version of what shares it


def test_einsum_saves_a_detached_operand_and_a_clone_is_a_copy():
    q = torch.randn(2, 3, requires_grad=True)
    kept = torch.randn(3, 4)
    scores = torch.einsum("nc,ck->nk", q, kept.detach())
    with torch.no_grad():
        kept[:, 0] = 0.0  # no_grad does not spare the version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        scores.sum().backward()
    scores = torch.einsum("nc,ck->nk", q, kept.clone().detach())
    kept[:, 1] = 0.0
    scores.sum().backward()


def test_data_has_a_version_counter_of_its_own():
    q = torch.randn(2, 3, requires_grad=True)
    kept = torch.randn(3, 3)
    saved_through_data = (q @ kept.data).sum()
    kept[:, 0] = 0.0
    saved_through_data.backward()  # runs: the saved `.data` alias never saw the write
    saved = (q @ kept).sum()
    kept.data[:, 0] = 1.0
    saved.backward()  # runs (silently stale: AG006's business, not an error)


PROGRAM = """
import torch
from torch import nn


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.register_buffer("kept", torch.randn(3, 3))

    def forward(self, x):
        out = self.lin(x) @ SAVED
        WRITE
        return out


model = Holder()
for _ in range(2):
    loss = model(torch.randn(2, 3)).sum()
    loss.backward()
"""


def outcome(saved: str, write: str) -> tuple[bool, bool]:
    """(the analysis reports AG007, torch raises) for one variant of PROGRAM."""
    text = PROGRAM.replace("SAVED", saved).replace("WRITE", write)
    lines = text.splitlines()
    write_line = next(n for n, line in enumerate(lines, 1) if line.strip() == write)
    backward_line = next(n for n, line in enumerate(lines, 1) if "loss.backward()" in line)
    found = [f for f in analyze(text, "t.py") if f.code == "AG007"]
    # Where it is reported: on the write, with the backward that raises as its failing step.
    reported = any(
        f.span.start.line == write_line
        and any(s.role.value == "fails" and s.span.start.line == backward_line for s in f.evidence)
        for f in found
    )
    assert reported or not found, [(f.span.start.line, f.message) for f in found]
    try:
        exec(compile(text, "variant", "exec"), {})  # noqa: S102 - our own program
        raised = False
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
        raised = True
    return reported, raised


@pytest.mark.parametrize(
    ("saved", "write", "expected"),
    [
        ("self.kept", "self.kept.add_(1.0)", True),
        ("self.kept.detach()", "self.kept[0] = 0.0", True),
        ("self.kept.T", "self.kept += 1.0", True),
        ("self.kept[:, :2].detach().t().t()[:, :2].T.T", "self.kept.mul_(2.0)", True),
        ("self.kept.clone().detach()", "self.kept.add_(1.0)", False),
        ("self.kept.data", "self.kept.add_(1.0)", False),
        ("self.kept", "self.kept.data.add_(1.0)", False),
        ("self.kept", "self.kept = self.kept + 1.0", False),
    ],
)
def test_the_analysis_agrees_with_torch(saved: str, write: str, expected: bool):
    assert outcome(saved, write) == (expected, expected)
