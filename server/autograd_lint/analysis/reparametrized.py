"""Layers whose weight torch recomputes from their parameters before every call.

A plain `nn.Linear` over data without history saves only its input: its weight is a leaf
the graph does not keep, so an optimizer step between two backward passes through one
retained graph changes nothing that graph needs (torch runs it). `spectral_norm(layer)`
is another layer: it registers a forward pre-hook that computes
`weight = weight_orig / sigma` before every call (torch/nn/utils/spectral_norm.py,
`SpectralNorm.compute_weight`), and that division saves `weight_orig`, a parameter an
optimizer updates in place; the second backward then raises "modified by an inplace
operation" (pytorch/pytorch#55368). `weight_norm` and the `parametrizations` versions do
the same through `torch._weight_norm` or a parametrization's forward.

Which functions do this is data: their rows in library_models/torch.toml carry the effect
`reparametrizes-weight`, and cite the line of torch's source that computes the weight.
The call marks the module it is given (the one it returns: `result-arguments`), and each
call of that module saves its parameters even over plain data (calls.note_weights_saved);
an AG007 through such a node names the library line (library_fits.cited_site).
"""

from __future__ import annotations

import ast
import functools

from .library_distributions import Note
from .library_fits import cited_site
from .values import CONTAINER, NOTHING, Binding

REPARAMETRIZED = "<reparametrized>"  # heap attribute: the module's weight is recomputed


class ReparametrizedMixin:
    @functools.cached_property
    def reparametrizations(self) -> dict:
        """A module's key -> the row that made it recompute its weight at each call."""
        return {}

    def note_reparametrized(self, node: ast.Call, row, args: list) -> None:
        """`spectral_norm(layer)`: from now on `layer` computes its weight at each call."""
        if row.effect("reparametrizes-weight") is None or self.state is None or not node.args:
            return
        layer = args[0]  # one value per written argument (calls.eval_arguments)
        if isinstance(node.args[0], ast.Starred):
            # `spectral_norm(*(layer, "weight"))`: torch's first argument is the unpacked
            # sequence's first element, known when the sequence's parts are.
            if layer.kind != CONTAINER or not layer.parts:
                return
            layer = layer.parts[0]
        key = self.module_key(node.args[0], layer)
        if key is None:
            return
        self.state.heap[(key, REPARAMETRIZED)] = Binding(NOTHING, self.site(node))
        self.reparametrizations[key] = row

    def reparametrization(self, node: ast.AST, module):
        """The row that made this module recompute its weight, or None."""
        if not self.reparametrizations:
            return None  # most code reparametrizes nothing: no key at every module call
        key = self.module_key(node, module)
        if key is None or self.state is None or (key, REPARAMETRIZED) not in self.state.heap:
            return None
        return self.reparametrizations.get(key)

    def note_reparametrized_saves(self, built, row) -> None:
        """The evidence of a node that saved a recomputed weight: the library's line."""
        note = Note(
            (row.target, "reparametrizes-weight"),
            row.says,
            tuple(self.context),
            lambda: cited_site(row),
        )
        self.library_notes.setdefault(built, note)
