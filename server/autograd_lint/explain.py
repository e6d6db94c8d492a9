"""Turn a finding into a short markdown story: what carries the graph, what frees it, what fails.

Shared by every front-end that explains a finding (LSP hover, CLI `--explain`). It reads
only the finding model and the rule registry, so it never pulls in the analysis engine.
"""

from __future__ import annotations

import os

from .analysis.model import Finding, Role, Step
from .rules import RULES

SECOND_BACKWARD_ERROR = "RuntimeError: Trying to backward through the graph a second time"

_ROLE_LABELS = {
    Role.BUILT: "graph built",
    Role.CARRIED: "carried over",
    Role.STORED: "stored",
    Role.SHARED: "shared",
    Role.CALL: "call",
    Role.FREED: "freed",
    Role.FAILS: "fails",
    Role.NOTE: "note",
}


def explain(finding: Finding, *, focus: Step | None = None) -> str:
    """Markdown for one finding; `focus` marks the evidence step the reader pointed at."""
    rule = RULES.get(finding.code)
    title = f"**{finding.code}**" + (f" {rule.name}" if rule else "")
    parts = [f"{title}: {finding.message}"]
    story = _story(finding)
    if story:
        parts.append(story)
    if finding.evidence:
        parts.append(_evidence_list(finding, focus))
    retain = _retain_graph_note(finding)
    if retain:
        parts.append(retain)
    fix = _fix(finding)
    if fix:
        parts.append(f"**Fix:** {fix}")
    if rule:
        parts.append(f"[{finding.code} documentation]({rule.docs_url})")
    return "\n\n".join(parts)


def _where(step: Step, finding: Finding) -> str:
    line = f"line {step.span.start.line}"
    if step.path and step.path != finding.path:
        return f"{line} of `{os.path.basename(step.path)}`"
    return line


def _named(step: Step | None, fallback: str) -> str:
    return f"`{step.name}`" if step is not None and step.name else fallback


def _first(finding: Finding, role: Role) -> Step | None:
    steps = finding.steps(role)
    return steps[0] if steps else None


def _failing_backward(finding: Finding) -> str:
    fails = _first(finding, Role.FAILS)
    line = fails.span.start.line if fails else finding.span.start.line
    return f"the `backward()` at line {line}"


def _freeing_backward(finding: Finding) -> str | None:
    freed = _first(finding, Role.FREED)
    return f"the `backward()` at {_where(freed, finding)}" if freed else None


def _story(finding: Finding) -> str:
    if finding.code == "AG001":
        return _carried_story(finding)
    if finding.code == "AG002":
        return _shared_story(finding)
    return ""


def _carried_story(finding: Finding) -> str:
    built = _first(finding, Role.BUILT)
    carried = _first(finding, Role.CARRIED)
    stored = _first(finding, Role.STORED)
    loop = f" (the loop at line {finding.loop.start.line})" if finding.loop else ""
    if carried is not None:
        how = (
            f"{_named(carried, 'A value')} still holds the autograd graph of the previous "
            f"iteration when it is reused at {_where(carried, finding)}{loop}, so each new "
            f"graph is chained onto the old one."
        )
    elif stored is not None:
        how = (
            f"{_named(stored, 'An attribute')} keeps a graph-carrying value on the object "
            f"({_where(stored, finding)}), so the next call{loop} builds on the graph of the "
            f"previous one."
        )
    elif built is not None:
        how = (
            f"The graph of {_named(built, 'this value')} is built once at "
            f"{_where(built, finding)}, and every iteration{loop} back-propagates through it."
        )
    else:
        how = f"A graph built in an earlier iteration{loop} is reached again."
    freed = _freeing_backward(finding)
    frees = f"{freed[0].upper()}{freed[1:]} frees its saved tensors; " if freed else ""
    return (
        f"{how} {frees}{_failing_backward(finding)} then reaches that graph again in the next "
        f"iteration and PyTorch raises `{SECOND_BACKWARD_ERROR}`."
    )


def _shared_story(finding: Finding) -> str:
    shared = _first(finding, Role.SHARED)
    built = _first(finding, Role.BUILT)
    source = shared or built
    if source is not None:
        how = (
            f"{_named(source, 'One value')} ({_where(source, finding)}) feeds both losses, "
            f"so their graphs share nodes."
        )
    else:
        how = "Two backward passes in the same step go through one shared graph."
    freed = _freeing_backward(finding) or "the first `backward()`"
    return (
        f"{how} {freed[0].upper()}{freed[1:]} frees the saved tensors of the shared part; "
        f"{_failing_backward(finding)} needs them again and PyTorch raises "
        f"`{SECOND_BACKWARD_ERROR}`."
    )


def _evidence_list(finding: Finding, focus: Step | None) -> str:
    rows = []
    for number, step in enumerate(finding.evidence, 1):
        label = _ROLE_LABELS.get(step.role, step.role.value)
        row = f"{number}. *{label}*, {_where(step, finding)}: {step.message}"
        if focus is not None and step == focus:
            row = f"{number}. **{label}, {_where(step, finding)}: {step.message}** (here)"
        rows.append(row)
    return "\n".join(rows)


def _retain_graph_note(finding: Finding) -> str:
    if finding.code == "AG001":
        return (
            "**Why not `retain_graph=True`?** It silences this error by keeping every "
            "iteration's graph alive: memory use and the time of each `backward()` grow with "
            "every step. Once an optimizer has updated the weights in place, the old graph is "
            "also stale, and the error turns into `one of the variables needed for gradient "
            "computation has been modified by an inplace operation`."
        )
    if finding.code == "AG002":
        freed = _first(finding, Role.FREED)
        where = f" (line {freed.span.start.line})" if freed else ""
        return (
            f"**`retain_graph=True`** is a correct fix here when both passes really belong to "
            f"the same step: pass it to the first `backward()`{where} only, so the second one "
            f"can still use the saved tensors and then frees them."
        )
    return ""


def _fix(finding: Finding) -> str:
    carried = _first(finding, Role.CARRIED) or _first(finding, Role.STORED)
    name = carried.name if carried and carried.name else None
    at = f" at {_where(carried, finding)}" if carried else ""
    if finding.code == "AG001":
        if finding.kind == "accumulated":
            target = name or "total_loss"
            return (
                f"accumulate a plain number, e.g. `{target} += loss.item()`{at}, and call "
                f"`backward()` on each step's own loss."
            )
        if finding.kind == "hoisted-forward":
            return "move the forward pass into the loop, so each iteration builds its own graph."
        if finding.kind == "module-state" or (carried is not None and carried.role is Role.STORED):
            target = name or "self.state"
            return f"store a detached value: `{target} = {target}.detach()`{at}."
        target = name or "the carried value"
        if name:
            return (
                f"cut the graph where it crosses the iteration: `{target} = {target}.detach()`"
                f"{at} (truncated back-propagation), or rebuild it inside the loop."
            )
        return f"detach {target} where it crosses the iteration, or rebuild it inside the loop."
    if finding.code == "AG002":
        shared = _first(finding, Role.SHARED)
        name = shared.name if shared and shared.name else None
        if finding.kind == "gan":
            fake = name or "fake"
            return (
                f"give the discriminator `{fake}.detach()`, so its `backward()` does not free "
                f"the generator's graph."
            )
        return (
            "add the losses and call `backward()` once, e.g. `(loss_a + loss_b).backward()`, "
            "or pass `retain_graph=True` to the first `backward()` only."
        )
    return ""
