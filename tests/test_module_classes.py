"""Which classes of a file are modules: their bases resolved through the file's imports and
followed through its own classes, never how a class is called (issue 12).

The ground truth is Python's: the file is run and each class is asked
`issubclass(cls, torch.nn.Module)` (a LightningModule is one). The analysis's ClassInfo
must agree for every class, `forward` or not.
"""

from __future__ import annotations

import textwrap

import pytest
from autograd_lint.analysis.blocks import build_blocks, split_lines
from autograd_lint.analysis.program import Program

SOURCES = {
    # The module classes imported under names that do not say so; a class named like a
    # module that is none (a LightningDataModule, a local base spelled ...Module).
    "aliases and misleading names": """
        import torch
        from torch import nn as layers
        from torch.nn import Module as Base
        from lightning.pytorch import LightningModule as Trainable
        from lightning.pytorch import LightningDataModule

        class A(layers.Module):
            def __init__(self):
                super().__init__()

        class B(Base):
            pass

        class C(Trainable):
            def training_step(self, batch, batch_idx):
                return batch.sum()

        class D(LightningDataModule):
            pass

        class PlainModule:
            pass

        class E(PlainModule):
            pass

        class F(layers.Sequential):
            pass

        class G(B):
            pass

        class H(torch.nn.Parameter):
            pass
    """,
}


@pytest.mark.parametrize("name", SOURCES)
def test_module_classes_agree_with_issubclass(name: str) -> None:
    import torch

    source = textwrap.dedent(SOURCES[name])
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, "<classes>", "exec"), namespace)  # noqa: S102
    program = Program(build_blocks(source, split_lines(source)))
    assert program.classes
    found = {n: info.is_module for n, info in program.classes.items()}
    truth = {n: issubclass(namespace[n], torch.nn.Module) for n in program.classes}
    assert found == truth
    assert truth["A"] and truth["C"] and not truth["D"] and not truth["E"]
