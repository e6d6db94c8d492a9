"""AG005-AG007 checkers on code snippets: what they flag, what they leave alone, and how.

Each snippet marks the lines that must be reported with `# expect: AG00x`; everything
else must stay quiet. The checkers are called directly through `run_checks` over the
engine's blocks, and through `analyze`, which must report the same.
"""

from __future__ import annotations

import textwrap

import pytest
from autograd_lint.analysis import Role, Severity, analyze
from autograd_lint.analysis.blocks import build_blocks, split_lines
from autograd_lint.analysis.checks import inplace as inplace_checker
from autograd_lint.analysis.checks import run_checks
from expectations import expected_marks

CODES = {"AG005", "AG006", "AG007"}


def check(source: str):
    source = textwrap.dedent(source)
    return run_checks(build_blocks(source, split_lines(source)), "snippet.py")


def assert_marks(source: str) -> list:
    source = textwrap.dedent(source)
    found = check(source)
    expected = expected_marks(source)
    assert sorted((f.span.start.line, f.code) for f in found) == expected
    via_analyze = [f for f in analyze(source, "snippet.py") if f.code in CODES]
    assert sorted((f.span.start.line, f.code) for f in via_analyze) == expected
    for finding in found:
        roles = [step.role for step in finding.evidence]
        assert roles[0] is Role.BUILT and roles[-1] is Role.FAILS, roles
        assert finding.path == "snippet.py"
    return found


# -- AG005 -------------------------------------------------------------------------------
AG005_FLAGGED = {
    "never cleared inside a function": """
        import torch
        def train(model, loader):
            optimizer = torch.optim.Adam(model.parameters())
            for x, y in loader:
                loss = (model(x) - y).pow(2).mean()
                loss.backward()
                optimizer.step()  # expect: AG005
    """,
    "cleared only before the loop": """
        def fit(model, optimizer, loader):
            optimizer.zero_grad()
            for x, y in loader:
                model(x).sum().backward()
                optimizer.step()  # expect: AG005
    """,
    "cleared in the outer loop, stepped every batch": """
        def fit(model, optimizer, epochs, loader):
            for epoch in range(epochs):
                optimizer.zero_grad()
                for x in loader:
                    model(x).sum().backward()
                    optimizer.step()  # expect: AG005
    """,
    "gradients rescaled, not cleared": """
        def fit(model, optimizer, loader, accum):
            for x in loader:
                model(x).sum().backward()
                for p in model.parameters():
                    p.grad.mul_(1.0 / accum)
                optimizer.step()  # expect: AG005
    """,
    "AMP scaler step, never cleared": """
        def fit(model, optimizer, scaler, loader):
            for x in loader:
                scaler.scale(model(x).sum()).backward()
                scaler.step(optimizer)  # expect: AG005
                scaler.update()
    """,
    "zero_grad between backward and step, not in a loop": """
        def train_step(model, optimizer, batch):
            loss = model(batch).sum()
            loss.backward()
            optimizer.zero_grad(set_to_none=True)  # expect: AG005
            optimizer.step()
    """,
    "zero_grad between backward and step inside a with block": """
        import torch
        def fit(model, opt, loader):
            for x in loader:
                with torch.autocast("cpu"):
                    loss = model(x).sum()
                    loss.backward()
                    opt.zero_grad()  # expect: AG005
                opt.step()
    """,
    "wrong optimizer cleared on self attributes": """
        import torch
        class GAN:
            def __init__(self, g, d):
                self.opt_g = torch.optim.Adam(g.parameters())
                self.opt_d = torch.optim.Adam(d.parameters())
            def fit(self, loader):
                for real in loader:
                    self.opt_g.zero_grad()  # expect: AG005
                    self.d_loss(real).backward()
                    self.opt_d.step()
                    self.opt_g.zero_grad()
                    self.g_loss().backward()
                    self.opt_g.step()
    """,
}

AG005_QUIET = {
    "zero_grad at the end of the loop": """
        def fit(model, optimizer, loader):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
    """,
    "gradient accumulation": """
        def fit(model, optimizer, loader, accum):
            for i, x in enumerate(loader):
                (model(x).sum() / accum).backward()
                if (i + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """,
    "closure step (LBFGS)": """
        def fit(model, optimizer, x):
            for _ in range(5):
                def closure():
                    optimizer.zero_grad()
                    loss = model(x).sum()
                    loss.backward()
                    return loss
                optimizer.step(closure)
    """,
    "scheduler and environment steps are not optimizer steps": """
        def rollout(env, policy, optimizer, scheduler):
            for episode in range(3):
                obs = env.reset()
                for t in range(10):
                    obs, reward, done, info = env.step(policy(obs))
                optimizer.zero_grad()
                policy(obs).sum().backward()
                optimizer.step()
                scheduler.step()
    """,
    "gradients set to None by hand": """
        def fit(model, optimizer, loader):
            for x in loader:
                for p in model.parameters():
                    p.grad = None
                model(x).sum().backward()
                optimizer.step()
    """,
    "gradients zeroed in place": """
        def fit(model, optimizer, loader):
            for x in loader:
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.detach_()
                        p.grad.zero_()
                model(x).sum().backward()
                optimizer.step()
    """,
    "a helper of the file clears": """
        def reset(model):
            model.zero_grad()
        def fit(model, optimizer, loader):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                reset(model)
    """,
    "a method named like zero_grad clears": """
        class Trainer:
            def fit(self, loader):
                for x in loader:
                    self.model(x).sum().backward()
                    self.optimizer.step()
                    self.optimizer_zero_grad()
    """,
    "optimizers cleared through a loop variable": """
        import torch
        def fit(gen, disc, loader):
            opt_g = torch.optim.Adam(gen.parameters())
            opt_d = torch.optim.Adam(disc.parameters())
            for x in loader:
                for opt in (opt_g, opt_d):
                    opt.zero_grad()
                (gen(x).sum() + disc(x).sum()).backward()
                opt_d.step()
                opt_g.step()
    """,
    "a model's zero_grad between the generator's backward and step": """
        import torch
        def fit(netG, netD, loader):
            optG = torch.optim.Adam(netG.parameters())
            optD = torch.optim.Adam(netD.parameters())
            for x in loader:
                netD.zero_grad()
                netD(x).mean().backward()
                optD.step()
                netG.zero_grad()
                netD(netG(x)).mean().backward()
                netD.zero_grad()
                optG.step()
    """,
    "zero_grad between two backwards that feed one step": """
        def fit(model, optimizer, loader):
            for x in loader:
                model(x).sum().backward()
                optimizer.zero_grad()
                model(x).mean().backward()
                optimizer.step()
    """,
}


@pytest.mark.parametrize("source", AG005_FLAGGED.values(), ids=AG005_FLAGGED.keys())
def test_ag005_flags(source):
    for finding in assert_marks(source):
        assert finding.severity is Severity.WARNING


@pytest.mark.parametrize("source", AG005_QUIET.values(), ids=AG005_QUIET.keys())
def test_ag005_quiet(source):
    assert assert_marks(source) == []


def test_ag005_kinds_and_evidence():
    (never,) = check(AG005_FLAGGED["never cleared inside a function"])
    assert never.kind == "never-cleared" and "zero_grad()" in never.message
    assert [s.span.start.line for s in never.evidence] == [7, 8]
    (late,) = check(AG005_FLAGGED["zero_grad between backward and step, not in a loop"])
    assert late.kind == "cleared-before-step"
    assert [s.role for s in late.evidence] == [Role.BUILT, Role.NOTE, Role.FAILS]
    assert [s.span.start.line for s in late.evidence] == [4, 5, 6]
    (other,) = check(AG005_FLAGGED["wrong optimizer cleared on self attributes"])
    assert other.kind == "other-optimizer" and "self.opt_d.zero_grad()" in other.message


# -- AG006 -------------------------------------------------------------------------------
AG006_FLAGGED = {
    "copy_ through .data in a training loop": """
        def fit(model, target, optimizer, loader):
            for x in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
                for tp, p in zip(target.parameters(), model.parameters()):
                    tp.data.copy_(0.99 * tp.data + 0.01 * p.data)  # expect: AG006
    """,
    "assignment to .data and a subscript write": """
        def fit(model, loss_fn, x):
            loss = loss_fn(model(x))
            loss.backward()
            model.fc.weight.data = model.fc.weight.data * 0.5  # expect: AG006
            model.fc.bias.data[0] = 0.0  # expect: AG006
    """,
    "init function writing through .data (information)": """
        import torch.nn as nn
        def weights_init(m):
            if isinstance(m, nn.Conv2d):
                m.weight.data.normal_(0.0, 0.02)  # expect: AG006
            nn.init.constant_(m.bias.data, 0)  # expect: AG006
    """,
    "init through .data of a parameter made with an imported Tensor": """
        import torch.nn as nn
        from torch import Tensor
        class Layer(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.a = nn.Parameter(Tensor(2, n))
                nn.init.xavier_uniform_(self.a.data)  # expect: AG006
    """,
    "reads in training code": """
        import torch
        def evaluate(model, x, y, optimizer):
            optimizer.zero_grad()
            out = model(x)
            loss = torch.nn.functional.cross_entropy(out, y)
            loss.backward()
            optimizer.step()
            correct = (out.data.argmax(1) == y).sum()  # expect: AG006
            return loss.data, correct  # expect: AG006
    """,
}

AG006_QUIET = {
    "writes under no_grad": """
        import torch
        def fit(model, loader):
            for x in loader:
                model(x).sum().backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p.data.add_(p.grad, alpha=-0.1)
    """,
    "a no_grad-decorated update": """
        import torch
        @torch.no_grad()
        def ema(target, online):
            for tp, p in zip(target.parameters(), online.parameters()):
                tp.data.mul_(0.99).add_(p.data, alpha=0.01)
    """,
    "data that is not a tensor": """
        import torch
        from torch.utils.data import DataLoader
        def fit(dataset, batch, args, model, optimizer):
            loader = torch.utils.data.DataLoader(dataset.data, batch_size=args.data)
            x = batch.data
            dataset.data[0] = 1
            model(x).sum().backward()
            optimizer.step()
    """,
    "swapping a parameter's tensor outside training code": """
        def to_half(model):
            for p in model.parameters():
                p.data = p.data.half()
    """,
    "reads outside training code": """
        def summary(model):
            return [p.data.norm() for p in model.parameters()]
    """,
}


@pytest.mark.parametrize("source", AG006_FLAGGED.values(), ids=AG006_FLAGGED.keys())
def test_ag006_flags(source):
    assert assert_marks(source)


@pytest.mark.parametrize("source", AG006_QUIET.values(), ids=AG006_QUIET.keys())
def test_ag006_quiet(source):
    assert assert_marks(source) == []


def test_ag006_severity_and_suggestions():
    (soft,) = check(AG006_FLAGGED["copy_ through .data in a training loop"])
    assert soft.severity is Severity.WARNING and soft.kind == "write"
    assert soft.extra["suggestion"] == "tp.copy_(0.99 * tp + 0.01 * p)"
    assert "with torch.no_grad(): tp.copy_(0.99 * tp + 0.01 * p)" in soft.message
    assign, _subscript = check(AG006_FLAGGED["assignment to .data and a subscript write"])
    assert assign.extra["suggestion"] == "model.fc.weight.copy_(model.fc.weight * 0.5)"
    init = check(AG006_FLAGGED["init function writing through .data (information)"])
    assert [f.severity for f in init] == [Severity.INFO, Severity.INFO]
    reads = check(AG006_FLAGGED["reads in training code"])
    assert [(f.kind, f.severity, f.extra["suggestion"]) for f in reads] == [
        ("read", Severity.INFO, "out.detach()"),
        ("read", Severity.INFO, "loss.detach()"),
    ]


# -- AG007 -------------------------------------------------------------------------------
AG007_FLAGGED = {
    "tanh output through an in-place ReLU module": """
        import torch
        from torch import nn
        def step(model, x):
            h = torch.tanh(model(x))
            act = nn.ReLU(inplace=True)
            out = act(h)  # expect: AG007
            out.sum().backward()
    """,
    "in-place ReLU saves its own result": """
        import torch.nn.functional as F
        def step(model, x):
            h = F.relu(model(x), inplace=True)
            h += 1  # expect: AG007
            h.sum().backward()
    """,
    "a submodule built with inplace=True": """
        import torch
        from torch import nn
        class Trainer:
            def __init__(self):
                self.act = nn.LeakyReLU(0.1, inplace=True)
            def step(self, model, x):
                gate = torch.sigmoid(model(x))
                out = self.act(gate)  # expect: AG007
                out.mean().backward()
    """,
    "plain data saved for the weight's gradient": """
        from torch import nn
        import torch
        def step(x):
            w = nn.Parameter(torch.randn(3))
            y = x * w
            x.add_(1)  # expect: AG007
            y.sum().backward()
    """,
    "a view of a saved result": """
        def step(model, x):
            y = model(x).exp()
            first = y[0]
            first.zero_()  # expect: AG007
            y.sum().backward()
    """,
    "detach shares the version counter": """
        import torch
        def step(model, x):
            y = torch.sigmoid(model(x))
            y.detach().mul_(2)  # expect: AG007
            y.sum().backward()
    """,
    "modified under no_grad, still saved": """
        import torch
        def step(model, x):
            y = torch.sigmoid(model(x))
            with torch.no_grad():
                y.clamp_(0.1, 0.9)  # expect: AG007
            y.sum().backward()
    """,
    "in one branch of an if": """
        import torch
        def step(model, x, clip):
            p = torch.softmax(model(x), dim=-1)
            if clip:
                p[p < 1e-3] = 0  # expect: AG007
            p.log().sum().backward()
    """,
    "second backward with retain_graph": """
        import torch
        def step(model, x):
            y = torch.exp(model(x))
            loss = y.sum()
            loss.backward(retain_graph=True)
            y.mul_(0.5)  # expect: AG007
            loss.backward()
    """,
    "through a loss helper and torch.autograd.grad": """
        import torch
        def step(model, x, criterion):
            probs = torch.sigmoid(model(x))
            probs.clamp_(1e-6, 1 - 1e-6)  # expect: AG007
            loss = criterion(probs, x)
            grads = torch.autograd.grad(loss, model.parameters())
            return grads
    """,
    "optimizer step between a retained forward and its second backward": """
        import torch
        class GAN:
            def __init__(self, gen, disc):
                self.gen, self.disc = gen, disc
                self.opt_d = torch.optim.Adam(self.disc.parameters())
            def fit(self, z, real):
                fake = self.gen(z)
                d_fake = self.disc(fake)
                (d_fake.mean() - self.disc(real).mean()).backward(retain_graph=True)
                self.opt_d.step()  # expect: AG007
                (-d_fake.mean()).backward()
    """,
    "module-level script across statements": """
        import torch
        w = torch.randn(3, requires_grad=True)
        y = torch.tanh(w * 2)
        y *= 2  # expect: AG007
        y.sum().backward()
    """,
}

AG007_QUIET = {
    "rebinding is not in place": """
        import torch
        def step(model, x):
            h = torch.tanh(model(x))
            h = h + 1
            h = h * 2
            h.sum().backward()
    """,
    "conv output with an in-place ReLU": """
        import torch.nn.functional as F
        def step(model, x):
            h = model.conv(x)
            h = F.relu(h, inplace=True)
            logits = model.head(h)
            logits /= 2.0
            logits.sum().backward()
    """,
    "scalar multiplication saves nothing": """
        def step(model, x):
            h = model(x)
            y = h * 2
            h.add_(1)
            y.sum().backward()
    """,
    "parameters updated after the backward": """
        import torch
        def fit(x, y):
            w = torch.randn(3, 1, requires_grad=True)
            for _ in range(3):
                pred = torch.sigmoid(x @ w)
                loss = ((pred - y) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
                    w.grad.zero_()
    """,
    "modified after the only backward": """
        import torch
        def step(model, x):
            probs = torch.softmax(model(x), dim=1)
            loss = -probs.log().sum()
            loss.backward()
            probs.mul_(0)
    """,
    "a backward that does not reach the saving op": """
        import torch
        def step(model, x):
            y = torch.sigmoid(model(x))
            y.mul_(2)
            other = model(x).sum()
            other.backward()
    """,
    "no backward in the function": """
        import torch
        def forward(self, x):
            y = torch.sigmoid(self.fc(x))
            y.mul_(2)
            return y
    """,
    "the operand requires no grad and the other is plain data": """
        import torch
        def step(model, x):
            mask = torch.ones(3)
            y = x * mask
            x.add_(1)
            model(y).sum().backward()
    """,
    "python numbers are rebound, not modified": """
        import torch
        def step(model, x, lr):
            w = torch.randn(3, requires_grad=True)
            scale = lr * w
            lr += 1
            scale.sum().backward()
    """,
    "writes through .data are AG006's": """
        import torch
        def step(model, x):
            y = torch.sigmoid(model(x))
            y.data.mul_(2)  # expect: AG006
            y.sum().backward()
    """,
    "a fresh forward after the optimizer step": """
        import torch
        def fit(gen, disc, z, real):
            opt_d = torch.optim.Adam(disc.parameters())
            fake = gen(z)
            (disc(fake.detach()).mean() - disc(real).mean()).backward()
            opt_d.step()
            (-disc(fake).mean()).backward()
    """,
    "an optimizer step after the graph was freed": """
        import torch
        def fit(model, x):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for _ in range(3):
                optimizer.zero_grad()
                out = model(x.requires_grad_())
                out.sum().backward()
                optimizer.step()
    """,
    "a conversion may copy": """
        import torch
        def step(model, x, device):
            y = torch.sigmoid(model(x)).to(device)
            y.mul_(2)
            y.sum().backward()
    """,
    "exclusive branches": """
        import torch
        def step(model, x, mode):
            if mode:
                y = torch.exp(model(x))
            else:
                y = model(x)
                y.mul_(2)
            y.sum().backward()
    """,
}


@pytest.mark.parametrize("source", AG007_FLAGGED.values(), ids=AG007_FLAGGED.keys())
def test_ag007_flags(source):
    for finding in assert_marks(source):
        assert finding.severity is Severity.ERROR


@pytest.mark.parametrize("source", AG007_QUIET.values(), ids=AG007_QUIET.keys())
def test_ag007_quiet(source):
    assert [f for f in assert_marks(source) if f.code == "AG007"] == []


def test_ag007_evidence_names_the_saving_op_the_change_and_the_backward():
    (found,) = check(AG007_FLAGGED["tanh output through an in-place ReLU module"])
    assert found.kind == "saved-output"
    assert [(s.role, s.span.start.line) for s in found.evidence] == [
        (Role.BUILT, 5),
        (Role.NOTE, 7),
        (Role.FAILS, 8),
    ]
    assert "torch.tanh(model(x))" in found.message and "line 8" in found.message
    (saved_input,) = check(AG007_FLAGGED["plain data saved for the weight's gradient"])
    assert saved_input.kind == "saved-input" and "`x`" in saved_input.evidence[0].message


# -- shared behaviour ------------------------------------------------------------------
def test_broken_blocks_are_skipped_and_the_rest_is_checked():
    source = textwrap.dedent(
        """
        import torch
        def broken(:
            pass
        def step(model, x):
            y = torch.exp(model(x))
            y += 1  # expect: AG007
            y.sum().backward()
        """
    )
    found = check(source)
    assert [(f.span.start.line, f.code) for f in found] == expected_marks(source)


def test_columns_count_code_points():
    source = 'import torch\ndef f(model, x):\n    y = torch.exp(model(x)); s = "é"; y.add_(1)\n    y.sum().backward()\n'
    (found,) = check(source)
    assert (found.span.start.line, found.span.start.column) == (3, 38)  # 39 in UTF-8 bytes


def test_scopes_without_the_pattern_are_not_walked(monkeypatch):
    walked = []
    original = inplace_checker.InplaceChecker.run

    def spy(self):
        walked.append(getattr(self.scope.node, "name", "<module>"))
        return original(self)

    monkeypatch.setattr(inplace_checker.InplaceChecker, "run", spy)
    check(
        """
        import torch
        def forward(x):
            return torch.exp(x).mul_(2)
        def train(model, x):
            y = model(x)
            y.sum().backward()
        """
    )
    assert walked == ["train"]


def test_nothing_to_check_returns_nothing():
    assert check("") == []
    assert check("x = 1\n") == []


def test_a_pathologically_deep_expression_costs_only_its_own_scope():
    deep = " + ".join(["x"] * 1000)
    source = (
        "import torch\n"
        f"def deep(model, x):\n    y = {deep}\n    y.backward()\n"
        "def step(model, x):\n"
        "    z = torch.exp(model(x))\n"
        "    z.add_(1)  # expect: AG007\n"
        "    z.sum().backward()\n"
    )
    found = check(source)
    assert [(f.span.start.line, f.code) for f in found] == expected_marks(source)
