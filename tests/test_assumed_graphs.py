"""A graph only assumed (an unknown call's result) is no graph for a rule to report on.

accelerate's test_checkpointing.py builds its optimizer through a class chosen at run
time (`optimizer_cls = AdamW if ... else DummyOptim`), then logs
`optimizer.param_groups[0]["lr"]` into a dict every epoch: a float, kept by torch as a
float. Taken for a tensor with history, it was an AG003 "collects autograd history".
"""

from __future__ import annotations

import subprocess

from autograd_lint.analysis import analyze

LOGS_LEARNING_RATE = """import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer_cls = torch.optim.AdamW if torch.cuda.is_available() else torch.optim.SGD
optimizer = optimizer_cls(params=model.parameters(), lr=0.1)
state = {}
for epoch in range(3):
    loss = model(torch.randn(4, 3)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    state["optimizer_lr"] = optimizer.param_groups[0]["lr"]
assert isinstance(state["optimizer_lr"], float), type(state["optimizer_lr"])
"""


def test_a_value_read_off_an_unknown_calls_result_is_not_accumulated_history():
    assert [f.code for f in analyze(LOGS_LEARNING_RATE, "train.py")] == []


def test_torch_keeps_a_float_there(torch_python):
    done = subprocess.run(
        [torch_python, "-c", LOGS_LEARNING_RATE], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()


def test_losses_an_unknown_criterion_returns_still_carry_the_models_history():
    # The model's graph is real; only the criterion is unknown: AG003 stays.
    source = LOGS_LEARNING_RATE.replace("state = {}", "history = []").replace(
        'state["optimizer_lr"] = optimizer.param_groups[0]["lr"]',
        "history.append(criterion(model(torch.randn(4, 3))))",
    )
    source = source[: source.index("assert isinstance")]
    assert "AG003" in [f.code for f in analyze(source, "train.py")]
