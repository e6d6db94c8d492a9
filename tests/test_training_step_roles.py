"""A method that clears and steps an optimizer is a training step (analysis/roles.py,
`ScopeEvidence.steps_an_optimizer`): its caller — a trainer, an RL framework's loop —
runs it once per batch, so an object it holds (`self.critic`) that it calls, and whose
result reaches a backward, is a module, as a callable called inside a loop is (a function
it imports is not: its result may be plain data). The step's modules come from its constructor or
from a library base class, and nothing in the file calls the step by name (OfflineRL-Kit's
CQL `learn`, tianshou's and rlpyt's algorithms).

Each program is analysed as the class alone (what the framework's user writes) and run
by torch with a driver appended: a crash must raise at the line the finding names; a
clean program must run.
"""

from __future__ import annotations

import traceback

import pytest
from autograd_lint.analysis import analyze

FREED = "Trying to backward through the graph a second time"

STEP_CLASS = """
import torch
from torch import nn


class TwoHeadStep:
    def __init__(self, encoder, head_a, head_b, opt_a, opt_b):
        self.encoder = encoder
        self.head_a, self.head_b = head_a, head_b
        self.opt_a, self.opt_b = opt_a, opt_b

    def update(self, inputs, target):
        features = self.encoder(inputs)
        loss_a = (self.head_a(features) - target).pow(2).mean()
        loss_b = (self.head_b(features) - target).pow(2).mean()
        self.opt_a.zero_grad()
        loss_a.backward()
        self.opt_a.step()
        self.opt_b.zero_grad()
        loss_b.backward()
        self.opt_b.step()
"""

SUMMED = STEP_CLASS.replace(
    """        self.opt_a.zero_grad()
        loss_a.backward()
        self.opt_a.step()
        self.opt_b.zero_grad()
        loss_b.backward()
        self.opt_b.step()
""",
    """        self.opt_a.zero_grad()
        self.opt_b.zero_grad()
        (loss_a + loss_b).backward()
        self.opt_a.step()
        self.opt_b.step()
""",
)

STEP_DRIVER = """
torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
left, right = nn.Linear(8, 1), nn.Linear(8, 1)
step = TwoHeadStep(
    trunk, left, right,
    torch.optim.SGD([*trunk.parameters(), *left.parameters()], lr=0.1),
    torch.optim.SGD(right.parameters(), lr=0.1),
)
for _ in range(2):
    step.update(torch.randn(16, 4), torch.randn(16, 1))
"""

# A function with a loop of its own is judged by its loops: a setting computed once
# before them (`scale = schedule(0)`) is no module, even though it reaches the backward.
OWN_LOOP = """
import torch


def train(model, schedule, opt, batches):
    scale = schedule(0)
    for x in batches:
        loss = model(x).pow(2).mean() * scale
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

OWN_LOOP_DRIVER = """
net = torch.nn.Linear(3, 1)
train(net, lambda step: 0.5, torch.optim.SGD(net.parameters(), lr=0.1),
      [torch.randn(4, 3) for _ in range(3)])
"""

# The same shape without any optimizer: nothing says the method is run per batch, and a
# callable it calls once is no module by its use alone (the precision of roles.py).
NO_STEP = """
import torch


class Scorer:
    def __init__(self, encoder, head_a, head_b):
        self.encoder, self.head_a, self.head_b = encoder, head_a, head_b

    def score(self, inputs):
        features = self.encoder(inputs)
        self.head_a(features).sum().backward()
        self.head_b(features).sum().backward()
"""

NO_STEP_DRIVER = """
encoder = lambda x: x * 2.0
head = lambda f: f * torch.ones(3, requires_grad=True)
Scorer(encoder, head, head).score(torch.randn(2, 3))
"""

# A training step without an object of its own: the function it imports is no module by
# being called there (it may well make plain data, as here), so `obs` is no shared graph.
IMPORTED_FUNCTION = """
import torch
from mylib.data import preprocess


def update(batch, actor, critic, actor_opt, critic_opt):
    obs = preprocess(batch)
    critic_loss = critic(obs).pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    actor_loss = -critic(actor(obs)).mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
"""

IMPORTED_FUNCTION_DRIVER = """
actor, critic = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)
update(torch.randn(4, 3), actor, critic, torch.optim.SGD(actor.parameters(), lr=0.1),
       torch.optim.SGD(critic.parameters(), lr=0.1))
"""

PROGRAMS = {
    "step-shared-encoder": (STEP_CLASS, STEP_DRIVER, ("AG002", 20)),
    "step-summed-losses": (SUMMED, STEP_DRIVER, None),
    "own-loop-setting": (OWN_LOOP, OWN_LOOP_DRIVER, None),
    "no-step-plain-callables": (NO_STEP, NO_STEP_DRIVER, None),
    "imported-function-in-step": (IMPORTED_FUNCTION, IMPORTED_FUNCTION_DRIVER, None),
}


def _torch_outcome(text: str) -> tuple[str, int] | None:
    """(error message, line in `text`) when running it raises a RuntimeError, else None."""
    # The snippet's library function, as a plain one: it makes data.
    text = text.replace("from mylib.data import preprocess", "preprocess = torch.as_tensor")
    code = compile(text, "<program>", "exec")
    try:
        exec(code, {"__name__": "__program__"})
    except RuntimeError as error:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<program>"]
        return str(error), frames[-1].lineno
    return None


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_training_step_verdict_matches_torch(name: str) -> None:
    snippet, driver, expected = PROGRAMS[name]
    errors = [(f.code, f.span.start.line) for f in analyze(snippet) if f.code <= "AG002"]
    outcome = _torch_outcome(snippet + driver)
    if expected is None:
        assert errors == []
        assert outcome is None
    else:
        assert errors == [expected]
        assert outcome is not None and FREED in outcome[0]
        assert outcome[1] == expected[1]


def test_finding_names_the_module_call_and_both_backwards() -> None:
    (finding,) = [f for f in analyze(STEP_CLASS) if f.code == "AG002"]
    lines = [step.span.start.line for step in finding.evidence]
    assert lines[0] == 13  # `self.encoder(inputs)` builds the graph
    assert 17 in lines and lines[-1] == 20  # freed by loss_a's backward, fails at loss_b's
