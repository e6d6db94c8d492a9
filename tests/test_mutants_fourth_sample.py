"""Tests for the survivors of issue 19's fourth mutation sample (docs/mutation.md): the modules
added since the third (branches, loops, containers, name_fallback, interp), drawn at 73ca501.

Each test names the mutant it kills (`module.function` and mutmut's number at that commit)
and says what the mutant broke. Every program is run with torch (the warm interpreter of
tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze
from test_mutants import codes_and_lines
from torch_labels import FREED_ERROR, assert_behaves_as_labelled

# containers._appends_once 25 (`changes = ...` instead of `changes += ...`) and 36 (`!=`):
# the loop that appends each peer's output once, as a statement of its own, was no longer
# recognised when it also appends to another list (25: only the last growing call counted)
# or assigns any other name (36). The outputs were then one value, and peer j's backward
# "freed" peer i's output: a false AG001 (rebuilt from chxy95/Deep-Mutual-Learning issue 5,
# as tests/corpus/clean_peer_outputs_indexed_by_loop.py, with an intermediate name and a log).
PEERS_WITH_A_SECOND_LIST = """import torch
import torch.nn.functional as F

torch.manual_seed(0)
peers = [torch.nn.Linear(4, 3) for _ in range(3)]
optimizers = [torch.optim.SGD(p.parameters(), lr=0.1) for p in peers]
for step in range(3):
    x = torch.randn(5, 4)
    labels = torch.randint(0, 3, (5,))
    logits, norms = [], []
    for net in peers:
        out = net(x)
        logits.append(out)
        norms.append(out.detach().norm())
    for i in range(len(peers)):
        loss = F.cross_entropy(logits[i], labels)
        for j in range(len(peers)):
            if j != i:
                loss = loss + F.mse_loss(logits[i], logits[j].detach())
        optimizers[i].zero_grad()
        loss.backward()
        optimizers[i].step()
"""


def test_peer_outputs_appended_beside_another_list_stay_per_peer():
    assert analyze(PEERS_WITH_A_SECOND_LIST, "f.py") == []


# loops.LoopMixin.run_loop 40 (`self.state is None`): a loop's `else:` block was run only
# when no path reached the loop's end, so never; the second backward in it went unseen.
BACKWARD_AGAIN_IN_THE_ELSE = """import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
for attempt in range(3):
    loss = torch.tanh(w).pow(2).sum()
    loss.backward()
    if w.grad.norm() > 100:
        break
else:
    loss.backward()
"""


def test_a_second_backward_in_a_loops_else_block():
    assert codes_and_lines(analyze(BACKWARD_AGAIN_IN_THE_ELSE, "f.py")) == [("AG002", 11)]


# loops.LoopMixin.do_Continue 2 (`loops[+1]`): no static test had a `continue` (mutmut: "no
# tests"); the mutant raises IndexError in a loop that is not nested, and the carried state's
# AG001 of the whole root was lost.
CARRIED_WITH_A_CONTINUE = """import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
hidden = torch.zeros(3)
for step in range(4):
    hidden = torch.tanh(hidden + w)
    hidden.sum().backward()
    if step % 2:
        continue
    w.grad = None
"""


def test_state_carried_past_a_continue():
    assert codes_and_lines(analyze(CARRIED_WITH_A_CONTINUE, "f.py")) == [("AG001", 8)]


# branches.condition_key 1 (an attribute's owner keyed as None): `opts.text.frozen` and
# `opts.unet.frozen` became one stable condition (the names they read, `opts`, are the same),
# so the loop's `if` took the branch the first `if` took, whose embedding has no history:
# the graph built once before the loop and back-propagated in every step went unreported.
TWO_FLAGS_OF_ONE_OPTIONS_OBJECT = """import torch


def main(opts):
    torch.manual_seed(0)
    text_encoder = torch.nn.Linear(4, 4)
    unet = torch.nn.Linear(4, 1)
    ids = torch.randn(2, 4)
    prompt_embeds = text_encoder(ids)
    if opts.text.frozen:
        with torch.no_grad():
            prompt_embeds = text_encoder(ids)
    for step in range(3):
        if opts.unet.frozen:
            model_pred = unet(prompt_embeds.tanh())
        else:
            prompt_embeds = text_encoder(ids)
            model_pred = unet(prompt_embeds.tanh())
        model_pred.pow(2).mean().backward()
"""
# A trained text encoder and a frozen UNet: the embedding before the loop keeps its graph.
RUN_WITH_TWO_FLAGS = """
from types import SimpleNamespace

main(SimpleNamespace(text=SimpleNamespace(frozen=False), unet=SimpleNamespace(frozen=True)))
"""


def test_flags_of_two_attributes_of_one_object_are_two_conditions():
    assert codes_and_lines(analyze(TWO_FLAGS_OF_ONE_OPTIONS_OBJECT, "f.py")) == [("AG001", 19)]


UNDER_TORCH = {
    "peers with a second list": (PEERS_WITH_A_SECOND_LIST, None),
    "backward again in the else": (BACKWARD_AGAIN_IN_THE_ELSE, (FREED_ERROR, 11)),
    "carried with a continue": (CARRIED_WITH_A_CONTINUE, (FREED_ERROR, 8)),
    "two flags of one options object": (
        TWO_FLAGS_OF_ONE_OPTIONS_OBJECT + RUN_WITH_TWO_FLAGS,
        (FREED_ERROR, 19),
    ),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)
