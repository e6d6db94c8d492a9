"""Composer's Trainer as a driver (analysis/frameworks.py, library_models/composer.toml).

Composer up to 0.8.0 (composer/trainer/trainer.py:1818 at v0.8.0) calls a ComposerModel's
`forward(batch)`, then `loss(outputs, batch)`, and back-propagates each element of the
tuple `loss` returns in turn; 0.8.1 sums them first (mosaicml/composer#1240). That
composer needs torch<2 and cannot be installed here, so the ground truth is a `composer`
package written for these tests whose Trainer runs the cited loop, on torch 2.13.
"""

from __future__ import annotations

import subprocess
import textwrap

import pytest
from autograd_lint.analysis import Role, analyze, frameworks

FREED = "Trying to backward through the graph a second time"

# What the v0.8.0 trainer does per microbatch, without the precision, DeepSpeed and
# gradient-accumulation branches; `summed` is v0.8.1's change.
STAND_IN = """
import torch


def ensure_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class ComposerModel(torch.nn.Module):
    pass


class Trainer:
    def __init__(self, model, train_dataloader, optimizers, summed=False):
        self.model, self.loader, self.optimizer = model, train_dataloader, optimizers
        self.summed = summed

    def fit(self):
        for batch in self.loader:
            self.optimizer.zero_grad()
            outputs = self.model(batch)
            losses = self.model.loss(outputs, batch)
            if self.summed:
                total = torch.zeros(1)
                for loss in ensure_tuple(losses):
                    total += loss
                total.backward()
            else:
                for loss in ensure_tuple(losses):
                    loss.backward()
            self.optimizer.step()
"""

PROGRAM = """
import torch
from composer import Trainer
from composer.models import ComposerModel


class TwoHeads(ComposerModel):
    def __init__(self):
        super().__init__()
        self.trunk = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh())
        self.first = torch.nn.Linear(8, 2)
        self.second = torch.nn.Linear({width}, 1)

    def forward(self, batch):
        x, _ = batch
        features = self.trunk(x)
        return self.first(features), self.second({second_input})

    def loss(self, outputs, batch):
        scores, value = outputs
        _, y = batch
        {body}


if __name__ == "__main__":
    model = TwoHeads()
    loader = [(torch.randn(4, 6), torch.randint(0, 2, (4,))) for _ in range(2)]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Trainer(model=model, train_dataloader=loader, optimizers=opt{summed}).fit()
"""
TUPLE = "return torch.nn.functional.cross_entropy(scores, y), value.pow(2).mean()"
ONE = "return torch.nn.functional.cross_entropy(scores, y) + value.pow(2).mean()"
SHARED = {"width": 8, "second_input": "features"}
# The second head reads the batch itself: the two losses share no saved tensor.
DISJOINT = {"width": 6, "second_input": "x"}


def program(body: str, heads: dict, summed: bool = False) -> str:
    return PROGRAM.format(body=body, summed=", summed=True" if summed else "", **heads)


@pytest.fixture
def torch_raises(tmp_path, torch_python):
    """torch_raises(text): whether the program, beside the stand-in `composer` package,
    raises the freed-graph error (any other failure fails the test); run by the suite's
    warm interpreter (torch already imported)."""
    return lambda text: raised(text, tmp_path, torch_python)


def raised(text: str, tmp_path, python: str) -> bool:
    package = tmp_path / "composer"
    (package / "models").mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(STAND_IN) + "\nfrom composer import models\n", encoding="utf-8"
    )
    (package / "models" / "__init__.py").write_text(
        "from composer import ComposerModel\n", encoding="utf-8"
    )
    (tmp_path / "train.py").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [python, str(tmp_path / "train.py")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0 or FREED in done.stderr, done.stderr
    return done.returncode != 0


def errors(text: str):
    return [f for f in analyze(text, "train.py") if f.code in ("AG001", "AG002", "AG007")]


def return_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if "return torch.nn" in line)


def test_a_tuple_of_losses_over_one_trunk_is_back_propagated_twice(torch_raises):
    text = program(TUPLE, SHARED)
    assert torch_raises(text)
    found = errors(text)
    assert [(f.code, f.span.start.line) for f in found] == [("AG002", return_line(text))]
    fails = found[0].steps(Role.FAILS)[0].message
    assert "composer/trainer/trainer.py:1818 at v0.8.0" in fails


@pytest.mark.parametrize(
    "body, heads", [(ONE, SHARED), (TUPLE, DISJOINT)], ids=["one-loss", "disjoint-tuple"]
)
def test_what_one_backward_each_can_take_stays_clean(body, heads, torch_raises):
    text = program(body, heads)
    assert not torch_raises(text)
    assert errors(text) == []


def test_from_0_8_1_the_tuple_is_summed(torch_raises, monkeypatch):
    # The installed version decides: 0.8.1 sums the tuple (no row holds), and runs.
    text = program(TUPLE, SHARED, summed=True)
    assert not torch_raises(text)
    monkeypatch.setattr(frameworks, "composer_version", lambda: "0.8.1")
    assert errors(program(TUPLE, SHARED)) == []
    monkeypatch.setattr(frameworks, "composer_version", lambda: "0.8.0")
    text = program(TUPLE, SHARED)
    assert [(f.code, f.span.start.line) for f in errors(text)] == [("AG002", return_line(text))]


def test_a_class_not_derived_from_composer_model_is_not_driven():
    text = program(TUPLE, SHARED).replace(
        "class TwoHeads(ComposerModel)", "class TwoHeads(torch.nn.Module)"
    )
    assert errors(text) == []
