"""Tests for survivors of the eighth mutation sample (docs/mutation.md), static halves.

Each fails with its mutant applied by hand to a copy of the package and passes without it.
"""

from __future__ import annotations

from pathlib import Path

from autograd_lint.analysis import Role, analyze

# bound_methods.backward_in_library 15 (`if (path) or True`: a class of the chain with no
# file is read as the file "None", and the TypeError ends the search) and
# library_distributions._parse 28 (a library file's block starting at line 2: every
# evidence line inside it one off).


def test_a_base_whose_module_cannot_be_found_does_not_hide_the_method(monkeypatch):
    # A class chain can name a class whose module has no file to read (a compiled base,
    # a namespace without __init__): it is skipped, and the next class that defines the
    # method gives the evidence line, the one of accelerate's file that calls backward.
    from autograd_lint.analysis import bound_methods, library_layers
    from autograd_lint.analysis.engine import span_of

    real = library_layers.current_summaries()

    class Unfound:
        def resolve_module_file(self, module):
            return (
                None if module == "compiled_base" else real.environment.resolve_module_file(module)
            )

    class Chain:
        environment = Unfound()

        def class_chain(self, owner):
            return ("compiled_base.Base", *real.class_chain(owner))

    monkeypatch.setattr(library_layers, "current_summaries", lambda: Chain())
    found = bound_methods.backward_in_library(
        "accelerate.Accelerator.backward", "it back-propagates"
    )
    assert found is not None
    site, message = found
    assert message.startswith("`Accelerator.backward`")
    line = span_of(site).start.line
    text = Path(site.block.path).read_text(encoding="utf-8").splitlines()[line - 1]
    assert "backward(" in text, text


# frameworks.driver_of 64 (the text of the step where Lightning's own backward fails).
# tests/test_frameworks.py runs the same shape with Lightning; this is its static half.
LIGHTNING_STEP = """
import torch
import lightning as L


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(3, 1)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.body(x), y)
        loss.backward()
        return loss
"""


def test_the_step_where_lightnings_backward_fails_says_so():
    (finding,) = [f for f in analyze(LIGHTNING_STEP, "f.py") if f.code == "AG002"]
    (fails,) = finding.steps(Role.FAILS)
    assert fails.message == (
        "Lightning back-propagates the loss `training_step` returns (automatic "
        "optimization) and goes through the freed graph again"
    )
