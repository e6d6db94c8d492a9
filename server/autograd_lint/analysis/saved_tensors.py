"""Graph nodes that save no tensor for backward: a second backward through them is fine.

torch frees, at a backward, the tensors each node saved for its gradient; a later backward
that reaches a node whose saved tensors were freed raises. A node that saved nothing
(`a + b`, `a - b`: their gradients need no input) can be traversed again, so a graph
built once whose only nodes over the leaves are additions is back-propagated every
iteration without error: DeepXDE's initial-condition values cached with a trainable
constant added to them (lululxvi/deepxde#2077), the "gradient cache" pattern. Such
origins are remembered here and never reported as reached after being freed; the nodes
under them, when they save, are origins of their own and still are.
"""

from __future__ import annotations

import ast
import functools

NOT_SAVING_OPERATORS = (ast.Add, ast.Sub)


class SavedTensorsMixin:
    def note_binary_node(self, op: ast.BinOp, result) -> None:
        """The origins an addition or subtraction makes save nothing (kept by the syntax
        node: every origin made there, in any pass, is such a node)."""
        if isinstance(op.op, NOT_SAVING_OPERATORS) and result.origins:
            self.saves_nothing.add(id(op))

    @functools.cached_property
    def saves_nothing(self) -> set[int]:
        """The ids of the syntax nodes whose origins save no tensor."""
        return set()
