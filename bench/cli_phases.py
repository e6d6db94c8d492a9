"""Where the CPU time of `autograd-lint check` goes, phase by phase, beside `ast.parse`.

    python bench/cli_phases.py                       # bench/throughput.py's packages
    python bench/cli_phases.py --packages timm skorch

Runs the command line's check over the packages in this one process (`--jobs 1`,
`--no-cache`, the project's imports resolved as the CLI resolves them) with a CPU timer
around each phase, and prints each phase's CPU seconds, its share of the run, and its
ratio to one `ast.parse` pass over the same files, timed first in the same process.
The phases nest (parsing happens inside the summaries of imported modules too): each
line is inclusive of what runs inside it, so the lines do not add up to the total.
A profile's view without a profiler's overhead, to pick what to make faster next; the
throughput targets themselves are bench/throughput.py's.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import io
import sys
import time
from collections import Counter
from pathlib import Path

import corpus
from autograd_lint import cli
from autograd_lint.analysis import blocks, engine
from autograd_lint.workspace import Workspace

# (label, owner, attribute): what each phase's timer wraps.
PHASES = (
    ("parsing (ast.parse of files and of imported modules)", blocks, "parse"),
    # Files no rule looks at are only checked for parsing (analysis/nothing_to_check.py).
    (
        "short cut: rule triggers, symtable where none (no tree)",
        engine,
        "parses_with_nothing_to_check",
    ),
    ("project summaries (imported modules, parse included)", Workspace, "summary_of"),
    ("interpreter (analysis roots of back-propagating files)", engine, "analyze_blocks"),
    ("pattern checkers (AG005-AG007)", engine, "run_checks"),
    # The checker looks the engine's `analyze` up at each call (the engine is imported
    # with the first file analysed), so the engine's attribute is the one to wrap.
    ("analyze() in all (the above and the rest of it)", engine, "analyze"),
)


def timed(label: str, function, totals: Counter, depth: Counter):
    """`function`, its CPU time added to totals[label] (a recursive call counted once)."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if depth[label]:
            return function(*args, **kwargs)
        depth[label] += 1
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            totals[label] += time.process_time() - start
            depth[label] -= 1

    return wrapper


def parse_pass(files) -> float:
    start = time.process_time()
    for path in files:
        with contextlib.suppress(SyntaxError, ValueError):
            ast.parse(path.read_bytes(), str(path))
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--packages",
        nargs="+",
        metavar="PKG",
        default=[spec.name for spec in corpus.DEFAULT_PACKAGES],
        help="package names or pip requirements (default: bench/throughput.py's)",
    )
    parser.add_argument("--cache-dir", type=Path, default=corpus.CACHE_DIR)
    args = parser.parse_args(argv)
    folders = []
    for requested in args.packages:
        folder = corpus.fetch(corpus.find_spec(requested), args.cache_dir, log=print)
        if folder is not None:
            folders.append(folder)
    if not folders:
        print("no package could be fetched")
        return 1
    files = [path for folder in folders for path, _ in corpus.read_sources(folder)]
    parse_s = parse_pass(files)

    totals: Counter = Counter()
    depth: Counter = Counter()
    for label, owner, name in PHASES:
        setattr(owner, name, timed(label, getattr(owner, name), totals, depth))
    command = ["check", *map(str, folders), "--no-cache", "--jobs", "1", "--exit-zero"]
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        cli.main(command)
    total_s = time.process_time() - start

    print(f"{len(files)} files; CPU seconds of one process (`check --jobs 1 --no-cache`)")
    print(f"  {'ast.parse, one pass over the files':<58}{parse_s:8.2f}")
    print(f"  {'autograd-lint check, in all':<58}{total_s:8.2f}  {total_s / parse_s:5.2f}x parse")
    for label, *_ in PHASES:
        seconds = totals[label]
        print(
            f"    {label:<56}{seconds:8.2f}  {seconds / parse_s:5.2f}x parse"
            f"  {seconds / total_s:5.1%} of the run"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
