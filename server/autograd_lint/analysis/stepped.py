"""AG007 from the interpreter: a backward through a graph whose saved weights an optimizer
step has since updated in place.

A module call over inputs with history saves the module's weights for the input's
gradient. `optimizer.step()` updates the parameters it was given in place, which bumps
their version counters; a later backward that reaches a node built before the step —
because `retain_graph=True` kept it, because it was never back-propagated yet, or
because carried state brings it into the next iteration — finds a saved tensor of the
wrong version and raises "one of the variables needed for gradient computation has been
modified by an inplace operation". Whose parameters an optimizer holds comes from the
`.parameters()` calls that reach its constructor (`calls.new_optimizer`), never from
names; which weights a node saved, from the module it called (`calls.note_weights_saved`).
"""

from __future__ import annotations

import ast

from .model import Role
from .report import RawFinding, RawStep, call_steps, call_text, source_of
from .values import Origin, Site, Stepped

CODE = "AG007"
KIND = "optimizer-step"
ERROR_TEXT = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)


def changed_weights(interp, nodes: list[Origin]) -> list[tuple[Origin, Stepped]]:
    """The graph nodes a backward is about to traverse whose saved weights were stepped."""
    stepped = interp.state.stepped
    if not stepped:
        return []
    freed = interp.state.freed
    found = []
    for origin in nodes:
        owners = interp.weight_saves.get(origin)
        if owners is None or origin in freed:
            continue  # a freed node raises the freed-graph error first (AG001/AG002)
        steps = [stepped[o] for o in owners if o in stepped and stepped[o].seq > origin.seq]
        if steps:
            found.append((origin, min(steps, key=lambda s: s.seq)))
    return found


def library_note_steps(interp, origin: Origin) -> list[RawStep]:
    """Where a library made the node save the weights (spectral_norm's pre-hook line)."""
    note = interp.library_notes.get(origin)
    site = note.locate() if note is not None else None
    return [RawStep(site, note.message, Role.NOTE)] if site is not None else []


def ownership_steps(interp, origin: Origin, step: Stepped) -> list[RawStep]:
    """Where the optimizer got the saved weights: the one `.parameters()` call of their
    module in the analysis (with two, which one reached this optimizer is not said)."""
    owners = {o for o in interp.weight_saves.get(origin, ()) if interp.state.stepped.get(o) is step}
    sites = {
        id(leaf.site.node): leaf.site for leaf, o in interp.param_owners.items() if o in owners
    }
    if len(sites) != 1:
        return []
    (site,) = sites.values()
    message = f"`{source_of(site)}` reach the optimizer here: its step updates them"
    return [RawStep(site, message, Role.NOTE)]


def report(interp, call: ast.Call, changed: list[tuple[Origin, Stepped]]) -> None:
    origin, step = min(changed, key=lambda pair: pair[0].seq)
    earlier_pass = origin.context != tuple(interp.context)
    when = " in iteration 1" if earlier_pass and origin.context else ""
    report_step(
        interp,
        origin,
        step,
        Site(interp.frame.block, call),
        built=f"graph built here{when}: `{source_of(origin.site)}` saves the module's weights",
        fails=f"`{call_text(call)}` needs the saved weights and raises: {ERROR_TEXT}",
        reached="in a later iteration" if earlier_pass else "later",
        chain=interp.call_chain,
    )


def report_step(interp, origin: Origin, step: Stepped, fails_site: Site, *, built: str,
                fails: str, reached: str, chain=()) -> None:  # fmt: skip
    """The AG007 of a backward (at `fails_site`) that reaches weights `step` updated in
    place after `origin` saved them; `built`/`fails` word the two ends of the story."""
    steps = [
        RawStep(origin.site, built, Role.BUILT),
        *library_note_steps(interp, origin),
        *ownership_steps(interp, origin, step),
        RawStep(
            step.site,
            f"`{call_text(step.site.node)}` updates those weights in place",
            Role.NOTE,
        ),
        *call_steps(chain, "the failing backward runs inside"),
        RawStep(fails_site, fails, Role.FAILS),
    ]
    message = (
        f"`{call_text(step.site.node)}` updates in place the weights that the graph built at "
        f"line {{0}} saved for backward, and the backward at line {{1}} reaches that graph "
        f'{reached}: it will raise "{ERROR_TEXT}"; back-propagate before the step, or build '
        "the graph again after it (detach what carries it across the step)"
    )
    finding = RawFinding(CODE, KIND, message, [origin.site, fails_site], step.site, steps)
    interp.reporter.findings.setdefault(finding.key, finding)
