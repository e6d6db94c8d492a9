"""The quieter graph-lifetime mistakes: history that outlives its iteration.

AG003: a value (a running total, a list of losses) keeps every iteration's graph
alive because no single backward ever consumes it across iterations — it only
grows. AG004: `retain_graph=True` on a backward whose graph the next iteration reaches
(it hides AG001 and makes each step slower than the last), or on a backward that
no later backward needs (judged in `finish`: one after the loop counts).

The interpreter calls the `on_*` hooks; `finish` runs once per analysis root.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .model import Role
from .report import (
    RawFinding,
    RawStep,
    call_text,
    loop_state_names,
    rule_message,
    source_of,
)
from .retained_steps import check_loop_end as check_retained_steps
from .values import CONTAINER, LoopPass, Site


@dataclass(eq=False)
class Accumulator:
    name: str
    site: Site  # the statement that grows it
    loop: Site
    first_pass: frozenset
    second_pass: frozenset
    is_container: bool


@dataclass(eq=False)
class Retained:
    site: Site
    context: tuple
    origins: frozenset
    frame: object
    used: bool = False


@dataclass(eq=False)
class LifetimeTracker:
    backward_sets: list = field(default_factory=list)
    accumulators: dict = field(default_factory=dict)
    retained: list = field(default_factory=list)
    # Retained graphs of a loop's last pass that nothing in that pass used: judged at the
    # end, since a backward after the loop (a generator step after the critic loop of a
    # WGAN-GP, through the last critic iteration's `fake`) may still need them.
    unneeded: list = field(default_factory=list)
    findings: list = field(default_factory=list)

    # -- hooks ----------------------------------------------------------------------------
    def on_backward(self, interp, call: ast.Call, nodes: list, explicit_retain: bool) -> None:
        origins = frozenset(nodes)
        self.note_backward(interp, origins)
        for record in self.retained:
            if not record.used and record.origins & origins:
                record.used = True
        if not explicit_retain:
            return
        context = tuple(interp.context)
        carried = [
            o
            for o in nodes
            if len(o.context) == len(context)
            and o.context != context
            and o.context[:-1] == context[:-1]
        ]
        site = interp.site(call)
        if carried and context and context[-1].number == 2:
            self.findings.append(self._retained_carried(interp, call, site, carried))
        self.retained.append(Retained(site, context, origins, interp.frame))

    def note_backward(self, interp, origins: frozenset) -> None:
        """Any backward, also one whose target we cannot pin down (a list element)."""
        self.backward_sets.append((origins, tuple(interp.context)))
        for loop in interp.loop_frames:
            loop.trains = True

    def on_loop_end(self, interp, loop, end_state) -> None:
        """After pass 2 of a loop: which bindings grew over both passes?"""
        if not loop.trains:
            # Only training loops: an evaluation loop that forgot `no_grad` is a lesser
            # cost, and loops that merely shuffle modules around are not worth a warning.
            return
        first = loop_pass(loop.node, 1)
        second = loop_pass(loop.node, 2)
        check_retained_steps(interp, self.retained, second, end_state)  # retained_steps.py
        live = None
        for name, binding in end_state.env.items():
            if binding.site is None:
                continue
            # Nodes only assumed (an unknown call's result, `optimizer_cls(...)`) are no
            # graph to keep alive: an accumulation of them alone says nothing.
            nodes = [o for o in binding.val.origins if not o.leaf and not o.assumed]
            p1 = frozenset(o for o in nodes if first in o.context)
            if not p1:
                continue
            p2 = frozenset(o for o in nodes if second in o.context)
            if not p2:
                continue
            if live is None:
                live = loop_state_names(loop.node)
            if name not in live:
                continue
            key = (id(binding.site.node), name)
            self.accumulators.setdefault(
                key,
                Accumulator(
                    name,
                    binding.site,
                    Site(loop.block, loop.node),
                    p1,
                    p2,
                    binding.val.kind == CONTAINER,
                ),
            )
        # A retain_graph=True that nothing in its own step needed (so far: see finish).
        for record in self.retained:
            if (
                not record.used
                and record.frame is interp.frame
                and record.context
                and record.context[-1] == second
                and record not in self.unneeded
            ):
                self.unneeded.append(record)

    def finish(self, interp, escaping: frozenset, parameters: set[str]) -> list[RawFinding]:
        for record in self.unneeded:
            if not record.used:
                self.findings.append(self._retained_unneeded(record))
                record.used = True  # report once
        self.unneeded.clear()
        for accumulator in self.accumulators.values():
            if accumulator.name in parameters:
                continue
            if (accumulator.first_pass | accumulator.second_pass) & escaping:
                continue
            if any(self._consumes(accumulator, s, c) for s, c in self.backward_sets):
                continue
            self.findings.append(self._accumulated(accumulator))
        return self.findings

    @staticmethod
    def _consumes(acc: Accumulator, origins: frozenset, context: tuple) -> bool:
        """Whether a backward uses the accumulated graphs, so keeping them is the point."""
        if origins & acc.first_pass and origins & acc.second_pass:
            return True  # one backward over several iterations (or AG001 says it fails)
        inside = any(p.loop is acc.loop.node for p in context)
        return not inside and bool(origins & (acc.first_pass | acc.second_pass))

    # -- findings -------------------------------------------------------------------------
    @staticmethod
    def _accumulated(acc: Accumulator) -> RawFinding:
        origin = min(acc.first_pass, key=lambda o: o.seq)
        how = "collects" if acc.is_container else "accumulates"
        fix = (
            f"store `.detach()`ed values (or `.item()`) in `{acc.name}`"
            if acc.is_container
            else f"accumulate `.item()` (or `.detach()`) into `{acc.name}`"
        )
        steps = [
            RawStep(origin.site, f"graph built here: `{source_of(origin.site)}`", Role.BUILT),
            RawStep(
                acc.site,
                f"`{acc.name}` {how} it and keeps it alive into every later iteration",
                Role.CARRIED,
                acc.name,
            ),
        ]
        kind = "container" if acc.is_container else "running-total"
        message = rule_message("AG003", kind, name=acc.name, how=how, fix=fix)
        return RawFinding(
            "AG003",
            kind,
            message,
            [],
            acc.site,
            steps,
            loop=acc.loop,
            extra={"carried": [acc.name]},
        )

    @staticmethod
    def _retained_carried(interp, call, site: Site, carried: list) -> RawFinding:
        origin = min(carried, key=lambda o: o.seq)
        steps = [
            RawStep(
                origin.site,
                f"graph built here in iteration 1: `{source_of(origin.site)}`",
                Role.BUILT,
            ),
            RawStep(
                site,
                f"`{call_text(call)}` with `retain_graph=True` keeps it, and every later "
                "iteration's backward walks it again",
                Role.FAILS,
            ),
        ]
        message = rule_message("AG004", "retain-carried")
        return RawFinding("AG004", "retain-carried", message, [], site, steps)

    @staticmethod
    def _retained_unneeded(record: Retained) -> RawFinding:
        steps = [
            RawStep(
                record.site,
                f"`{call_text(record.site.node)}` keeps its graph, but no later backward uses it",
                Role.FAILS,
            )
        ]
        message = rule_message("AG004", "retain-unneeded")
        return RawFinding("AG004", "retain-unneeded", message, [], record.site, steps)


def loop_pass(node, number: int) -> LoopPass:
    return LoopPass(node, number)
