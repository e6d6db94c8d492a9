"""Objects the file builds, known from their constructors resolved through its imports.

`opt = torch.optim.Adam(model.parameters())`, `self.scaler = torch.amp.GradScaler()`: the
constructor, qualified through the file's imports (`from torch import optim`, `import
torch.optim as o`, `from torch.optim import Adam as A`), says what the assigned path holds,
and the `.parameters()` in the optimizer's first argument which models it steps. This is
evidence about the value (what made it), never about what the user called it; AG005 and
AG007 ask it beside the use evidence of `roles.py`.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from .. import roles
from .. import torch_api as api
from ..exprs import walk
from ..name_fallback import OPTIMIZER_ROLE, SCALER_ROLE
from .scopes import STATEMENT_FIELDS, dotted_name, last_part

# torch.cuda.amp / torch.amp / torch.cpu.amp GradScaler, FSDP's ShardedGradScaler.
SCALER_CLASSES = frozenset({"GradScaler", "ShardedGradScaler"})


class Constructed(NamedTuple):
    path: str  # what the result was assigned to: `opt`, `self.opt_g`
    kind: str  # OPTIMIZER_ROLE or SCALER_ROLE
    models: tuple[str, ...]  # an optimizer's: the receivers of `.parameters()` it is given


def constructor_kind(callee: str, aliases: dict[str, str]) -> str | None:
    """What calling `callee` (as spelled at the call) builds, from its qualified name."""
    qualified = roles.qualify(callee, aliases)
    last = last_part(qualified)
    if last in SCALER_CLASSES:
        return SCALER_ROLE
    if last in api.OPTIMIZER_CLASSES:
        return OPTIMIZER_ROLE
    # `torch.optim.<Class>` itself, not `torch.optim.lr_scheduler.StepLR` or swa_utils.
    if qualified.startswith("torch.optim.") and qualified.count(".") == 2 and last[:1].isupper():
        return OPTIMIZER_ROLE
    return None


def spellings(aliases: dict[str, str]) -> frozenset[str]:
    """Words one of whose presence in a block's text lets it hold a constructor call: the
    class names, and the local names the file imported them under (`A` for Adam)."""
    found = set(api.OPTIMIZER_CLASSES) | SCALER_CLASSES
    found.update(local for local, dotted in aliases.items() if constructor_kind(dotted, {}))
    return frozenset(found)


def constructed(statements, aliases: dict[str, str]) -> list[Constructed]:
    """Every `path = <optimizer or scaler constructor>(...)` in the statements, at any depth."""
    found: list[Constructed] = []
    for node in statements_in(statements):
        if True:
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets = [node.target]
            else:
                continue
            value = node.value
            if not isinstance(value, ast.Call):
                continue
            callee = dotted_name(value.func)
            kind = constructor_kind(callee, aliases) if callee is not None else None
            if kind is None:
                continue
            models = _stepped_models(value) if kind == OPTIMIZER_ROLE else ()
            for target in targets:
                path = dotted_name(target)
                if path is not None:
                    found.append(Constructed(path, kind, models))
    return found


def statements_in(statements):
    """Every statement among `statements` and inside them (bodies of loops, branches,
    functions, classes): assignments are statements, so expressions need no walk."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        yield node
        for name in STATEMENT_FIELDS:
            todo.extend(getattr(node, name, None) or ())


def _stepped_models(call: ast.Call) -> tuple[str, ...]:
    """`Adam(model.parameters())`, `Adam(params=list(net.parameters()))`,
    `Adam(chain(g.parameters(), d.parameters()))`: the receivers of the parameter methods
    in the first argument (a list of param-group dicts names none: which is unknown)."""
    first = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "params":
            first = keyword.value
    if first is None or isinstance(first, (ast.List, ast.Dict)):
        return ()
    models = []
    for node in walk(first):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in api.PARAMETER_METHODS
        ):
            model = dotted_name(node.func.value)
            if model is not None and model not in models:
                models.append(model)
    return tuple(models)


def block_constructed(block, aliases: dict[str, str], words: frozenset[str]) -> list:
    """`constructed` over one block; a block whose text names no constructor is not walked."""
    if block.error is not None or "(" not in block.text:
        return []
    text = block.text
    if not any(word in text for word in words):
        return []
    return constructed(block.statements, aliases)
