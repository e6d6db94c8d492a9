"""What a framework runs before a training method (analysis/setup_methods.py): the one
method of the class that assigns an attribute the training method reads and `__init__`
does not, run after `__init__` (rlpyt's `optim_initialize()` before `optimize_agent()`).
Its optimizers own the `.parameters()` of objects reached through `self`'s unknown
attributes (`model = self.agent.model`), keyed by their access path from `self`, never by
the local name: a call `model.reward(x)` in another method is that submodule only when it
is reached the same way.

Each program is analysed as the class alone (the framework's user writes no driver) and
run by torch with a driver appended: an in-place crash must raise "modified by an inplace
operation" from the backward the finding names as failing; a clean program must run.
"""

from __future__ import annotations

import traceback

import pytest
from autograd_lint.analysis import Role, analyze

MODIFIED = "modified by an inplace operation"

ALGO = """
import torch
from torch import nn


class Algo:
    def __init__(self, lr=1e-3):
        self.lr = lr

    def optim_initialize(self):
        model = self.agent.model
        self.model_parameters = list(model.encoder.parameters()) + list(model.reward.parameters())
        self.model_optimizer = torch.optim.Adam(self.model_parameters, lr=self.lr)
        self.actor_optimizer = torch.optim.Adam(model.actor.parameters(), lr=self.lr)

    def optimize(self, batches):
        for observation, reward in batches:
            model_loss, actor_loss = self.loss(observation, reward)
            self.model_optimizer.zero_grad()
            model_loss.backward()
            self.model_optimizer.step()
            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            self.actor_optimizer.step()

    def loss(self, observation, reward):
        model = self.agent.model
        feature = model.encoder(observation)
        model_loss = (model.reward(feature) - reward).pow(2).mean()
        imagined = torch.tanh(model.actor(feature.detach()))
        actor_loss = -model.reward(imagined).mean()
        return model_loss, actor_loss
"""

DRIVER = """
from types import SimpleNamespace


class WorldModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder, self.reward, self.actor = nn.Linear(4, 8), nn.Linear(8, 1), nn.Linear(8, 8)


torch.manual_seed(0)
algo = Algo()
algo.agent = SimpleNamespace(model=WorldModel(), other=WorldModel())
algo.critic_agent = SimpleNamespace(model=WorldModel())
{setup}
algo.optimize([(torch.randn(5, 4), torch.randn(5, 1)) for _ in range(2)])
"""

STEPS_AFTER_BACKWARDS = ALGO.replace(
    """            self.model_optimizer.zero_grad()
            model_loss.backward()
            self.model_optimizer.step()
            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            self.actor_optimizer.step()
""",
    """            self.model_optimizer.zero_grad()
            self.actor_optimizer.zero_grad()
            model_loss.backward()
            actor_loss.backward()
            self.model_optimizer.step()
            self.actor_optimizer.step()
""",
)

# Two methods assign the optimizers: which one the framework calls is not in the file, so
# neither is run ahead (with the second one, torch runs cleanly).
TWO_WRITERS = ALGO.replace(
    "    def optimize(self, batches):",
    """    def optim_initialize_actor_only(self):
        model = self.agent.model
        self.model_optimizer = torch.optim.Adam(model.encoder.parameters(), lr=self.lr)
        self.actor_optimizer = torch.optim.Adam(model.actor.parameters(), lr=self.lr)

    def optimize(self, batches):""",
)

# The loss reaches its model through another attribute of `self`, bound to the same local
# name: `model.reward` there is not the submodule the optimizer owns (torch runs it).
OTHER_OBJECT = ALGO.replace(
    """    def loss(self, observation, reward):
        model = self.agent.model""",
    """    def loss(self, observation, reward):
        model = self.critic_agent.model""",
)

PROGRAMS = {
    "setup-method-steps-before-pending-backward": (ALGO, "algo.optim_initialize()", (21, 23)),
    "backwards-before-steps": (STEPS_AFTER_BACKWARDS, "algo.optim_initialize()", None),
    "two-writers-not-run-ahead": (TWO_WRITERS, "algo.optim_initialize_actor_only()", None),
    "same-local-name-other-object": (OTHER_OBJECT, "algo.optim_initialize()", None),
}


def _torch_outcome(text: str) -> tuple[str, int] | None:
    code = compile(text, "<program>", "exec")
    try:
        exec(code, {"__name__": "__program__"})
    except RuntimeError as error:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<program>"]
        return str(error), frames[-1].lineno
    return None


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_setup_method_verdict_matches_torch(name: str) -> None:
    snippet, setup, expected = PROGRAMS[name]
    errors = [f for f in analyze(snippet) if f.code in ("AG001", "AG002", "AG007")]
    outcome = _torch_outcome(snippet + DRIVER.format(setup=setup))
    if expected is None:
        assert errors == []
        assert outcome is None
        return
    step_line, fails_line = expected
    (finding,) = errors
    assert finding.code == "AG007" and finding.span.start.line == step_line
    assert [s.span.start.line for s in finding.steps(Role.FAILS)] == [fails_line]
    assert [s.span.start.line for s in finding.steps(Role.BUILT)] == [31]  # model.reward(imagined)
    assert outcome is not None and MODIFIED in outcome[0] and outcome[1] == fails_line


def test_setup_methods_picks_the_sole_writer_only() -> None:
    import ast

    from autograd_lint.analysis.definitions import make_class_info
    from autograd_lint.analysis.setup_methods import setup_methods

    def chosen(text: str) -> list[str]:
        tree = ast.parse(text)
        info = make_class_info(next(n for n in tree.body if isinstance(n, ast.ClassDef)), None)
        return [fn.node.name for fn in setup_methods(info, info.methods["optimize"])]

    assert chosen(ALGO) == ["optim_initialize"]
    assert chosen(TWO_WRITERS) == []
    # Called by the class itself: run where it is called, not ahead.
    called = ALGO.replace(
        "        for observation, reward in batches:",
        "        self.optim_initialize()\n        for observation, reward in batches:",
    )
    assert chosen(called) == []


def test_finding_says_where_the_optimizer_got_the_stepped_weights() -> None:
    (finding,) = [f for f in analyze(ALGO) if f.code == "AG007"]
    notes = [(s.span.start.line, s.message) for s in finding.steps(Role.NOTE)]
    # The setup method's `model.reward.parameters()` (line 12), then the step (line 21).
    assert notes[0][0] == 12 and "`model.reward.parameters()` reach the optimizer" in notes[0][1]
    assert notes[-1][0] == 21


def test_no_ownership_step_when_two_optimizers_took_the_parameters() -> None:
    # The reward head's parameters go to a second optimizer too: which one reached the
    # stepped optimizer is not said (the crash is reported all the same).
    text = ALGO.replace(
        "        self.actor_optimizer = torch.optim.Adam(model.actor.parameters(), lr=self.lr)",
        "        self.actor_optimizer = torch.optim.Adam(\n"
        "            list(model.actor.parameters()) + list(model.reward.parameters()), lr=self.lr\n"
        "        )",
    )
    (finding,) = [f for f in analyze(text) if f.code == "AG007"]
    assert [s.message for s in finding.steps(Role.NOTE) if "reach the optimizer" in s.message] == []
