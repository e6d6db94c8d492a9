"""Calls into libraries modelled as data (analysis/library_models/): what a row says the
call does replaces the policy for calls we cannot see.

`Variable(t)` has no history, `accelerator.prepare(m, opt)` hands its arguments back,
`from_pretrained(...)` makes a module, `accelerator.backward(loss)` back-propagates, and
`LBFGS.step(closure)` calls the closure several times within one step (run here as a loop
of two passes, so a graph built outside the closure is back-propagated twice, as torch
does). Rows are found by qualified name, through the file's imports.
"""

from __future__ import annotations

import ast
import logging

from . import library_models
from .library_distributions import DistributionMixin, Note, source_site
from .library_eval_caches import EvalCacheMixin
from .library_fits import HeldMixin, holds_what_it_is_given
from .library_layers import (
    SummaryState,
    bound_inputs,
    current_summaries,
    is_library_module,
    summary_state,
)
from .values import CONTAINER, EMPTY, MODULE, NOTHING, OBJECT, Binding, Val

log = logging.getLogger(__name__)


def row_for(qualified: str | None):
    """The library model row for a qualified name, or None (never raises)."""
    if not qualified:
        return None
    try:
        return library_models.lookup(qualified)
    except Exception:  # noqa: BLE001 - a broken data file costs its rows, nothing more
        log.exception("autograd-lint: library models could not be read")
        return None


class LibraryMixin(DistributionMixin, HeldMixin, EvalCacheMixin):
    def modelled_result(self, node: ast.Call, qualified: str | None, args: list[Val]):
        """What a modelled library call returns, or None when no row models its result."""
        row = row_for(qualified)
        if row is None:
            return None
        self.note_reparametrized(node, row, args)  # spectral_norm(layer): reparametrized.py
        backward = row.effect("backward-of-argument")
        if backward is not None:
            position = backward.get("position", 0)
            if position < len(node.args):
                self.backward(node, args[position], node)
        if row.effect("backpropagates-held") is not None:  # `fit_gpytorch_mll(mll)`
            position = row.effect("backpropagates-held").get("position", 0)
            return self.fit_held(node, row, args[position] if position < len(args) else None)
        if row.effect("caches-lazily") is not None:
            return self.new_distribution(node, qualified, args)  # a torch.distributions family
        if row.effect("result-no-history") is not None:
            return NOTHING
        if row.effect("result-module") is not None:
            return Val(EMPTY, MODULE, None)
        if row.effect("result-arguments") is not None:
            if len(args) == 1:
                return args[0]
            return Val(EMPTY.union(*(a.origins for a in args)), CONTAINER, None, tuple(args))
        return NOTHING if backward is not None else None

    def calls_closure_repeatedly(self, qualified: str | None) -> bool:
        row = row_for(qualified)
        effect = row.effect("calls-argument") if row is not None else None
        return effect is not None and effect.get("times") == "repeatedly"

    def call_closure_repeatedly(self, node: ast.Call, closure) -> None:
        """The closure called in a loop of its own: two abstract passes, like a `for`."""
        self.run_library_loop(node, 2, lambda: self.call_function(node, closure, [], None))


EXTERN = "extern"  # the first element of the key of an object of a class we cannot see


def extern_ref(qualified: str, node: ast.AST, context) -> tuple:
    """The key of an object of the library class `qualified` made at `node`."""
    return (EXTERN, qualified, id(node), tuple(context))


def is_extern(ref) -> bool:
    return isinstance(ref, tuple) and ref[:1] == (EXTERN,)


def is_reset(qualified: str) -> bool:
    """`functional.reset_net`, `snn.Synaptic.detach_hidden`: a reset a layer row names."""
    owner, _, method = qualified.rpartition(".")
    effect = kept_state(owner)
    return qualified in reset_functions() or (
        effect is not None and f".{method}" in effect.get("reset-by", ())
    )


STATE = " (layer state)"  # ends the heap attribute of what a library layer keeps


def state_attribute(qualified: str, effect) -> str:
    """`mem of Leaky (layer state)`: how the evidence names the state a layer keeps."""
    kept = ", ".join(effect.get("attributes", ())) or "state"
    return f"{kept} of {qualified.rpartition('.')[2]}{STATE}"


def kept_state(qualified: str | None):
    """The `keeps-state` effect of a library layer class, or None."""
    row = row_for(qualified)
    return row.effect("keeps-state") if row is not None else None


def layer_state(qualified: str | None):
    """What a library layer keeps between calls: its row's keeps-state effect, else what
    its source says (library_layers.py), else None."""
    return kept_state(qualified) or summary_state(qualified)


def kept_site(qualified: str, effect):
    """Where a keeps-state row's layer assigns what it keeps (`self.mem = ...` in
    snntorch's leaky.py), as its source's summary says; None when it cannot be read."""
    try:
        state = current_summaries().class_state(qualified)
    except Exception:  # noqa: BLE001 - evidence we cannot find costs only its step
        log.exception("autograd-lint: could not summarise %s", qualified)
        return None
    kept = list(state.kept) if state else []
    # The row's name for it, else what the source keeps (spikingjelly's `v` lives in
    # `self._memories`).
    kept = [k for k in kept if k.name in effect.get("attributes", ())] or kept
    return source_site(kept[0].path, kept[0].line) if kept else None


def reset_functions() -> frozenset[str]:
    """Qualified library functions that reset every stateful layer of a model they get
    (`snntorch.utils.reset(net)`, spikingjelly's `functional.reset_net(net)`)."""
    global _RESETS
    if _RESETS is None:
        found = set()
        try:
            for row in library_models.rows():
                effect = row.effect("keeps-state")
                for name in effect.get("reset-by", ()) if effect is not None else ():
                    if not name.startswith("."):
                        found.add(name)
        except Exception:  # noqa: BLE001 - a broken data file costs its rows, nothing more
            log.exception("autograd-lint: library models could not be read")
        _RESETS = frozenset(found)
    return _RESETS


_RESETS: frozenset[str] | None = None


class LayerStateMixin:
    def stateful_layer(self, node: ast.Call, qualified: str) -> Val | None:
        """A library layer that keeps state between calls (a spiking neuron): a module
        whose object carries its last output's graph into its next call."""
        if layer_state(qualified) is None and not is_library_module(qualified):
            return None
        return Val(EMPTY, MODULE, extern_ref(qualified, node, self.context))

    def carry_layer_state(self, module: Val, args: list[Val], result: Val) -> Val:
        ref = module.ref
        if not is_extern(ref) or self.state is None:
            return result
        effect = layer_state(ref[1])
        if effect is None:
            return result
        if isinstance(effect, SummaryState):
            return self.carry_summarised_state(ref, effect, args, result)
        if len(args) > 1 and effect.get("unless-arguments"):
            return result  # the state is passed in by the caller (`lif(cur, mem)`)
        attribute = state_attribute(ref[1], effect)
        stored = self.state.heap.get((ref, attribute))
        if stored is not None:
            result = Val(result.origins | stored.val.origins)
        site = self.site(self.call_site)
        self.state.heap[(ref, attribute)] = Binding(Val(result.origins), site)
        row = row_for(ref[1])
        note = Note((ref[1], "keeps-state"), row.says, ref[3], lambda: kept_site(ref[1], effect))
        given = EMPTY.union(*(a.origins for a in args))
        for origin in result.origins - given:
            self.library_notes.setdefault(origin, note)
        return result

    def carry_summarised_state(self, ref, effect: SummaryState, args, result: Val) -> Val:
        """A layer whose source keeps attributes on self (EvolveGCNO's weight): this call
        reads what the last one kept and keeps its own graph there; from its inputs only,
        what the inputs carry (token ids: nothing)."""
        heap = self.state.heap
        given = EMPTY.union(*(a.origins for a in args))
        before = EMPTY.union(
            *(b.val.origins for k in effect.kept if (b := heap.get((ref, k.name))) is not None)
        )
        bound = bound_inputs(self.call_site, args, effect.parameters)
        site = self.site(self.call_site)
        cls = effect.qualified.rpartition(".")[2]
        notes = self.library_notes
        for k in effect.kept:
            if k.with_module:
                kept = Val(result.origins)
            elif bound is None or "*" in k.inputs:
                kept = Val(given)
            else:  # what the arguments it is computed from carry (GCNConv: the edges)
                kept = Val(EMPTY.union(*(v.origins for n in k.inputs for v in bound.get(n, ()))))
            heap[(ref, k.name)] = Binding(kept, site)
            what = "its parameters" if k.with_module else "its input"
            note = Note(
                (effect.qualified, k.name),
                f"`{cls}.forward` keeps `self.{k.name}`, computed from {what}, and reads it "
                f"again in the next call (line {k.read_line})",
                ref[3],
                lambda k=k: source_site(k.path, k.line),
            )
            for origin in kept.origins - given:
                notes.setdefault(origin, note)
        if any(not o.leaf for o in before):
            # Fed its kept state, which has history, the layer saves its weights for its
            # gradient even over plain data (EvolveGCNO's GRU over the last weight): an
            # optimizer step before that graph is back-propagated again changes them.
            owners = {o for o in self.receivers if o is not None} | {ref}
            for origin in result.origins - given:
                if not origin.leaf and origin.site.node is self.call_site:
                    self.weight_saves[origin] = self.weight_saves.get(origin, frozenset()) | owners
        return Val(result.origins | before) if before else result

    def library_call(self, node: ast.Call, qualified: str, args=None) -> Val | None:
        """`snn.Leaky(...)`, `functional.reset_net(model)`, `snn.Synaptic.detach_hidden()`:
        a stateful layer, or a reset of every layer (more than one may be reset: the safe
        side for findings). `args`: the arguments, when the caller evaluated them already."""
        row = row_for(qualified)
        if row is not None and row.effect("result-leaf") is not None:  # `dde.Variable(1.5)`
            if args is None:
                self.eval_arguments(node)
            return Val(frozenset({self.new_origin(node, leaf=True)}))
        layer = self.stateful_layer(node, qualified)
        resets = layer is None and is_reset(qualified)
        if layer is None and not resets and holds_what_it_is_given(qualified):
            # `dde.icbc.IC(geom, func, ...)`: an object a library's fit loop reaches.
            layer = Val(EMPTY, OBJECT, extern_ref(qualified, node, self.context))
        if layer is None and not resets:
            return None
        if args is None:
            args = self.eval_arguments(node)
        if resets:
            self.reset_layer_state()
            return NOTHING
        return self.hold_arguments(node, layer, qualified, args)  # library_fits.py

    def library_result(self, node, receiver: Val, method: str, args: list[Val]) -> Val | None:
        """A method of a library object a row models: `accelerator.prepare(m, opt)` hands
        its arguments back, `lif.reset_mem()` forgets the layer's state."""
        ref = receiver.ref
        if not is_extern(ref):
            return None
        effect = layer_state(ref[1])
        if effect is not None and f".{method}" in effect.get("reset-by", ()):
            self.reset_layer_state(ref)
            if isinstance(effect, SummaryState):  # its attributes are the object's own
                for k in effect.kept:
                    self.state.heap.pop((ref, k.name), None)
            return NOTHING
        fit = self.library_fit(node, receiver, method)  # `trainer.train()`
        if fit is not None:
            return fit
        return self.modelled_result(node, f"{ref[1]}.{method}", args)

    def reset_layer_state(self, ref=None) -> None:
        """Forget what stateful layers keep: one object's (`lif.reset_mem()`), or every
        layer's (`functional.reset_net(model)` resets all of a model's layers)."""
        if self.state is None:
            return
        heap = self.state.heap
        for key in [k for k in heap if k[1].endswith(STATE) and (ref is None or k[0] == ref)]:
            del heap[key]
