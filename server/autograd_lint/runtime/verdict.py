"""What a runtime confirmation is asked to do, and what it answers (no torch here either)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .growth import growth, growth_json

STATUSES = ("confirmed", "not-reproduced", "error")


@dataclass
class RuntimeOptions:
    python: str | None = None  # interpreter with torch; default: the one running us
    args: list[str] = field(default_factory=list)  # the script's own arguments
    env: dict = field(default_factory=dict)  # added to (and overriding) our environment
    device: str = "auto"  # auto | cpu | cuda:N
    max_steps: int = 5
    timeout_seconds: float = 120
    # False: let a failing backward run so torch raises its own error (checks the probe).
    intercept: bool = True
    # Report every failure the run meets, not only the findings' (runtime discovery): the
    # iterations of every loop of the script are counted, and a failing backward is
    # skipped so that the run goes on to the next one, up to `max_steps` calls.
    discover: bool = False
    # Run in a warm child (runtime/warm.py) when one started for this script matches;
    # False: always a fresh interpreter, and nothing is pre-started for this run.
    warm: bool = True


@dataclass
class RuntimeVerdict:
    status: str  # confirmed | not-reproduced | error
    device: str | None = None
    iteration: int | None = None
    detail: str = ""
    line: int | None = None  # the failing backward's line
    node: str | None = None  # e.g. TanhBackward0
    built_line: int | None = None
    built_iteration: int | None = None  # 0: built before the loop
    stdout: str = ""
    stderr: str = ""
    peak_memory_bytes: int | None = None
    problem: str | None = None  # freed | inplace
    intercepted: bool | None = None  # stopped before the failing backward ran
    backward_calls: int = 0
    graph_nodes: list[int] = field(default_factory=list)  # reachable nodes at each backward
    exception: str | None = None  # the real error, when backward ran and raised it
    # In a notebook (notebook/runtime.py): the cells `line` and `built_line` count from.
    cell: int | None = None
    built_cell: int | None = None
    # The backward that freed the stale node (line, iteration), when the run saw it.
    freed_line: int | None = None
    freed_iteration: int | None = None
    freed_cell: int | None = None  # in a notebook: the cell `freed_line` counts from
    # The script's frames from the failing backward out to its loop, innermost first:
    # [{"line", "function"}]; a backward called in a helper names the call site too.
    frames: list[dict] = field(default_factory=list)
    loop: list[int] | None = None  # [first, last] line of the loop the backward ran in
    same_step: bool | None = None  # freed in the same loop pass that fails on it (AG002)
    after_skip: bool | None = None  # an earlier failing backward was skipped to get here
    repeats: int | None = None  # how many times the same backward failed the same way
    after_skip_error: str | None = None  # the script crashed after a skipped backward
    # Every distinct failing backward (discover mode), each as the harness reported it.
    failures: list[dict] = field(default_factory=list)
    # Per backward call: {"call", "line", "iteration", "nodes", "savedBytes", "liveNodes",
    # "liveBytes"[, "deviceBytes"]}: the graph it walks, the graph the script keeps alive.
    steps: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        out = {
            "status": self.status,
            "device": self.device,
            "iteration": self.iteration,
            "detail": self.detail,
        }
        extras = {
            "line": self.line,
            "node": self.node,
            "builtLine": self.built_line,
            "builtIteration": self.built_iteration,
            "problem": self.problem,
            "intercepted": self.intercepted,
            "peakMemoryBytes": self.peak_memory_bytes,
            "backwardCalls": self.backward_calls,
            "graphNodes": self.graph_nodes or None,
            "exception": self.exception,
            "cell": self.cell,
            "builtCell": self.built_cell,
            "freedLine": self.freed_line,
            "freedCell": self.freed_cell,
            "freedIteration": self.freed_iteration,
            "frames": self.frames or None,
            "afterSkip": self.after_skip or None,
            "repeats": self.repeats,
            "afterSkipError": self.after_skip_error,
            "growth": growth_json(self.steps),
        }
        out.update({key: value for key, value in extras.items() if value is not None})
        return out


REPORT_FIELDS = {
    "status",
    "device",
    "iteration",
    "detail",
    "line",
    "node",
    "built_line",
    "built_iteration",
    "peak_memory_bytes",
    "problem",
    "intercepted",
    "backward_calls",
    "graph_nodes",
    "exception",
    "freed_line",
    "freed_iteration",
    "frames",
    "loop",
    "same_step",
    "after_skip",
    "repeats",
    "after_skip_error",
    "failures",
    "steps",
}


def format_verdict(verdict: RuntimeVerdict) -> str:
    """One line for a diagnostic or a terminal."""
    grew = growth(verdict.steps)
    if verdict.status == "confirmed" and verdict.problem == "growth" and grew is not None:
        return f"confirmed at runtime on {verdict.device or 'cpu'}: {grew.message()}"
    if verdict.status == "confirmed":
        text = f"confirmed at runtime: iteration {verdict.iteration} on {verdict.device or 'cpu'}"
        if verdict.node and verdict.problem == "inplace":
            text += f" ({verdict.node} needs a saved tensor that was modified in place)"
        elif verdict.node:
            text += f" ({_node_phrase(verdict)})"
        if verdict.exception:
            first = verdict.exception.strip().splitlines()[0]
            text += f": {first[:157] + '...' if len(first) > 160 else first}"
        return text
    if verdict.status == "not-reproduced":
        text = verdict.detail
        if not text.startswith("not re"):
            text = f"not reproduced in {verdict.backward_calls} steps"
        if grew is not None:
            # Kept alive across steps (retain_graph in a loop, AG003/AG004): memory grows.
            text += f"; {grew.message()}"
        return text
    return f"runtime check failed: {verdict.detail}"


def _node_phrase(verdict: RuntimeVerdict) -> str:
    built, current = verdict.built_iteration, verdict.iteration
    cell = f"cell {verdict.built_cell} " if verdict.built_cell is not None else ""
    where = f"built at {cell}line {verdict.built_line}"
    if built == 0:
        return f"stale node {verdict.node} {where} before the loop"
    if built is not None and current is not None and built < current:
        return f"stale node {verdict.node} {where} in iteration {built}"
    return f"node {verdict.node} {where} in the same iteration, freed by an earlier backward"


def refusal(enabled: bool, workspace_trusted: bool) -> str | None:
    """Why a runtime confirmation may not run, for the language server; None when it may."""
    if not workspace_trusted:
        return "runtime confirmation runs your code, so it is refused in an untrusted workspace"
    if not enabled:
        return "runtime confirmation is off: set autograd-lint runtime.enabled to true to allow it"
    return None


# The command line helpers live beside the runner so the CLI needs one import.
