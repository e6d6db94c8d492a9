"""Runtime discovery: a failing backward the run met becomes a finding of its own.

Static analysis misses carriers it cannot see (a C extension's cache, a library nobody
modelled). When the harness stops a backward that would fail and no static finding
predicted it, the failure is reported as a finding of the matching rule, at that
backward, with evidence from the graph the harness walked: the line and iteration that
built the stale node, the backward that freed it, and the script's frames from the
failing backward out to its loop. No torch here: the run's report is plain data.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..analysis.model import Finding, Role, Span, Step
from ..rules import RULES
from .matching import failure_verdicts, matches
from .verdict import RuntimeVerdict

SOURCE = "runtime"
KIND = "runtime"


def rule_of(failure: RuntimeVerdict) -> str:
    """AG007 for a saved tensor modified in place; for a freed one, AG002 when it was freed
    in the same loop pass (two backwards over one graph), else AG001 (carried across)."""
    if failure.problem == "inplace":
        return "AG007"
    if failure.same_step is not None:
        return "AG002" if failure.same_step else "AG001"
    built, now = failure.built_iteration, failure.iteration
    return "AG001" if built is not None and now is not None and built < now else "AG002"


def runtime_findings(
    path: str, source: str, run: RuntimeVerdict, static: list[Finding]
) -> list[tuple[Finding, RuntimeVerdict]]:
    """The run's failing backwards that no static finding names, each as a finding with
    the verdict it came from."""
    lines = source.splitlines()
    out = []
    for failure in failure_verdicts(run):
        if any(matches(finding, failure) for finding in static if finding.code in _FAILING):
            continue
        finding = _finding(path, lines, failure)
        if finding is not None:
            out.append((finding, failure))
    return out


_FAILING = frozenset({"AG001", "AG002", "AG007"})


def _line_span(lines: list[str], line: int) -> Span:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    code = text.split("#", 1)[0].rstrip() or text.rstrip()
    start = len(text) - len(text.lstrip())
    return Span.of(line, start, line, max(start, len(code)))


def _iteration(value: int | None) -> str:
    return "before the loop" if value == 0 else f"in iteration {value}"


def _finding(path: str, lines: list[str], failure: RuntimeVerdict) -> Finding | None:
    if failure.line is None:
        return None
    code = rule_of(failure)
    node = f"`{failure.node}`" if failure.node else "a node"
    at = f"the backward at line {failure.line} in iteration {failure.iteration}"
    built = (
        f", built at line {failure.built_line} {_iteration(failure.built_iteration)}"
        if failure.built_line
        else ""
    )
    freed = (
        f" and freed by the backward at line {failure.freed_line} "
        f"{_iteration(failure.freed_iteration)}"
        if failure.freed_line
        else ""
    )
    if code == "AG007":
        message = (
            f"backward needs a saved tensor that was modified in place (found at runtime): "
            f"{at} needs the saved tensors of {node}{built}, changed in place since"
        )
    elif code == "AG001":
        message = (
            f"backward through a graph from an earlier iteration (found at runtime): "
            f"{at} reaches {node}{built}{freed}"
        )
    else:
        message = (
            f"second backward over a graph freed in the same step (found at runtime): "
            f"{at} reaches {node}{built}{freed}"
        )
    if failure.after_skip:
        message += " (after an earlier failing backward was skipped)"
    evidence = []
    if failure.built_line:
        evidence.append(
            Step(
                _line_span(lines, failure.built_line),
                f"graph built here {_iteration(failure.built_iteration)}: {node}",
                Role.BUILT,
            )
        )
    if failure.freed_line and code != "AG007":
        evidence.append(
            Step(
                _line_span(lines, failure.freed_line),
                f"this backward frees the graph's saved tensors "
                f"{_iteration(failure.freed_iteration)}",
                Role.FREED,
            )
        )
    frames = failure.frames or []
    for inner, outer in zip(frames, frames[1:], strict=False):
        evidence.append(
            Step(
                _line_span(lines, outer["line"]),
                f"calls `{inner['function']}`, where the failing backward runs",
                Role.CALL,
            )
        )
    stopped = "stopped before it ran" if failure.intercepted else "raised"
    evidence.append(
        Step(
            _line_span(lines, failure.line),
            f"backward reaches it in iteration {failure.iteration} and fails ({stopped})",
            Role.FAILS,
        )
    )
    loop = None
    if failure.loop:
        first, last = failure.loop
        loop = Span.of(first, 0, last, len(lines[last - 1]) if 0 < last <= len(lines) else 0)
    rule = RULES.get(code)
    return Finding(
        code=code,
        severity=rule.severity_for(KIND) if rule else RULES["AG001"].severity,
        message=message,
        span=_line_span(lines, failure.line),
        evidence=tuple(evidence),
        kind=KIND,
        path=path,
        loop=loop,
        extra={"source": SOURCE},
    )


def is_runtime_finding(finding: Finding) -> bool:
    return finding.extra.get("source") == SOURCE


def without_duplicates(found: list[tuple[Finding, RuntimeVerdict]]):
    """One finding per code and line (a failure met again after a skip is the same one)."""
    seen, out = set(), []
    for finding, verdict in found:
        key = (finding.code, finding.span.start.line)
        if key not in seen:
            seen.add(key)
            out.append((finding, replace(verdict)))
    return out


_BACKWARD_NAMES = frozenset({"backward", "grad"})


def _calls_backward(node: ast.AST) -> bool:
    for inner in ast.walk(node):
        func = inner.func if isinstance(inner, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in _BACKWARD_NAMES:
            return True
    return False


def training_loops(source: str) -> list[int]:
    """Where an editor offers a run: the first line of each outermost loop whose body calls
    `backward()` (or `autograd.grad`), and of each `training_step` method."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[int] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.For, ast.AsyncFor, ast.While)) and _calls_backward(child):
                found.append(child.lineno)  # nested loops inside it share its lens
                continue
            functions = (ast.FunctionDef, ast.AsyncFunctionDef)
            if isinstance(child, functions) and child.name == "training_step":
                found.append(child.lineno)
                continue
            visit(child)

    visit(tree)
    return sorted(found)
