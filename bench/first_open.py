"""Where the server's first open of a file goes: CPU time per phase, in a fresh process.

    python bench/first_open.py              # bench/latency.py's 5,000-line file, 3 processes
    python bench/first_open.py --runs 5 --lines 2000

Each run starts a new Python process that creates the language server (as
`autograd-lint lsp` does, without the transport), opens the generated training file of
`bench/latency.py` and publishes its diagnostics, with timers around the phases of that
path. It prints the median over the runs of each phase's CPU time (process time: a busy
shared machine disturbs it far less than wall time), beside `ast.parse` of the same text
in the same process. Phases nest: evidence (roles.py) is computed while the roots run and
the pattern checks read it, and is shown inside them (and the roots' own work without
it). The young-object collection that ends an analysis runs here before the next line,
where the server runs it after publishing: "until published" leaves it out.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (label, module, attribute, the label it is measured inside or None)
PHASES = [
    ("parse and cut blocks", "autograd_lint.analysis.engine", "build_blocks", None),
    ("program (definitions, imports)", "autograd_lint.analysis.engine", "Program", None),
    ("analysis roots", "autograd_lint.analysis.engine", "analyze_blocks", None),
    ("pattern checks (AG005-AG007)", "autograd_lint.analysis.engine", "run_checks", None),
    # A definition's evidence walks its body first (evidence_of), then works the walk out
    # (ScopeEvidence); the module's and the checkers' scopes build a ScopeEvidence directly.
    ("evidence of definitions", "autograd_lint.analysis.roles", "evidence_of", "roots, checks"),
    ("evidence of definitions", "autograd_lint.analysis.roles", "ScopeEvidence.__init__",
     "roots, checks"),
    ("rendering findings", "autograd_lint.analysis.engine", "render", None),
    ("diagnostics", "autograd_lint.lsp.server", "AutogradLintServer._diagnostics", None),
    ("publish (JSON)", "autograd_lint.lsp.server", "AutogradLintServer.publish", None),
    # Outside an event loop the collector settles as soon as the analysis ends; the server
    # settles 10 ms after it has published, so this is not in the latency an editor sees.
    ("collection after it (not seen)", "autograd_lint.lsp.collector", "Collector.settle", None),
]  # fmt: skip


# The labels whose time is also told apart by the phase it was spent in.
SPLIT = {"evidence of definitions": "analysis roots"}


def _timed(totals: dict, depths: dict, label: str, module: str, attribute: str) -> None:
    """Replace module.attribute (or module.Class.method) by a wrapper adding the CPU time
    of the label's outermost calls (over all the attributes it names) to totals[label]."""
    import importlib

    owner = importlib.import_module(module)
    name = attribute
    if "." in attribute:
        class_name, name = attribute.split(".")
        owner = getattr(owner, class_name)
    original = getattr(owner, name)
    depths.setdefault(label, 0)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        depths[label] += 1
        started = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            depths[label] -= 1
            if depths[label] == 0:
                spent = time.process_time() - started
                totals[label] = totals.get(label, 0.0) + spent
                phase = SPLIT.get(label)
                if phase is not None and depths.get(phase):
                    inside = f"{label}, inside {phase}"
                    totals[inside] = totals.get(inside, 0.0) + spent

    setattr(owner, name, wrapper)


def one_run(lines: int) -> dict:
    """One cold first open in this process: {phase: CPU seconds}."""
    import ast

    sys.path.insert(0, str(ROOT / "bench"))
    from autograd_lint.lsp.server import create_server
    from latency import training_file
    from lsprotocol import types

    text = training_file(lines)
    totals: dict[str, float] = {}
    depths: dict[str, int] = {}
    for label, module, attribute, _inside in PHASES:
        _timed(totals, depths, label, module, attribute)
    server = create_server()
    server.collector.freeze_startup()
    started = time.process_time()
    item = types.TextDocumentItem(
        uri="file:///bench/train_0.py", language_id="python", version=1, text=text
    )
    document = server.documents.open(item)
    server.text_changed(document, document.source)
    server.analyse(document)
    server.publish(document)
    totals["first open, in all"] = time.process_time() - started
    unseen = totals.get("collection after it (not seen)", 0.0)
    totals["first open, until published"] = totals["first open, in all"] - unseen
    for label, phase in SPLIT.items():
        inside = totals.pop(f"{label}, inside {phase}", 0.0)
        totals[f"{phase} less its evidence"] = totals.get(phase, 0.0) - inside
    started = time.process_time()
    ast.parse(text)
    totals["ast.parse of the same text"] = time.process_time() - started
    totals["findings"] = len(document.findings)
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=5000, help="lines of the training file")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes (median)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(args.lines)))
        return 0
    runs = []
    for _ in range(args.runs):
        command = [sys.executable, __file__, "--one", "--lines", str(args.lines)]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        runs.append(json.loads(output.strip().splitlines()[-1]))
    median = {key: statistics.median(run.get(key, 0.0) for run in runs) for key in runs[0]}
    if args.json:
        print(json.dumps(median, indent=2))
        return 0
    inside = {label: where for label, _m, _a, where in PHASES}
    print(f"first open of a {args.lines}-line file ({median['findings']:.0f} findings), server "
          f"CPU ms, median of {args.runs} fresh processes:")  # fmt: skip
    for key, value in median.items():
        if key == "findings":
            continue
        note = f"  (inside {inside[key]})" if inside.get(key) else ""
        print(f"  {key:32} {value * 1000:7.1f}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
