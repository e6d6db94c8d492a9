"""Frameworks that call the user's code and back-propagate for it, modelled as drivers.

A driver is a synthetic loop that does what the framework does, so the ordinary rules
apply unchanged: Lightning's (below) and Composer's, whose Trainer calls a ComposerModel's
`forward(batch)`, then `loss(outputs, batch)`, and back-propagates what `loss` returns:
up to composer 0.8.0 each element of a returned tuple in turn (so two losses over one
forward raise), from 0.8.1 on their sum once (library_models/composer.toml; the installed
version decides, and without composer installed the row's range is taken to hold, as for
every row).

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
from collections.abc import Callable
from dataclasses import dataclass

from . import library_models, lightning_legacy
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


def is_lightning_module(info, aliases: dict[str, str]) -> bool:
    return derives_from(info, aliases, LIGHTNING_MODULES)


def derives_from(info, aliases: dict[str, str], bases: frozenset, _seen: set | None = None) -> bool:
    """Whether a class of the file has one of `bases` (qualified) among its bases, its own
    or its local bases'."""
    seen = _seen if _seen is not None else set()
    seen.add(id(info))
    if any(qualify(base, aliases) in bases for base in info.bases):
        return True
    return any(
        id(local) not in seen and derives_from(local, aliases, bases, seen)
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


@dataclass(frozen=True)
class Driver:
    """How a framework drives one class of the file: the loop, and what evidence says."""

    framework: str  # for the analysis root's name
    build: Callable[[], ast.For]
    calls: str  # a CALL step at a synthetic line
    frees: str | None  # a FREED step at a synthetic line (None: as the report said)
    fails: str  # a FAILS step at a synthetic line
    prefix: str  # before the message of a finding at a synthetic line
    key: tuple = ()  # what else its findings depend on (the framework's version)


def may_be_driven(text: str) -> bool:
    """Whether a text can hold a class a framework drives, whose backward the framework
    issues though the text never spells one (a cheap test)."""
    return TRAINING_STEP in text or "ComposerModel" in text


def drives_some(blocks) -> bool:
    return any(may_be_driven(b.text) for b in blocks)


def driver_of(info, aliases: dict[str, str]) -> Driver | None:
    """The driver of a class of the file, or None when no framework drives it."""
    step = info.find_method(TRAINING_STEP)
    legacy = step is not None and lightning_legacy.takes_optimizer_index(step)
    if legacy and lightning_legacy.optimizer_count(info) and is_lightning_module(info, aliases):
        # Lightning < 1.1 and several optimizers (lightning_legacy.py cites its loop).
        loop = (info, step, DRIVER_SELF, DRIVER_BATCH, DRIVER_LOADER)
        return Driver(
            "Lightning",
            lambda: lightning_legacy.optimizer_loop(*loop),
            lightning_legacy.CALLS,
            lightning_legacy.FREES,
            lightning_legacy.FAILS,
            lightning_legacy.PREFIX,
            ("legacy",),
        )
    if step is not None and is_lightning_module(info, aliases):
        return Driver(
            "Lightning",
            lambda: lightning_driver(info, step),
            "Lightning calls `training_step` for every batch",
            None,
            "Lightning back-propagates the loss `training_step` returns (automatic "
            "optimization) and goes through the freed graph again",
            "Lightning back-propagates the loss `training_step` returns — ",
        )
    loss = info.find_method(COMPOSER_LOSS)
    if loss is None or not derives_from(info, aliases, COMPOSER_MODELS):
        return None
    version = composer_version()
    row = library_models.lookup(COMPOSER_LOSS_ROW, version)
    effect = row.effect("backpropagates-return") if row is not None else None
    if effect is None:
        return None
    each = bool(effect.get("each-element", False))
    return Driver(
        "Composer",
        lambda: composer_driver(info, loss, each),
        "Composer's Trainer calls `forward(batch)`, then `loss(outputs, batch)`, for every batch",
        "Composer's Trainer back-propagates the first loss returned, which frees the graph's "
        "saved tensors",
        f"{row.says} ({row.source}): the next one goes through the freed graph again",
        "Composer's Trainer back-propagates the losses `loss` returns — ",
        ("composer", version),
    )


def explain_driver_steps(raws, loop: ast.For, driver: Driver) -> None:
    """Evidence at the driver's synthetic lines says what the framework does there."""
    synthetic = {id(node) for node in ast.walk(loop)}
    for raw in raws:
        for step in raw.steps:
            if id(step.site.node) not in synthetic:
                continue
            if step.role is Role.CALL:
                step.message = driver.calls
            elif step.role is Role.FREED and driver.frees is not None:
                step.message = driver.frees
            elif step.role is Role.FAILS:
                step.message = driver.fails
        if id(raw.site.node) in synthetic:
            raw.message = driver.prefix + raw.message


# Where ComposerModel can be imported from (composer 0.x; the distribution was named
# mosaicml before composer), its method the Trainer back-propagates, and that method's row.
COMPOSER_MODELS = frozenset(
    {
        "composer.ComposerModel",
        "composer.models.ComposerModel",
        "composer.models.base.ComposerModel",
    }
)
COMPOSER_LOSS = "loss"
COMPOSER_LOSS_ROW = "composer.models.ComposerModel.loss"
COMPOSER_DISTRIBUTIONS = ("mosaicml", "composer")


def composer_version() -> str | None:
    """The installed composer's version in the analysed environment; None if not installed."""
    from .library_layers import current_summaries  # late: it reads the environment

    try:
        environment = current_summaries().environment
        for name in COMPOSER_DISTRIBUTIONS:
            found = environment.distribution_named(name)
            if found is not None:
                return found.version
    except Exception:  # noqa: BLE001 - an unreadable environment: the version is unknown
        return None
    return None


def composer_driver(info, loss, each_element: bool) -> ast.For:
    """`for batch in train_dataloader: outputs = model(batch); loss = model.loss(outputs,
    batch)`, then the backward of each element of a returned tuple (`each_element`) or of
    the whole, placed at the last `return` of `loss`, where the user hands it the losses."""
    returns = [n for n in ast.walk(loss.node) if isinstance(n, ast.Return) and n.value is not None]
    anchor = returns[-1] if returns else loss.node
    text = f"for {DRIVER_BATCH} in {DRIVER_LOADER}:\n"
    text += f"    outputs = {DRIVER_SELF}({DRIVER_BATCH})\n"
    text += f"    loss = {DRIVER_SELF}.{COMPOSER_LOSS}(outputs, {DRIVER_BATCH})\n"
    returned = returns[-1].value if returns else None
    if each_element and isinstance(returned, (ast.Tuple, ast.List)):
        # `for loss in ensure_tuple(self.state.loss): loss.backward()`, unrolled.
        text += "".join(f"    loss[{i}].backward()\n" for i in range(len(returned.elts)))
    elif returns:
        text += "    loss.backward()\n"
    return placed(ast.parse(text).body[0], anchor)


def placed(tree: ast.AST, anchor: ast.AST) -> ast.AST:
    """`tree` with every node at `anchor`: where what a framework does is reported."""
    for node in ast.walk(tree):
        ast.copy_location(node, anchor)
        if hasattr(node, "end_lineno"):
            node.end_lineno, node.end_col_offset = anchor.end_lineno, anchor.end_col_offset
    return tree


def lightning_driver(info, step) -> ast.For | None:
    """`for batch in train_dataloader: loss = module.training_step(batch, 0); loss.backward()`,
    placed at the method's `return` statements, so that what the framework does is reported
    where the user hands it the loss."""
    returns = [n for n in ast.walk(step.node) if isinstance(n, ast.Return) and n.value is not None]
    backward = automatic_optimization(info) and bool(returns)
    anchor = returns[-1] if backward else step.node
    name = _returned_name(returns[-1].value) if backward else "output"
    text = f"for {DRIVER_BATCH} in {DRIVER_LOADER}:\n"
    # `batch_index` is left unbound: one batch stands for all, so `if batch_idx == 0:` in the
    # step is decided by nothing (a literal 0 would decide it: literal_arguments.py).
    text += f"    {name} = {DRIVER_SELF}.{TRAINING_STEP}({DRIVER_BATCH}, batch_index)\n"
    if backward:
        # A dict's "loss" is what Lightning back-propagates; the whole dict carries it.
        text += f"    {name}.backward()\n"
    return placed(ast.parse(text).body[0], anchor)


def _returned_name(value: ast.expr) -> str:
    return value.id if isinstance(value, ast.Name) and value.id.isidentifier() else "loss"
