"""Turn a finding into a short markdown story: what carries the graph, what frees it, what fails.

Shared by every front-end that explains a finding (LSP hover, CLI `--explain`). It reads
only the finding model and the rule registry, so it never pulls in the analysis engine.
"""

from __future__ import annotations

import os

from .analysis.model import Finding, Role, Step
from .rules import RULES

SECOND_BACKWARD_ERROR = "RuntimeError: Trying to backward through the graph a second time"

_GRAPH_STORY_CODES = ("AG001", "AG002")
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


def evidence_to_show(finding: Finding) -> tuple[Step, ...]:
    """The evidence a reader learns from. When every step points inside the finding's own
    range (a `.data` read, a needless `retain_graph=True`), the steps only restate the
    message on the line it is already shown on: the editor's Problems list would get
    two more rows per finding for nothing. JSON and SARIF keep every step."""
    span = finding.span

    def inside(step: Step) -> bool:
        same_place = (not step.path or step.path == finding.path) and step.cell == finding.cell
        return same_place and span.start <= step.span.start and step.span.end <= span.end

    return () if all(inside(step) for step in finding.evidence) else finding.evidence


def hover_summary(finding: Finding, *, focus: Step | None = None, fix_title: str = "") -> str:
    """The editor hover: what the client's own diagnostic hover does not show already.

    VS Code (and most clients) show the diagnostic's message and its related information
    (the evidence) above a language server's hover, in a box about 250 px high, which the
    message and the evidence fill half of or more (client/e2e/ui-shots.mjs measures it).
    So this leads with the fix (`fix_title`, the preferred quick fix, when there is one),
    then one line of why, names the evidence step under the cursor when that is not the
    flagged line, and puts the full story below a rule, where scrolling (or the rule page)
    finds it.
    """
    rule = RULES.get(finding.code)
    head = f"**{finding.code}**" + (f" {rule.name}" if rule else "")
    why = _why(finding)
    lines = []
    by_hand = _fix(finding)
    fix = f"{fix_title} (Quick Fix)" if fix_title else by_hand
    if fix:
        lines.append(f"**Fix:** {fix[0].upper()}{fix[1:]}")
    lines.append(f"{head} · {why}" if why else head)
    if focus is not None and not focus.span.contains(
        finding.span.start.line, finding.span.start.column
    ):
        where = f"line {finding.span.start.line}"
        if focus.path and focus.path != finding.path and finding.path:
            where += f" of `{os.path.basename(finding.path)}`"
        lines.append(f"*This line:* {focus.message} (the finding is at {where})")
    other_ways = f"**By hand:** {by_hand}" if fix_title and by_hand else ""
    details = [p for p in (_story(finding), other_ways, _retain_graph_note(finding)) if p]
    summary = "  \n".join(lines)
    if not details:
        return summary
    return summary + "\n\n---\n\n" + "\n\n".join(details)


def _why(finding: Finding) -> str:
    """One line: the mechanism, in the user's names (the message says the rest)."""
    built, freed = _first(finding, Role.BUILT), _first(finding, Role.FREED)
    fails = _first(finding, Role.FAILS)
    if finding.code == "AG001":
        names = _names(finding.steps(Role.CARRIED) or finding.steps(Role.STORED))
        freed_at = f", after the backward at {_where(freed, finding)} freed it" if freed else ""
        if finding.kind == "hoisted-forward" or not names:
            what = _named(built, "the graph")
            return (
                f"{what} is built once, before the loop, and every iteration reaches it{freed_at}."
            )
        verb = "carry" if " and " in names else "carries"
        return f"{names} {verb} the previous iteration's graph into the next{freed_at}."
    if finding.code == "AG002":
        if finding.kind == "same-tensor":
            return "the same graph is back-propagated twice in one step."
        shared = _first(finding, Role.SHARED)
        freed_at = f"the backward at {_where(freed, finding)}" if freed else "the first backward"
        return f"{_named(shared, 'one value')} feeds both losses, and {freed_at} freed their shared graph."
    if finding.code == "AG007" and fails is not None:
        return f"the backward at {_where(fails, finding)} needs the tensor this changes."
    return ""


def _where(step: Step, finding: Finding) -> str:
    line = f"line {step.span.start.line}"
    if step.cell is not None and step.cell != finding.cell:  # another notebook cell
        line = f"cell {step.cell} {line}"
    if step.path and step.path != finding.path:
        return f"{line} of `{os.path.basename(step.path)}`"
    return line


def _named(step: Step | None, fallback: str) -> str:
    return f"`{step.name}`" if step is not None and step.name else fallback


def _first(finding: Finding, role: Role) -> Step | None:
    steps = finding.steps(role)
    return steps[0] if steps else None


def _names(steps: list[Step]) -> str:
    names = list(dict.fromkeys(f"`{s.name}`" for s in steps if s.name))
    return " and ".join(names)


def _freed_and_failing(finding: Finding, next_iteration: bool) -> str:
    """How the freeing and the failing backward relate: often it is one call, twice."""
    freed, fails = _first(finding, Role.FREED), _first(finding, Role.FAILS)
    fails_line = fails.span.start.line if fails else finding.span.start.line
    raises = f"PyTorch raises `{SECOND_BACKWARD_ERROR}`"
    if freed is None:
        return f"The `backward()` at line {fails_line} reaches it after it was freed, and {raises}."
    if freed.span == (fails.span if fails else finding.span):
        return (
            f"The `backward()` at {_where(freed, finding)} frees its saved tensors in one "
            f"iteration and reaches them again in the next, where {raises}."
        )
    again = " in the next iteration" if next_iteration else ""
    return (
        f"The `backward()` at {_where(freed, finding)} frees the graph's saved tensors; the "
        f"`backward()` at line {fails_line} reaches them again{again}, and {raises}."
    )


def _story(finding: Finding) -> str:
    if finding.code == "AG001":
        return f"{_carried_how(finding)} {_freed_and_failing(finding, next_iteration=True)}"
    if finding.code == "AG002":
        return f"{_shared_how(finding)} {_freed_and_failing(finding, next_iteration=False)}"
    return ""


def _carried_how(finding: Finding) -> str:
    built = _first(finding, Role.BUILT)
    carried = finding.steps(Role.CARRIED)
    stored = finding.steps(Role.STORED)
    loop = f" (the loop at line {finding.loop.start.line})" if finding.loop else ""
    if finding.kind == "hoisted-forward" or (not carried and not stored):
        what = _names(carried) or _named(built, "this value")
        where = f" at {_where(built, finding)}" if built else ""
        before = (
            f"before the loop at line {finding.loop.start.line}"
            if finding.loop
            else "before the loop"
        )
        return (
            f"The graph of {what} is built once{where}, {before}, and every iteration "
            f"back-propagates through that same graph."
        )
    if carried:
        names = _names(carried) or "A value"
        verb = "hold" if " and " in names else "holds"
        built_at = f" (built at {_where(built, finding)})" if built else ""
        return (
            f"{names} still {verb} the autograd graph of the previous iteration{built_at} "
            f"when {'they are' if verb == 'hold' else 'it is'} reused at "
            f"{_where(carried[0], finding)}{loop}, so each new graph is chained onto the old one."
        )
    return (
        f"{_names(stored) or 'An attribute'} keeps a graph-carrying value on the object "
        f"({_where(stored[0], finding)}), so the next call{loop} builds on the graph of the "
        f"previous one."
    )


def _shared_how(finding: Finding) -> str:
    built = _first(finding, Role.BUILT)
    if finding.kind == "same-tensor":
        where = f" (built at {_where(built, finding)})" if built else ""
        return f"The same graph{where} is back-propagated twice in one step."
    source = _first(finding, Role.SHARED) or built
    if source is None:
        return "Two backward passes in the same step go through one shared graph."
    return (
        f"{_named(source, 'One value')} ({_where(source, finding)}) feeds both losses, so "
        f"their graphs share nodes."
    )


def _evidence_list(finding: Finding, focus: Step | None) -> str:
    # The role names tell the graph-lifetime story; other rules' steps speak for themselves.
    story = finding.code in _GRAPH_STORY_CODES
    rows = []
    for number, step in enumerate(finding.evidence, 1):
        label = _ROLE_LABELS.get(step.role, step.role.value) if story else None
        where = _where(step, finding)
        if focus is not None and step == focus:
            head = f"{label}, {where}" if label else where
            rows.append(f"{number}. **{head}: {step.message}** (here)")
        else:
            head = f"*{label}*, {where}" if label else where
            rows.append(f"{number}. {head}: {step.message}")
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
        where = f" ({_where(freed, finding)})" if freed else ""
        return (
            f"**`retain_graph=True`** is a correct fix here when both passes really belong to "
            f"the same step: pass it to the first `backward()`{where} only, so the second one "
            f"can still use the saved tensors and then frees them."
        )
    return ""


def _fix(finding: Finding) -> str:
    carried = finding.steps(Role.CARRIED) or finding.steps(Role.STORED)
    names = [s.name for s in carried if s.name]
    at = f" ({_where(carried[0], finding)})" if carried else ""
    if finding.code == "AG001":
        if finding.kind == "hoisted-forward":
            return "move the forward pass into the loop, so each iteration builds its own graph."
        if finding.kind == "accumulated":
            name = names[0] if names else "total"
            return (
                f"carry only a number or a detached tensor across iterations{at}: e.g. "
                f"`{name} += loss.item()` for a running total, or `{name} = {name}.detach()` "
                f"for state; call `backward()` on each step's own loss."
            )
        if names:
            detach = "; ".join(f"`{n} = {n}.detach()`" for n in dict.fromkeys(names))
            return (
                f"cut the graph where it crosses into the next iteration{at}: {detach} "
                f"(truncated back-propagation), or rebuild the value inside the loop."
            )
        return "detach the value that crosses iterations, or rebuild it inside the loop."
    if finding.code == "AG002":
        if finding.kind == "same-tensor":
            return "call `backward()` once on that loss, or pass `retain_graph=True` to the first call."
        shared = _first(finding, Role.SHARED)
        name = shared.name if shared and shared.name else None
        together = (
            "add the losses and call `backward()` once, e.g. `(loss_a + loss_b).backward()`, "
            "or pass `retain_graph=True` to the first `backward()` only."
        )
        if not name:
            return together
        # Detaching comes first: for a GAN's D and G losses, summing would train each
        # network on the other's objective.
        return (
            f"when the first loss should not train what built `{name}` (a GAN's discriminator "
            f"step), give it `{name}.detach()`; when both should, {together}"
        )
    return _RULE_FIXES.get((finding.code, finding.kind), "")


# The advice of the other rules' shapes, for a finding that gets no rewrite.
_RULE_FIXES = {
    ("AG003", "running-total"): "add `loss.item()` (or `loss.detach()`) to the total.",
    ("AG003", "container"): "store `.detach()`ed values (or `.item()` numbers).",
    ("AG004", "retain-unneeded"): "remove `retain_graph=True`: no later backward goes through "
    "this graph.",
    ("AG004", "retain-carried"): "remove `retain_graph=True` and detach the carried state.",
    ("AG005", "never-cleared"): "call `optimizer.zero_grad()` at the start of each step.",
    ("AG005", "cleared-before-step"): "clear the gradients before the backward, or after the step.",
    ("AG005", "other-optimizer"): "clear the optimizer that steps.",
    ("AG006", "read"): "use `.detach()` (or `.item()` for a number).",
    ("AG006", "write"): "write to the tensor itself under `with torch.no_grad():`.",
    ("AG007", "saved-output"): "use the out-of-place op, or `.clone()` before the in-place one.",
    ("AG007", "saved-input"): "use the out-of-place op, or `.clone()` before the in-place one.",
    ("AG007", "optimizer-step"): (
        "back-propagate before the step, or run the forward again after it "
        "(detach what carries it across the step)."
    ),
}
