"""AG007's abstract values: what the checker knows about each name.

A value's kind is the one model's (values.py: TENSOR for a known tensor, MODULE, OPTIMIZER;
None when nothing is known); beyond it, AG007 tracks what autograd's version checks need.
A value requires grad (no / maybe / yes), shares a storage (and so a
version counter) with its views, and carries the ids of the saving ops in its history.
Branches are joined with "may" facts: a storage that may be either, a history that may
hold either's ops; "requires grad" stays known only where both branches agree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..values import TENSOR

NO, MAYBE, YES = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Val:
    kind: int | None = None  # values.TENSOR / MODULE / OPTIMIZER, None: unknown
    grad: int = MAYBE
    storage: frozenset = frozenset()  # empty: writes to it are invisible (`.data`, numbers)
    deps: frozenset = frozenset()  # ids of saving ops in its history
    # For a MODULE: "inplace:ReLU", or the op nn.Sigmoid() & co. apply; None: a model.
    module: str | None = None
    items: tuple | None = None  # elements of a tuple/list literal

    @property
    def tensor(self) -> bool:
        return self.kind == TENSOR

    # The checker makes thousands of these per file; `dataclasses.replace` is slow.
    def with_storage(self, storage: frozenset) -> Val:
        return Val(self.kind, self.grad, storage, self.deps, self.module, self.items)

    def with_deps(self, deps: frozenset) -> Val:
        return Val(self.kind, self.grad, self.storage, deps, self.module, self.items)


CONST = Val(grad=NO)


def tensor_kind(known: bool) -> int | None:
    return TENSOR if known else None


@dataclass(eq=False)
class Saved:
    block: object
    op_node: ast.AST
    what: str  # "its result" or "`a`"
    storage: int
    modified: tuple | None = None  # (block, node, label) of the first in-place op
    freed: bool = False


@dataclass
class State:
    env: dict = field(default_factory=dict)

    def copy(self) -> State:
        return State(dict(self.env))


def join_vals(a: Val, b: Val) -> Val:
    if a == b:
        return a
    return Val(
        kind=a.kind if a.kind == b.kind else None,
        grad=a.grad if a.grad == b.grad else MAYBE,
        storage=a.storage | b.storage,
        deps=a.deps | b.deps,
        module=a.module if a.module == b.module else None,
    )


def join(a: State, b: State) -> State:
    env = dict(a.env)
    for key, value in b.env.items():
        mine = env.get(key)
        env[key] = value if mine is None else join_vals(mine, value)
    return State(env)
