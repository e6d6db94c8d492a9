"""The AG002-AG007 rewrites on shapes the samples do not have, and the claims they rest on.

Each program below is checked three ways: the preferred fix of each finding changes the
lines it should (and a shape with no sure rewrite gets none); the fixed program has no
finding of that rule left; and it runs under torch (fix_runner.py, one process) without
raising, every optimizer moving its parameters. The AG007 out-of-place table is checked
against torch op by op.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.fixes import fix_all, fixes_for
from autograd_lint.fixes.inplace import OUT_OF_PLACE

RUNNER = Path(__file__).with_name("fix_runner.py")

HEAD = """\
import torch

torch.manual_seed(0)  # "trains" must not hang on the draw: relu can zero every gradient
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
"""

# name -> (program, {line text before: line text after} of the preferred fixes).
SHAPES = {
    "running-total-item-and-dict": (
        HEAD
        + """\
total = 0.0
history = {}
for step in range(3):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss
    history[step] = loss
print(f"mean {total / 3:.3f}", len(history))
""",
        {
            "    total += loss\n": "    total += loss.item()\n",
            "    history[step] = loss\n": "    history[step] = loss.detach()\n",
        },
    ),
    "other-optimizer-add": (
        """\
import torch

gen, disc = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
for step in range(4):
    fake = gen(torch.randn(4, 2))
    opt_g.zero_grad()
    d_loss = disc(fake.detach()).mean()
    d_loss.backward()
    opt_d.step()
    g_loss = -disc(fake).mean()
    g_loss.backward()
    opt_g.step()
""",
        {"    opt_g.zero_grad()\n": "    opt_g.zero_grad()\n    opt_d.zero_grad()\n"},
    ),
    "data-writes": (
        HEAD
        + """\
for step in range(3):
    opt.zero_grad()
    model(torch.randn(4, 3)).pow(2).mean().backward()
    opt.step()
    model.weight.data[0, 0] = 0.5
    model.bias.data += 0.01
""",
        {
            "    model.weight.data[0, 0] = 0.5\n": (
                "    with torch.no_grad():\n        model.weight[0, 0] = 0.5\n"
            ),
            "    model.bias.data += 0.01\n": "    with torch.no_grad():\n        model.bias += 0.01\n",
        },
    ),
    "inplace-augmented": (
        HEAD
        + """\
for step in range(3):
    opt.zero_grad()
    probs = torch.sigmoid(model(torch.randn(4, 3)))
    probs += 1e-3 * step
    loss = -probs.log().mean()
    loss.backward()
    opt.step()
""",
        {"    probs += 1e-3 * step\n": "    probs = probs + (1e-3 * step)\n"},
    ),
    "retain-carried": (
        """\
import torch

cell = torch.nn.RNNCell(3, 4)
hidden = torch.zeros(2, 4)
for step in range(3):
    hidden = cell(torch.randn(2, 3), hidden)
    loss = hidden.pow(2).sum()
    loss.backward(retain_graph=True)
""",
        {
            "    hidden = cell(torch.randn(2, 3), hidden)\n": (
                "    hidden = hidden.detach()\n    hidden = cell(torch.randn(2, 3), hidden)\n"
            ),
            "    loss.backward(retain_graph=True)\n": "    loss.backward()\n",
        },
    ),
    "retain-carried-stepped": (
        """\
import torch

cell = torch.nn.RNNCell(3, 4)
opt = torch.optim.SGD(cell.parameters(), lr=0.01)
hidden = torch.zeros(2, 4)
for step in range(3):
    hidden = cell(torch.randn(2, 3), hidden)
    loss = hidden.pow(2).sum()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
""",
        {
            "    hidden = cell(torch.randn(2, 3), hidden)\n": (
                "    hidden = hidden.detach()\n    hidden = cell(torch.randn(2, 3), hidden)\n"
            ),
            "    loss.backward(retain_graph=True)\n": "    loss.backward()\n",
        },
    ),
    "inplace-keyword": (
        HEAD
        + """\
for step in range(3):
    opt.zero_grad()
    h = torch.tanh(model(torch.randn(4, 3)))
    out = torch.nn.functional.relu(h, inplace=True)
    out.sum().backward()
    opt.step()
""",
        {
            "    out = torch.nn.functional.relu(h, inplace=True)\n": (
                "    out = torch.nn.functional.relu(h, inplace=False)\n"
            )
        },
    ),
    "step-between-two-passes": (
        """\
import torch

# Two layers: the second saves its weight for the gradient of its (graph-carrying) input.
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
head = torch.nn.Linear(1, 2)
opt = torch.optim.Adam([*model.parameters(), *head.parameters()], lr=0.1)
for step in range(3):
    feat = torch.tanh(model(torch.randn(5, 3)))
    logits = head(feat)
    opt.zero_grad()
    logits.sum().backward(retain_graph=True)
    opt.step()
    feat.pow(2).mean().backward()
""",
        {
            "    opt.step()\n    feat.pow(2).mean().backward()\n": (
                "    feat.pow(2).mean().backward()\n    opt.step()\n"
            )
        },
    ),
}

# A WGAN-GP critic loop without retain_graph (the shape of
# tests/realworld/cases/gan_wgangp_retain_last_fake.py before its retain_graph=True): the
# generator's backward after the loop reaches the last critic iteration's `fake`, whose
# graph the critic's backward freed. Detaching `fake` in `critic(fake)` alone leaves the
# penalty's path to it, and detaching it in the penalty too breaks the penalty's
# autograd.grad (torch: "One of the differentiated Tensors does not require grad"): the
# detach is not offered; keeping the graph on the critic's backward is, and runs.
SHAPES["wgan-gp-penalty-shares-fake"] = (
    """\
import torch

gen, critic = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.01)
opt_c = torch.optim.SGD(critic.parameters(), lr=0.01)


def gradient_penalty(critic, real, fake):
    eps = torch.rand(real.shape[0], 1)
    mixed = real * eps + fake * (1 - eps)
    scores = critic(mixed)
    (grad,) = torch.autograd.grad(scores, mixed, torch.ones_like(scores), create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


for step in range(2):
    real = torch.randn(4, 2)
    for _ in range(3):
        fake = gen(torch.randn(4, 2))
        gp = gradient_penalty(critic, real, fake)
        loss_critic = critic(fake).mean() - critic(real).mean() + 10 * gp
        opt_c.zero_grad()
        loss_critic.backward()
        opt_c.step()
    loss_gen = -critic(fake).mean()
    opt_g.zero_grad()
    loss_gen.backward()
    opt_g.step()
""",
    {"        loss_critic.backward()\n": "        loss_critic.backward(retain_graph=True)\n"},
)

# A WGAN-GP critic loop (after tests/realworld/cases/gan_wgangp_retain_last_fake.py): the
# critic's last retain_graph=True keeps `fake`'s generator graph for the generator's loss
# after the loop. The analysis calls it needless (AG004); dropping it raises (tested below).
CRITIC_LOOP = """\
import torch

gen, critic = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.01)
opt_c = torch.optim.SGD(critic.parameters(), lr=0.01)
for step in range(2):
    for _ in range(3):
        fake = gen(torch.randn(4, 2))
        loss_critic = critic(fake).mean() - critic(torch.randn(4, 2)).mean()
        opt_c.zero_grad()
        loss_critic.backward(retain_graph=True)
        opt_c.step()
    loss_gen = -critic(fake).mean()
    opt_g.zero_grad()
    loss_gen.backward()
    opt_g.step()
"""

# Shapes whose finding has no rewrite that is sure to be right.
NO_REWRITE = {
    # Which parts of the tuple are tensors is not known from the syntax.
    "tuple-collected": (
        HEAD
        + """\
pairs = []
for step in range(3):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    pairs.append((step, loss))
""",
        "AG003",
    ),
}


@pytest.mark.parametrize("name", SHAPES)
def test_preferred_fixes_rewrite_exactly_these_lines(name):
    source, expected = SHAPES[name]
    fixed, applied, remaining = fix_all(source)
    assert applied, "no fix applied"
    # An inserted line is written with the line it goes above.
    wanted = source
    for before, after in expected.items():
        assert wanted.count(before) == 1
        wanted = wanted.replace(before, after)
    assert fixed == wanted
    codes = {f.code for f in applied}
    assert not [f for f in remaining if f.code in codes]


@pytest.mark.parametrize("name", NO_REWRITE)
def test_no_rewrite_where_none_is_sure(name):
    source, code = NO_REWRITE[name]
    findings = [f for f in analyze(source, "<shape>") if f.code == code]
    assert findings, "the shape must still be reported"
    for finding in findings:
        assert [f.strategy for f in fixes_for(source, finding)] == ["ignore"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, torch_python) -> dict[tuple[str, str], dict]:
    """(shape, "fixed" or "original") -> its run's report; all in one runner process."""
    directory = tmp_path_factory.mktemp("shapes")
    paths = {}
    for name, (source, _) in SHAPES.items():
        for version, text in (("fixed", fix_all(source)[0]), ("original", source)):
            path = directory / f"{name.replace('-', '_')}_{version}.py"
            path.write_text(text)
            paths[str(path)] = (name, version)
    result = subprocess.run(
        [torch_python, str(RUNNER), *paths],
        capture_output=True,
        text=True,
        timeout=900,
    )
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    return {paths[r["program"]]: r for r in reports}


# The shapes torch raises on as written. (retain-carried-stepped is reported as an AG004
# warning, not the AG007 error it is: an RNNCell whose state starts without history saves
# its weights only from the second iteration on, one more than the analysis's two passes.)
RAISING = {
    "inplace-augmented": "modified by an inplace operation",
    "retain-carried-stepped": "modified by an inplace operation",
    "inplace-keyword": "modified by an inplace operation",
    "step-between-two-passes": "modified by an inplace operation",
    "wgan-gp-penalty-shares-fake": "Trying to backward through the graph a second time",
}


@pytest.mark.parametrize("name", SHAPES)
def test_unfixed_shape_fails_only_when_its_finding_says_so(name, runs):
    report = runs[(name, "original")]
    if name in RAISING:
        assert RAISING[name] in (report["error"] or ""), report
    else:
        assert report["error"] is None, report  # a warning's shape runs; it wastes memory


@pytest.mark.parametrize("name", SHAPES)
def test_fixed_shape_runs_and_trains(name, runs):
    report = runs[(name, "fixed")]
    assert report["error"] is None, report
    # The carried-retain shape has no optimizer (with one, it is AG007, tested below).
    assert report["optimizers"] or name == "retain-carried", report
    for optimizer in report["optimizers"]:
        assert optimizer["changed"] is True, report


def test_the_critic_loops_retain_graph_is_needed(tmp_path, torch_python):
    # Ground truth for "retain-before-a-later-backward": as written it runs; without the
    # keyword the generator's backward raises.
    paths = []
    for name, text in (
        ("as_written", CRITIC_LOOP),
        ("dropped", CRITIC_LOOP.replace("backward(retain_graph=True)", "backward()")),
    ):
        paths.append(tmp_path / f"{name}.py")
        paths[-1].write_text(text)
    result = subprocess.run(
        [torch_python, str(RUNNER), *map(str, paths)], capture_output=True, text=True, timeout=300
    )
    as_written, dropped = (json.loads(line) for line in result.stdout.splitlines())
    assert as_written["error"] is None
    assert "backward through the graph a second time" in dropped["error"]


def test_the_critic_loops_needed_retain_graph_is_not_reported():
    # The ground truth above: the generator's backward after the critic loop needs the
    # last critic iteration's retained graph, so no AG004 may call it needless (it is
    # decided at the end of the analysed function, not when the inner loop ends).
    assert [f for f in analyze(CRITIC_LOOP, "critic.py") if f.code == "AG004"] == []


# Arguments for each in-place method and its twin, on a (3, 4) float tensor.
def _arguments(torch, method: str) -> tuple:
    other = torch.rand(3, 4) + 0.5
    mask = torch.rand(3, 4) > 0.5
    index = torch.tensor([0, 2])
    return {
        "add_": (other,), "sub_": (other,), "mul_": (other,), "div_": (other,),
        "pow_": (2.0,), "clamp_": (0.6, 1.2), "clip_": (0.6, 1.2), "clamp_min_": (0.7,),
        "clamp_max_": (0.9,), "addcdiv_": (other, other + 1), "addcmul_": (other, other),
        "masked_fill_": (mask, 0.0), "masked_scatter_": (mask, other),
        "index_add_": (0, index, torch.rand(2, 4)), "index_fill_": (1, index, -1.0),
        "scatter_": (0, torch.zeros(1, 4, dtype=torch.long), other),
        "scatter_add_": (0, torch.zeros(1, 4, dtype=torch.long), other),
        "nan_to_num_": (0.0,), "tril_": (0,), "triu_": (1,),
    }.get(method, ())  # fmt: skip


@pytest.mark.parametrize("method", sorted(OUT_OF_PLACE))
def test_out_of_place_twin_gives_what_the_inplace_op_leaves(method):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    base = torch.randn(3, 4)
    arguments = _arguments(torch, method)
    changed = base.clone()
    returned = getattr(changed, method)(*arguments)
    twin = getattr(base.clone(), method[:-1])(*arguments)
    assert returned is changed
    assert torch.allclose(twin, changed, rtol=0, atol=0, equal_nan=True)


def test_the_gan_fix_runs_the_forward_again_after_the_step():
    source = Path(__file__).resolve().parents[2] / "samples" / "ag007_gan_shared_output_buggy.py"
    text = source.read_text()
    (finding,) = [f for f in analyze(text, str(source)) if f.code == "AG007"]
    best = next(f for f in fixes_for(text, finding) if f.preferred)
    assert best.strategy == "forward-again-after-step"
    assert [e.new_text for e in best.edits] == ["    d_fake = discriminator(fake)\n"]
