"""What a value is, from evidence (analysis/roles.py): the shapes of real training scripts
that name-based guessing got wrong, reduced and run with torch (issue 12).

Each program is run, and the analysis must agree with what happened: a program that runs
gets no AG001/AG002/AG007, one that raises gets the finding at the line that raises. The
correct ones are reductions of scripts from the training corpus of
bench/training_scripts.py (cited per case); the crashing ones keep their names neutral, so
nothing but evidence can find them.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze

ERRORS = ("AG001", "AG002", "AG007")

GRADIENT_PENALTY = """
import torch

G, D = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
fake = G(torch.randn(4, 2))
real = torch.randn(4, 2)
for _ in range(2):
    alpha = torch.rand(4, 1)
    mixed = alpha * real + (1 - alpha) * {fake}
    mixed.requires_grad_(True)
    scores = torch.tanh(D(mixed))
    grads = torch.autograd.grad(scores, mixed, torch.ones_like(scores), create_graph=True)[0]
    loss = D(fake.detach()).mean() + ((grads.norm(2, dim=1) - 1) ** 2).mean()
    opt_d.zero_grad()
    loss.backward()
    opt_d.step()
"""

PROGRAMS = {
    # A model parameter called `lm`, in a function analysed alone: being called in the
    # loop with its result back-propagated makes it a module; the carried state is AG001.
    "neutrally-named-rnn-parameter": (
        """
import torch

def fit(lm, batches, upd):
    state = None
    for x, y in batches:
        out, state = lm(x, state)
        loss = ((out - y) ** 2).mean()
        upd.zero_grad()
        loss.backward()
        upd.step()

# Called the way another file would call it: the analysis sees `fit` alone.
net = torch.nn.GRU(3, 4, batch_first=True)
globals()["fit"](net, [(torch.randn(2, 5, 3), torch.randn(2, 5, 4)) for _ in range(3)],
                 torch.optim.SGD(net.parameters(), lr=0.1))
""",
        ("AG001", 10),
    ),
    # diffusers dreambooth_lora_sdxl: prompt embeddings computed once without grad, and
    # recomputed with grad only when the text encoder trains; a stable flag takes the
    # same branch in every iteration.
    "stable-flag-branches": (
        """
import torch

class Args:
    train_text_encoder = False

args = Args()
encoder, unet = torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)
opt = torch.optim.SGD(unet.parameters(), lr=0.1)
with torch.no_grad():
    embeds = encoder(torch.randn(2, 3))
for step in range(3):
    if not args.train_text_encoder:
        cond = embeds * 1.0
    else:
        embeds = encoder(torch.randn(2, 3))
        cond = embeds
    loss = unet(cond).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
""",
        None,
    ),
    # The same flag tested twice in one iteration (dreambooth's prior-preservation loss).
    "flag-tested-twice": (
        """
import torch

class Args:
    with_prior = False

args = Args()
net = torch.nn.Linear(3, 1)
for step in range(3):
    pred = net(torch.randn(4, 3))
    if args.with_prior:
        prior = pred[2:].pow(2).mean()
    loss = pred.pow(2).mean()
    if args.with_prior:
        loss = loss + prior
    loss.backward()
""",
        None,
    ),
    # Frozen with requires_grad_(False): its output computed once before the loop has no
    # graph (udacity style transfer: a frozen feature extractor).
    "frozen-module-before-loop": (
        """
import torch

features = torch.nn.Linear(3, 3).requires_grad_(False)
target = torch.rand(1, 3).clone().requires_grad_(True).to("cpu")
content = features(torch.rand(1, 3))
opt = torch.optim.Adam([target], lr=0.01)
for i in range(3):
    loss = ((features(target) - content) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        None,
    ),
    # The same loop with the extractor trainable: its output before the loop is a graph,
    # freed by the first backward.
    "trainable-module-before-loop": (
        """
import torch

features = torch.nn.Linear(3, 3)
target = torch.rand(1, 3, requires_grad=True)
content = features(torch.rand(1, 3))
opt = torch.optim.Adam([target], lr=0.01)
for i in range(3):
    loss = ((features(target) - content) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        ("AG001", 11),
    ),
    # A schedule evaluated once before the epochs (stable-baselines3's clip_range): a
    # callable whose result the loss reads is no forward pass when it is not called per step.
    "schedule-called-once": (
        """
import torch

class Trainer:
    def __init__(self):
        self.policy = torch.nn.Linear(3, 1)
        self.clip_range = lambda progress: 0.2 * progress
        self.opt = torch.optim.SGD(self.policy.parameters(), lr=0.1)

    def train(self):
        clip = self.clip_range(1.0)
        for epoch in range(3):
            ratio = self.policy(torch.randn(4, 3)).exp()
            loss = -torch.clamp(ratio, 1 - clip, 1 + clip).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

Trainer().train()
""",
        None,
    ),
    # accelerate's fp8 benchmarks: a grad scaler from a factory, made once before the
    # training loop of a function that an outer loop calls once per configuration; its
    # `scale(loss)` in the loop says nothing of the factory.
    "factory-before-the-loop-of-a-function-called-per-configuration": (
        """
import torch

class Scaler:
    def scale(self, t):
        return t * 2.0

def train(make_scaler, lr):
    net = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    scaler = make_scaler()
    for step in range(3):
        loss = scaler.scale(net(torch.randn(4, 3)).pow(2).mean())
        opt.zero_grad()
        loss.backward()
        opt.step()

for lr in (0.1, 0.01):
    train(lambda: Scaler(), lr)
""",
        None,
    ),
    # A recurrent state cut in place element by element (d2l's RNN from scratch).
    "state-detached-in-place": (
        """
import torch

cell = torch.nn.LSTMCell(3, 4)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
state = (torch.zeros(2, 4), torch.zeros(2, 4))
for step in range(3):
    for s in state:
        s.detach_()
    state = cell(torch.randn(2, 3), state)
    loss = state[0].pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        None,
    ),
    # accelerate's prepare hands the model and optimizer back; the accelerator's
    # clip_grad_norm_ is no in-place tensor op (diffusers' LoRA training loop).
    "accelerate-prepare-and-clip": (
        """
import torch
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
unet = torch.nn.Linear(4, 4)
unet.requires_grad_(False)
unet.bias.requires_grad_(True)
params = list(filter(lambda p: p.requires_grad, unet.parameters()))
optimizer = torch.optim.AdamW(params, lr=1e-3)
loader = torch.utils.data.DataLoader(torch.randn(8, 4), batch_size=4)
unet, optimizer, loader = accelerator.prepare(unet, optimizer, loader)
for epoch in range(2):
    for batch in loader:
        loss = (unet(batch) - batch).pow(2).mean()
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(params, 1.0)
        optimizer.step()
        optimizer.zero_grad()
""",
        None,
    ),
    # The prepared model's forward output carried to the next batch is still a crash.
    "accelerate-prepare-carried-output": (
        """
import torch
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
net = torch.nn.Linear(4, 4)
optimizer = torch.optim.SGD(net.parameters(), lr=1e-3)
net, optimizer = accelerator.prepare(net, optimizer)
memory = torch.zeros(2, 4)
for step in range(3):
    memory = net(torch.randn(2, 4)) + memory
    loss = memory.pow(2).mean()
    accelerator.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
""",
        ("AG001", 13),
    ),
    # pix2pix turned WGAN-GP (a real-world case): the gradient penalty interpolates with
    # the generator's output, `requires_grad_(True)` keeps its history, and the gradients
    # of `autograd.grad(create_graph=True)` reach it, so the critic's second backward
    # goes through the generator's freed graph.
    "gradient-penalty-through-a-hoisted-fake": (
        GRADIENT_PENALTY.format(fake="fake"),
        ("AG001", 16),
    ),
    "gradient-penalty-through-a-detached-fake": (
        GRADIENT_PENALTY.format(fake="fake.detach()"),
        None,
    ),
}


def run(source: str) -> tuple[str, int] | None:
    """The RuntimeError the program raises and the line it raises at, or None."""
    import traceback

    import torch

    torch.manual_seed(0)
    try:
        exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})  # noqa: S102
    except RuntimeError as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<program>"]
        return str(exc), frames[-1].lineno
    return None


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_analysis_agrees_with_torch(name: str) -> None:
    source, expected = PROGRAMS[name]
    outcome = run(source)
    found = [(f.code, f.span.start.line) for f in analyze(source) if f.code in ERRORS]
    if expected is None:
        assert outcome is None, outcome
        assert found == []
    else:
        assert outcome is not None and outcome[1] == expected[1], outcome
        assert found == [expected]


UNKNOWN_CALL_ONLY = """
import torch
from functools import reduce

w = torch.randn(3, requires_grad=True)
x = reduce(lambda a, b: a + b, [w, w])
feat = x[:2] * 1.0
for i in range(2):
    loss = (feat * torch.randn(2)).sum()
    loss.backward()
"""


def test_no_error_rests_on_an_unknown_call_alone():
    """A deliberate silence (the guide's third lesson): the only graph before the loop is
    what an unknown call (`reduce`, seen by the analysis as a library function it cannot
    read) would pass on, so the tensor ops over it are as unsure as that call, and no error
    may rest on them. Here torch shows the call does pass it on (the program raises):
    the silence is the price of no guessing. On real code it is what keeps udacity's style
    transfer quiet, whose image comes through torchvision's transforms with no history."""
    outcome = run(UNKNOWN_CALL_ONLY)
    assert outcome is not None and outcome[1] == 10
    assert [f for f in analyze(UNKNOWN_CALL_ONLY) if f.code in ERRORS] == []
    # The same program with the leaf's graph built by a seen op is reported.
    seen = UNKNOWN_CALL_ONLY.replace("reduce(lambda a, b: a + b, [w, w])", "w + w")
    assert [(f.code, f.span.start.line) for f in analyze(seen) if f.code in ERRORS] == [
        ("AG001", 10)
    ]
