"""Turning a backward that meets freed graph nodes into a finding with its evidence.

Findings are kept as `RawFinding`s that point at syntax nodes in blocks; they become
`Finding`s (line numbers and all) only when rendered, so cached results stay right
when the blocks around them move.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field

from .call_notes import call_note, library_step
from .exprs import walk
from .library_distributions import library_steps
from .model import Role
from .values import LoopPass, Origin, Site

MAX_LABEL = 40
NOT_ANALYSED = "not-analysed"  # the kind of an AG000 notice for code the analysis gave up on


@dataclass(eq=False)
class RawStep:
    site: Site
    message: str
    role: Role
    name: str | None = None


@dataclass(eq=False)
class RawFinding:
    code: str
    kind: str
    # `message` is a format string whose {0}, {1}... are the lines of `message_sites`.
    message: str
    message_sites: list[Site]
    site: Site  # the failing backward call
    steps: list[RawStep]
    loop: Site | None = None
    extra: dict = field(default_factory=dict)
    rendered: tuple | None = None  # (where, Finding): see engine.render
    _blocks: list | None = None

    @property
    def blocks(self) -> list:
        """The blocks its sites lie in (complete once the analysis that made it is)."""
        if self._blocks is None:
            sites = [self.site, *self.message_sites, *(s.site for s in self.steps)]
            if self.loop is not None:
                sites.append(self.loop)
            sites.extend(v for v in self.extra.values() if isinstance(v, Site))
            self._blocks = list({id(s.block): s.block for s in sites}.values())
        return self._blocks

    @property
    def key(self) -> tuple:
        return (self.code, id(self.site.node))


def rule_message(code: str, key: str, **fields: str) -> str:
    """The message text, which the rule's module holds (`MESSAGES`), with `fields` filled in."""
    from ..rules import message  # late: the rule registry imports the analysis package

    return message(code, key, **fields)


def source_of(site: Site) -> str:
    """Short source text of a node, for messages."""
    try:
        text = ast.unparse(site.node)
    except Exception:  # noqa: BLE001 - odd nodes from partial code: a label is optional
        return "this expression"
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


# Receivers that need no parentheses before `.attr`.
ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.List, ast.Tuple, ast.Dict)


def call_text(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        try:
            receiver = ast.unparse(func.value)
        except Exception:  # noqa: BLE001
            receiver = "…"
        if len(receiver) > MAX_LABEL:
            receiver = receiver[: MAX_LABEL - 1] + "…"
        if not isinstance(func.value, ATOMS):  # `(a * b).backward()`, not `a * b.backward()`
            receiver = f"({receiver})"
        return f"{receiver}.{func.attr}()"
    return source_of_node(func) + "()"


def _file_line(site: Site) -> int:
    line = getattr(site.node, "lineno", 0)
    block = site.block
    return line if block is None else line - block.parsed_start + block.start


def source_of_node(node: ast.AST) -> str:
    return source_of(Site(None, node))


def loop_state_names(loop: ast.AST) -> frozenset[str]:
    """`names_read_before_written` of a loop's body, kept while its tree lives: every pass
    of the loop, in every root that runs it, asks it again at its end."""
    found = _LOOP_STATE_NAMES.get(loop)
    if found is None:
        body = getattr(loop, "body", None)
        found = frozenset(names_read_before_written(body if isinstance(body, list) else []))
        _LOOP_STATE_NAMES[loop] = found
    return found


_LOOP_STATE_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def names_read_before_written(loop_body: list[ast.stmt]) -> set[str]:
    """Names the loop body reads before it assigns them: the ones that carry state."""
    first_use: dict[str, tuple[tuple[int, int], bool]] = {}
    for statement in loop_body:
        for node in walk(statement):
            if isinstance(node, ast.Name):
                position = (node.lineno, node.col_offset)
                is_load = isinstance(node.ctx, ast.Load)
                known = first_use.get(node.id)
                # In `h = f(h)` the load comes first in time though it sits to the right.
                if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and is_load:
                    position = (statement.lineno, -1)
                if known is None or position < known[0]:
                    first_use[node.id] = (position, is_load)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                position = (node.lineno, -1)
                known = first_use.get(node.target.id)
                if known is None or position <= known[0]:
                    first_use[node.target.id] = (position, True)
    return {name for name, (_, is_load) in first_use.items() if is_load}


def _shown(name: str) -> str:
    """A carrier in evidence: a name in backticks; a phrase that quotes its own code (what
    a library object holds, library_fits.py) as it is."""
    return name if "`" in name else f"`{name}`"


def _made_in_loop(key, loop) -> bool:
    """Whether an object key names an object made inside `loop` (its key ends with the
    loop passes it was made in): it is made again in every iteration, nothing it holds
    crosses from one to the next."""
    context = key[-1] if isinstance(key, tuple) and key and isinstance(key[-1], tuple) else ()
    return any(isinstance(p, LoopPass) and p.loop is loop for p in context)


def call_steps(chain, message: str) -> list[RawStep]:
    """One step per call site of `chain` (outermost first): where a backward runs."""
    return [
        RawStep(
            site, f"{message} `{source_of(site)}`{call_note(site.node)}, called here", Role.CALL
        )
        for site in chain
    ]


class Reporter:
    def __init__(self):
        self.findings: dict[tuple, RawFinding] = {}
        self.reported_roots: set[Origin] = set()

    def not_analysed(self, site: Site) -> None:
        finding = RawFinding(
            "AG000",
            NOT_ANALYSED,
            "not analysed: this statement is nested too deeply for the analysis; "
            "findings that go through it may be missing",
            [],
            site,
            [],
        )
        self.findings.setdefault(finding.key, finding)

    def conflict(self, interp, call: ast.Call, stale: list[Origin]) -> None:
        if all(origin in self.reported_roots for origin in stale):
            return
        self.reported_roots.update(stale)
        context = tuple(interp.context)
        freed = interp.state.freed
        carried = [o for o in stale if freed[o].context != context]
        finding = self._carried(interp, call, carried, context) if carried else None
        if finding is None:
            # Freed in another loop pass, but nothing carries it into a later iteration of a
            # loop this backward is in: a list of step outputs back-propagated after the loop
            # whose steps each freed them (a PPO's surrogates), one freed in an inner loop.
            finding = self._shared(interp, call, stale)
        if finding is not None and finding.key not in self.findings:
            self.findings[finding.key] = finding

    # -- AG001 ----------------------------------------------------------------------------
    def _carried(self, interp, call, stale, context) -> RawFinding | None:
        origin = min(stale, key=lambda o: o.seq)
        freed = interp.state.freed[origin]
        level = 0
        while (
            level < len(origin.context)
            and level < len(context)
            and origin.context[level] == context[level]
        ):
            level += 1
        if level >= len(context):
            return None
        loop_node = context[level].loop
        loop_frame = next((f for f in interp.loop_frames if f.node is loop_node), None)
        # Built in a loop that has ended (a helper's loop that assembled the model) is
        # built before this one, as much as a statement above it.
        hoisted = level >= len(origin.context) or origin.context[level].loop is not loop_node
        fails = Site(interp.frame.block, call)
        carriers = self._carriers(loop_frame, set(stale), hoisted) if loop_frame else []
        carried_state = [
            o
            for o in stale
            if not hoisted
            and any(o in held for *_, held in carriers)
            and not any(_is_accumulation(site.node, name) for name, site, _, _ in carriers)
        ]
        if carried_state:
            # The op that produced the carried value (`rnn(x, h)`), not the first op that
            # fed it: that is the line a reader recognises as "where the state comes from".
            origin = max(carried_state, key=lambda o: o.seq)
        built = origin.site
        steps = [
            RawStep(
                built,
                (
                    f"graph built here, once, before the loop: `{source_of(built)}`"
                    if hoisted
                    else f"graph built here in iteration 1: `{source_of(built)}`"
                ),
                Role.BUILT,
            )
        ]
        steps.extend(library_steps(interp, stale))  # where a library keeps the graph
        kind = "hoisted-forward" if hoisted else "carried-state"
        for name, binding_site, stored, _ in carriers:
            if stored:
                kind = "module-state"
                message = f"{_shown(name)} keeps the graph on the object between calls"
                # A phrase is no name in the source: fixes and explanations get none.
                source_name = name if _shown(name) != name else None
                steps.append(RawStep(binding_site, message, Role.STORED, source_name))
            elif hoisted:
                message = f"`{name}` is computed once and reused in every iteration"
                steps.append(RawStep(binding_site, message, Role.CARRIED, name))
            else:
                if _is_accumulation(binding_site.node, name):
                    kind = "accumulated"
                message = f"`{name}` carries the graph into the next iteration"
                steps.append(RawStep(binding_site, message, Role.CARRIED, name))
        steps.extend(call_steps(freed.call_chain, "the backward that frees it runs inside"))
        steps.append(
            RawStep(
                freed.site,
                f"`{call_text(freed.site.node)}`{call_note(freed.site.node)} frees the graph's"
                " saved tensors in iteration 1",
                Role.FREED,
            )
        )
        steps.extend(self._inside(freed.site.node))  # the library line that runs it
        steps.extend(call_steps(tuple(interp.call_chain), "the failing backward runs inside"))
        steps.append(
            RawStep(
                fails,
                f"`{call_text(call)}` reaches the freed graph again in iteration 2 and raises",
                Role.FAILS,
            )
        )
        # Three layers of one library class each keep `self.mem`: the name is said once.
        carried = list(dict.fromkeys(name for name, *_ in carriers))
        names = ", ".join(_shown(name) for name in carried) or "a value"
        plural = len(carried) > 1
        if hoisted:
            message = rule_message("AG001", "hoisted", names=names, are="are" if plural else "is")
        else:
            carry = "carry" if plural else "carries"
            message = rule_message("AG001", "carried", names=names, carry=carry)
        sites = [carriers[0][1] if hoisted and carriers else built, freed.site]
        return RawFinding(
            "AG001",
            kind,
            message,
            sites,
            fails,
            steps,
            loop=Site(loop_frame.block if loop_frame else interp.frame.block, loop_node),
            extra={"carried": carried},
        )

    @staticmethod
    def _carriers(loop_frame, stale: set, hoisted: bool) -> list[tuple[str, Site, bool, set]]:
        state = loop_frame.entry if hoisted else loop_frame.pass1_end
        if state is None:
            return []
        live = loop_state_names(loop_frame.node)
        found = []
        for name, binding in state.env.items():
            if binding.site is None or not (binding.val.origins & stale):
                continue
            if hoisted or name in live:
                found.append((name, binding.site, False, binding.val.origins & stale))
        for (key, attr), binding in state.heap.items():
            if _made_in_loop(key, loop_frame.node):
                continue  # an object each iteration makes anew (a step's output record)
            if binding.site is not None and binding.val.origins & stale:
                owner = key[1] if key[0] == "path" else "self"
                name = attr if "`" in attr else f"{owner}.{attr}"  # a phrase: library_fits.py
                found.append((name, binding.site, True, binding.val.origins & stale))
        # By line in the file: a node's own lineno counts from its block's parse, which is 1
        # for a block parsed alone, so sorting by it would order names one way in a file
        # that parses and another in the same text analysed as pieces (the fuzzer found it).
        found.sort(key=lambda item: (_file_line(item[1]), item[0]))
        return found

    @staticmethod
    def _inside(node) -> list[RawStep]:
        found = library_step(node)
        return [RawStep(found[0], found[1], Role.NOTE)] if found else []

    # -- AG002 ----------------------------------------------------------------------------
    def _shared(self, interp, call, stale) -> RawFinding:
        origin = min(stale, key=lambda o: o.seq)
        freed = interp.state.freed[origin]
        fails = Site(interp.frame.block, call)
        built = origin.site
        same = call_text(call) == call_text(freed.site.node)
        steps = [RawStep(built, f"graph built here: `{source_of(built)}`", Role.BUILT)]
        steps.extend(library_steps(interp, stale))  # where a library keeps the graph
        shared_name = None
        reached = set(stale)
        candidates = [
            (name, binding)
            for name, binding in interp.state.env.items()
            if binding.site is not None
            and origin in binding.val.origins
            and _feeds_both(binding.val, reached)
        ]
        candidates.sort(key=lambda item: getattr(item[1].site.node, "lineno", 0))
        if candidates and not same:
            shared_name, binding = candidates[0]
            steps.append(
                RawStep(
                    binding.site,
                    f"`{shared_name}` feeds both backward passes",
                    Role.SHARED,
                    shared_name,
                )
            )
        steps.extend(call_steps(freed.call_chain, "the first backward runs inside"))
        steps.append(
            RawStep(
                freed.site,
                f"`{call_text(freed.site.node)}`{call_note(freed.site.node)} frees the graph's"
                " saved tensors",
                Role.FREED,
            )
        )
        steps.extend(self._inside(freed.site.node))  # the library line that runs it
        steps.extend(call_steps(tuple(interp.call_chain), "the second backward runs inside"))
        steps.append(
            RawStep(fails, f"`{call_text(call)}` goes through the freed graph again", Role.FAILS)
        )
        if same:
            kind = "same-tensor"
            message = rule_message("AG002", kind)
        else:
            kind = "shared-graph"
            via = f"`{shared_name}`" if shared_name else "the graph built at line {1}"
            message = rule_message("AG002", kind, via=via)
        return RawFinding(
            "AG002",
            kind,
            message,
            [freed.site, built],
            fails,
            steps,
            extra={"shared": shared_name, "first_backward": freed.site},
        )


def _feeds_both(val, reached: set) -> bool:
    """Whether the value's own node is one the failing backward reaches again after the
    first freed it: `features`, not the first loss's own term built from it."""
    built = [o for o in val.origins if not o.leaf]
    return bool(built) and max(built, key=lambda o: o.seq) in reached


def _is_accumulation(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.AugAssign):
        return True
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp):
        return any(isinstance(n, ast.Name) and n.id == name for n in walk(node.value))
    return False
