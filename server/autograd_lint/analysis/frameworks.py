"""Frameworks that call the user's code and back-propagate for it, modelled as drivers.

Lightning calls a LightningModule's `training_step(batch, batch_idx)` once per batch and,
under automatic optimization (the default; off when the module sets
`self.automatic_optimization = False`), calls `backward()` on the loss it returns — a
tensor, or the `"loss"` of a dict. A driver is a synthetic loop that does what the
framework does, so the ordinary rules apply unchanged: a `training_step` that calls
`loss.backward()` itself and returns the loss is a second backward over the same graph
(AG002 at its `return`), a tensor kept in `self.` from one step to the next is carried
across iterations (AG001). The row below is checked against the installed Lightning by
tests/test_frameworks.py. Classes are recognised by their bases' qualified names, resolved
through the file's imports (or a local base that is one), never by a class's own name.
"""

from __future__ import annotations

import ast

from .model import Role
from .roles import import_aliases, qualify

__all__ = ["import_aliases", "qualify"]

# Where LightningModule can be imported from (all the same class in lightning 2.x).
LIGHTNING_MODULES = frozenset(
    {
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule",
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
    }
)
TRAINING_STEP = "training_step"
# A LightningModule's own attributes that hold no graph: the constructor's arguments
# (`self.hparams.model_dim`), the trainer and its counters. Unknown attributes of a module
# are otherwise taken for its parameters or submodules.
LIGHTNING_DATA_ATTRIBUTES = frozenset(
    {"hparams", "trainer", "logger", "loggers", "global_step", "current_epoch", "device",
     "dtype", "local_rank", "global_rank", "automatic_optimization"}
)  # fmt: skip
# The driver's own names: dunder-free, so nothing the user wrote can bind them.
DRIVER_SELF, DRIVER_BATCH, DRIVER_LOADER = "lightning_module", "batch", "train_dataloader"


def is_lightning_module(info, aliases: dict[str, str], _seen: set | None = None) -> bool:
    seen = _seen if _seen is not None else set()
    seen.add(id(info))
    if any(qualify(base, aliases) in LIGHTNING_MODULES for base in info.bases):
        return True
    return any(
        id(local) not in seen and is_lightning_module(local, aliases, seen)
        for local in info.local_bases
    )


def automatic_optimization(info) -> bool:
    """False when a method (or the class body) sets `automatic_optimization = False`."""
    for node in ast.walk(info.node):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            value = node.value
            if name == "automatic_optimization" and isinstance(value, ast.Constant):
                return value.value is not False
    return True


def explain_driver_steps(raws, loop: ast.For) -> None:
    """Evidence at the driver's synthetic lines says what Lightning does there."""
    synthetic = {id(node) for node in ast.walk(loop)}
    for raw in raws:
        for step in raw.steps:
            if id(step.site.node) not in synthetic:
                continue
            if step.role is Role.CALL:
                step.message = "Lightning calls `training_step` for every batch"
            elif step.role is Role.FAILS:
                step.message = (
                    "Lightning back-propagates the loss `training_step` returns (automatic "
                    "optimization) and goes through the freed graph again"
                )
        if id(raw.site.node) in synthetic:
            raw.message = (
                "Lightning back-propagates the loss `training_step` returns — " + raw.message
            )


def lightning_driver(info, step) -> ast.For | None:
    """`for batch in train_dataloader: loss = module.training_step(batch, 0); loss.backward()`,
    placed at the method's `return` statements, so that what the framework does is reported
    where the user hands it the loss."""
    returns = [n for n in ast.walk(step.node) if isinstance(n, ast.Return) and n.value is not None]
    backward = automatic_optimization(info) and bool(returns)
    anchor = returns[-1] if backward else step.node
    name = _returned_name(returns[-1].value) if backward else "output"
    text = f"for {DRIVER_BATCH} in {DRIVER_LOADER}:\n"
    text += f"    {name} = {DRIVER_SELF}.{TRAINING_STEP}({DRIVER_BATCH}, 0)\n"
    if backward:
        # A dict's "loss" is what Lightning back-propagates; the whole dict carries it.
        text += f"    {name}.backward()\n"
    loop = ast.parse(text).body[0]
    for node in ast.walk(loop):
        ast.copy_location(node, anchor)
        if hasattr(node, "end_lineno"):
            node.end_lineno, node.end_col_offset = anchor.end_lineno, anchor.end_col_offset
    return loop


def _returned_name(value: ast.expr) -> str:
    return value.id if isinstance(value, ast.Name) and value.id.isidentifier() else "loss"
