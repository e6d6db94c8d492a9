"""Lightning before 1.1 with several optimizers: for every batch and every optimizer, it
calls `training_step(batch, batch_idx, optimizer_idx)`, back-propagates the loss that
returns, and then calls the module's `optimizer_step(epoch, batch_idx, optimizer,
optimizer_idx, ...)` hook with that optimizer (whose default steps it).

Read from pytorch-lightning 0.8.5, `pytorch_lightning/trainer/training_loop.py`:
`run_training_batch` loops `for opt_idx, optimizer in self._get_optimizers_iterable()`
(line 614), runs `optimizer_closure` — `training_forward`, which passes `opt_idx` when
`training_step` has a parameter named `optimizer_idx` (line 912), then the backward of its
loss (line 817) — and `run_batch_backward_pass` -> `call_optimizer_step`, which calls
`model.optimizer_step(self.current_epoch, batch_idx, optimizer, opt_idx, lambda_closure,
...)` (line 749). The same order holds up to 1.0 (1.0.0's training_loop.py: 666, then
715); from 1.1 on the hook runs training_step inside the closure it is given. Lightning 2
refuses `optimizer_idx` outright, so such a module was written for the old loop: that is
the evidence, with the parameter's name being the one the framework itself looks for.

The driver is a loop of the interpreter like any other (frameworks.py): an override of
`optimizer_step` that back-propagates something it kept in `self` after `optimizer.step()`
is then a backward through a graph whose saved weights that step changed (AG007), the
StyleGAN R1 regularizer of Lightning issue 2820.
"""

from __future__ import annotations

import ast

OPTIMIZER_INDEX = "optimizer_idx"  # the name Lightning < 2 looks for (training_loop.py:912)
CONFIGURE = "configure_optimizers"
HOOK = "optimizer_step"
SOURCE = (
    "pytorch_lightning/trainer/training_loop.py (0.8.5): run_training_batch line 614, "
    "training_step and its backward (912, 817), then model.optimizer_step (749)"
)
CALLS = (
    "Lightning (before 1.1) calls `training_step(batch, batch_idx, optimizer_idx)`, "
    "back-propagates its loss, then calls `optimizer_step` with that optimizer, for each "
    f"optimizer `configure_optimizers` returns ({SOURCE})"
)
FREES = "Lightning back-propagates the loss `training_step` returns"
FAILS = FREES + " and goes through the freed graph again"
PREFIX = FREES + " — "


def takes_optimizer_index(step) -> bool:
    arguments = step.node.args
    return any(a.arg == OPTIMIZER_INDEX for a in [*arguments.posonlyargs, *arguments.args])


def optimizer_count(info) -> int | None:
    """How many optimizers `configure_optimizers` returns: the length of the list (or of
    the first list of `[optimizers], [schedulers]`) every `return` of it spells out."""
    shape = _returned_shape(info)
    return shape[0] if shape is not None else None


def _returned_shape(info) -> tuple[int, bool] | None:
    """(the optimizers' count, whether every `return` is `[optimizers], [schedulers]`), or
    None when the returns do not agree on both."""
    method = info.find_method(CONFIGURE)
    if method is None:
        return None
    shapes = set()
    for node in ast.walk(method.node):
        if isinstance(node, ast.Return):
            value = node.value
            pair = (
                isinstance(value, ast.Tuple)
                and len(value.elts) == 2
                and isinstance(value.elts[0], ast.List)
            )
            if pair:
                value = value.elts[0]
            if not isinstance(value, (ast.List, ast.Tuple)) or any(
                isinstance(e, ast.Starred) for e in value.elts
            ):
                return None
            shapes.add((len(value.elts), pair))
    return shapes.pop() if len(shapes) == 1 else None


def optimizer_loop(info, step, module: str, batch: str, loader: str) -> ast.For | None:
    """The legacy loop over `info`'s hooks, or None when the class is not written for it.

    `for batch in loader:` then, per optimizer i: `loss = module.training_step(batch,
    batch_index, i)`, `loss.backward()`, and `module.optimizer_step(0, batch_index,
    optimizers[i], i)` (or `optimizers[i].step()` without an override), each statement
    placed at the user's line it stands for. `batch_index` is left unbound: one batch
    stands for all, so no `if batch_idx == 0:` may be decided by it."""
    shape = _returned_shape(info) if takes_optimizer_index(step) else None
    if shape is None or not shape[0]:
        return None
    count, pair = shape
    returns = [n for n in ast.walk(step.node) if isinstance(n, ast.Return) and n.value is not None]
    hook = info.methods.get(HOOK)  # an override in the class itself
    at_return = returns[-1] if returns else step.node
    at_hook = _header(hook.node) if hook is not None else at_return
    # `[optimizers], [schedulers]`: Lightning steps the first list's optimizers.
    returned = f"{module}.{CONFIGURE}()" + ("[0]" if pair else "")
    body = [(f"optimizers = {returned}", at_return)]
    for index in range(count):
        body.append((f"loss = {module}.training_step({batch}, batch_index, {index})", at_return))
        if returns:
            body.append(("loss.backward()", at_return))
        if hook is not None:
            call = f"{module}.{HOOK}(0, batch_index, optimizers[{index}], {index})"
            body.append((call, at_hook))
        else:
            body.append((f"optimizers[{index}].step()", at_return))
    text = f"for {batch} in {loader}:\n" + "".join(f"    {line}\n" for line, _ in body)
    from .frameworks import placed  # late: frameworks imports this module

    loop = placed(ast.parse(text).body[0], at_return)
    for statement, (_, anchor) in zip(loop.body, body):
        placed(statement, anchor)
    return loop


def _header(definition: ast.FunctionDef) -> ast.AST:
    """A location on the `def name` of a method: where the framework's call lands."""
    spot = ast.Name(definition.name, ast.Load())
    spot.lineno = spot.end_lineno = definition.lineno
    spot.col_offset = definition.col_offset
    spot.end_col_offset = definition.col_offset + len("def ") + len(definition.name)
    return spot
