"""Frameworks as drivers (analysis/frameworks.py), each row checked against the library.

Lightning's row: `training_step`'s returned loss is back-propagated after the method
returns, unless the module turns automatic optimization off. The programs below are run
with the installed Lightning (a real `Trainer.fit`, CPU, a few batches), and the analysis
must agree with what happens.
"""

from __future__ import annotations

import importlib
import subprocess
import textwrap

import pytest
from autograd_lint.analysis import Role, analyze
from autograd_lint.analysis.frameworks import LIGHTNING_DATA_ATTRIBUTES, LIGHTNING_MODULES
from warm_python import WarmPython

FREED = "Trying to backward through the graph a second time"

HEAD = """
import torch
from torch.utils.data import DataLoader, TensorDataset
{import_line}


class Regressor({base}):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
{init_extra}
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.body(x), y)
{step_body}
"""
FIT = """

if __name__ == "__main__":
    data = TensorDataset(torch.randn(12, 3), torch.randn(12, 1))
    trainer = {lightning}.Trainer(max_epochs=1, limit_train_batches=3, logger=False,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
        accelerator="cpu")
    trainer.fit(Regressor(), DataLoader(data, batch_size=4))
"""

BACKWARD_AND_RETURN = "        loss.backward()\n        return loss\n"
MANUAL = "        self.manual_backward(loss)\n        self.optimizers().step()\n"


def program(import_line: str, base: str, lightning: str, step_body: str, init_extra="") -> str:
    return HEAD.format(
        import_line=import_line, base=base, init_extra=init_extra, step_body=step_body
    ) + FIT.format(lightning=lightning)


PROGRAMS = {
    # training_step calls backward itself and returns the loss: Lightning's backward fails.
    "backward-and-return": (
        program("import lightning as L", "L.LightningModule", "L", BACKWARD_AND_RETURN),
        "return loss",
    ),
    # The same through pytorch_lightning and an alias for the base: the class is known by
    # its qualified base, not by any name.
    "aliased-base": (
        program(
            "import pytorch_lightning as pl\nfrom pytorch_lightning import LightningModule as Base",
            "Base",
            "pl",
            BACKWARD_AND_RETURN,
        ),
        "return loss",
    ),
    # Returning the loss and leaving the backward to Lightning runs.
    "return-only": (
        program("import lightning as L", "L.LightningModule", "L", "        return loss\n"),
        None,
    ),
    # A buffer built in __init__ from the hyperparameters Lightning keeps runs, and gets no
    # finding. (It stays quiet even without the hparams row: the shape that needed the row,
    # found in the Lightning tutorials, is not reduced to a test yet.)
    "buffer-from-hparams": (
        program(
            "import lightning as L",
            "L.LightningModule",
            "L",
            "        return (loss * self.scale.sum()).mean()\n",
            init_extra=(
                "        self.save_hyperparameters({'width': 3})\n"
                "        self.register_buffer('scale', torch.ones(self.hparams.width) / self.hparams.width)\n"
            ),
        ),
        None,
    ),
    # Manual optimization: nothing returned, nothing back-propagated by Lightning.
    "manual": (
        program(
            "import lightning as L",
            "L.LightningModule",
            "L",
            MANUAL,
            init_extra="        self.automatic_optimization = False\n",
        ),
        None,
    ),
}


@pytest.fixture(scope="module")
def lightning_python():
    """`python` with torch and both Lightning packages loaded: every program imports one,
    which takes seconds; each run is forked from this one server (tests/runtime/warm_python)."""
    with WarmPython(preload=("lightning", "pytorch_lightning")) as warm:
        yield str(warm.shim)


def run(python: str, source: str) -> str:
    proc = subprocess.run([python, "-c", source], capture_output=True, text=True, timeout=240)
    return proc.stderr if proc.returncode else ""


@pytest.mark.parametrize("name", PROGRAMS)
def test_lightning_driver_agrees_with_lightning(name: str, lightning_python: str) -> None:
    source, failing = PROGRAMS[name]
    stderr = run(lightning_python, source)
    findings = [f for f in analyze(source) if f.code in ("AG001", "AG002", "AG007")]
    if failing is None:
        assert stderr == ""
        assert findings == []
        return
    assert FREED in stderr
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.strip() == failing)
    (finding,) = findings
    assert (finding.code, finding.span.start.line) == ("AG002", line)
    assert "Lightning" in finding.message
    fails = finding.steps(Role.FAILS)
    assert fails and "Lightning back-propagates" in fails[0].message


@pytest.mark.parametrize("name", sorted(LIGHTNING_MODULES))
def test_every_lightning_module_row_names_the_real_class(name: str) -> None:
    # `lightning` and `pytorch_lightning` each define the class once, in core.module.
    package = "pytorch_lightning" if name.startswith("pytorch_lightning.") else "lightning.pytorch"
    real = importlib.import_module(f"{package}.core.module").LightningModule
    module, _, attribute = name.rpartition(".")
    assert getattr(importlib.import_module(module), attribute) is real


def test_a_class_that_only_looks_like_lightning_is_not_driven() -> None:
    # A local base named LightningModule is not Lightning's: no framework backward.
    source = textwrap.dedent(
        """
        import torch


        class LightningModule(torch.nn.Module):
            pass


        class Regressor(LightningModule):
            def __init__(self):
                super().__init__()
                self.body = torch.nn.Linear(3, 1)

            def training_step(self, batch, batch_idx):
                loss = self.body(batch).pow(2).mean()
                loss.backward()
                return loss
        """
    )
    assert [f for f in analyze(source) if f.code == "AG002"] == []


@pytest.mark.parametrize("name", sorted(LIGHTNING_DATA_ATTRIBUTES))
def test_every_lightning_data_attribute_is_lightnings_and_holds_no_graph(name: str) -> None:
    import lightning.pytorch
    import torch

    assert hasattr(lightning.pytorch.LightningModule, name)
    module = lightning.pytorch.LightningModule()
    try:
        value = getattr(module, name)
    except RuntimeError:  # `trainer`, `logger`...: only there once a Trainer attached it
        return
    assert not (isinstance(value, torch.Tensor) and value.requires_grad)
