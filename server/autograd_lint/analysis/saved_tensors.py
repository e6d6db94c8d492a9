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

NOT_SAVING_OPERATORS = (ast.Add, ast.Sub)


class SavedTensorsMixin:
    def note_binary_node(self, op: ast.BinOp, result) -> None:
        """The origin an addition or subtraction made saves nothing."""
        if isinstance(op.op, NOT_SAVING_OPERATORS):
            saves_nothing = self.saves_nothing()
            for origin in result.origins:
                if origin.site.node is op and not origin.leaf:
                    saves_nothing.add(origin)

    def saves_nothing(self) -> set:
        found = self.__dict__.get("_saves_nothing")
        if found is None:
            found = self.__dict__["_saves_nothing"] = set()
        return found
