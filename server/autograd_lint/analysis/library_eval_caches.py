"""Caches a library module keeps while it evaluates (`caches-while-evaluating` rows).

gpytorch's approximate GPs compute, in eval mode, terms of the predictive distribution
from the model's own parameters on the first call and keep them (`@cached` on the
variational strategy: the variational distribution, the Cholesky factor of the inducing
points' covariance); every later call in eval mode reuses them, graph included. So two
queries each back-propagated to their own inputs raise on the second backward,
although neither query's input is shared (cornellius-gp/gpytorch#2689). In training mode
each call clears the cache first, and so does `train()` (`eval()` only when it leaves
training mode: gpytorch's `Module.train`).

A module of the file whose class derives from such a library class (`class GP(
ApproximateGP)`, through the file's imports and its own base classes) is followed here:
`.eval()` / `.train(False)` puts it in eval mode, `.train()` back; a call in eval mode
adds the kept graph (one origin, made by its first such call, with a note pointing at
the library's cached method) to the result; under `no_grad` the first call keeps a
cache without history, as the library does.
"""

from __future__ import annotations

import ast

from .library_distributions import Note
from .library_fits import cited_site
from .values import NOTHING, Binding, Val

EVALUATING = "<evaluating>"  # heap attribute: the module is in eval mode
CACHE = " (kept while evaluating)"  # ends the heap attribute of the kept graph


def evaluation_row(info, seen=None):
    """The `caches-while-evaluating` row of a class's library bases (its own file's base
    classes followed), or None."""
    from .library_calls import row_for
    from .roles import qualify  # late: roles imports what imports this module

    seen = seen if seen is not None else set()
    seen.add(id(info))
    for base in info.bases:
        row = row_for(qualify(base, info.aliases))
        if row is not None and row.effect("caches-while-evaluating") is not None:
            return row
    for local in info.local_bases:
        if id(local) not in seen:
            found = evaluation_row(local, seen)
            if found is not None:
                return found
    return None


class EvalCacheMixin:
    def switch_mode(self, receiver: Val, method: str, node: ast.Call) -> None:
        """`model.eval()`, `model.train()`, `model.train(False)`: the mode; the cache is
        cleared by `train()`, and by `eval()` only when it leaves training mode."""
        info = self.class_of_ref(receiver.ref) if receiver.ref is not None else None
        if info is None or self.state is None or evaluation_row(info) is None:
            return
        flag = node.args[0] if node.args else None
        evaluating = method == "eval" or (isinstance(flag, ast.Constant) and flag.value is False)
        heap = self.state.heap
        if evaluating and (receiver.ref, EVALUATING) in heap:
            return  # gpytorch's Module.train(False) clears only when leaving training mode
        for key in [k for k in heap if k[0] == receiver.ref and k[1].endswith(CACHE)]:
            del heap[key]
        if evaluating:
            heap[(receiver.ref, EVALUATING)] = Binding(NOTHING, None)
        else:
            heap.pop((receiver.ref, EVALUATING), None)

    def evaluation_cache(self, node: ast.Call, module: Val, result: Val) -> Val:
        """A call of such a module in eval mode: its result reaches the kept graph."""
        info = self.class_of_ref(module.ref) if module.ref is not None else None
        if info is None or self.state is None:
            return result
        heap = self.state.heap
        if (module.ref, EVALUATING) not in heap:
            return result
        row = evaluation_row(info)
        if row is None:
            return result
        effect = row.effect("caches-while-evaluating")
        attribute = f"{', '.join(effect['attributes'])} of {row.target.rpartition('.')[2]}{CACHE}"
        kept = heap.get((module.ref, attribute))
        if kept is None:
            if self.frame.grad_enabled:
                origin = self.new_origin(node, leaf=False, label=effect["attributes"][0])
                made = tuple(self.context)
                self.library_notes[origin] = Note(
                    (row.target, "evaluating"), row.says, made, lambda: cited_site(row)
                )
                value = Val(frozenset({origin}))
            else:
                value = NOTHING  # computed without a graph, and kept so
            heap[(module.ref, attribute)] = Binding(value, self.site(node))
            kept = heap[(module.ref, attribute)]
        if not kept.val.origins or not self.frame.grad_enabled:
            return result
        return Val(result.origins | kept.val.origins, result.kind, result.ref, result.parts)
