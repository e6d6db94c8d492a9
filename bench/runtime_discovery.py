"""Runtime discovery on the real-world yardstick: which crashes a run reports as findings.

    python bench/runtime_discovery.py            # every runnable case, a fresh interpreter each
    python bench/runtime_discovery.py --warm     # counts only: one warm torch, each run forked
    python bench/runtime_discovery.py --only rnn_ gan_ --json
    python bench/runtime_discovery.py --only fw_lightning --repeat 3   # each time the minimum of 3

Each runnable completion (tests/realworld/runnable/*.py) is checked statically, then run as
`autograd-lint check --confirm=always` runs it (all loops counted, a failing backward
skipped so the run goes on, up to --max-steps backward calls). Printed per case:

- `found`: a crash case is found when a finding — a static one the run confirmed, or one
  only the run found (`+`, runtime-only) — has the failing backward at the line marked
  `# realworld: fails` (the finding's own line, or its runtime verdict's line: an AG007
  finding sits on the in-place change), with the evidence of the graph the harness walked. A correct case must get no finding from the
  run at all (its static findings, if any, are the analysis's business, not counted here);
- `first s`: from starting the run to the harness's report of the first failing backward,
  minus the median `python -c "import torch"` time measured just before (target: 2 s);
- `run s`: to the end of the run (the harness goes on to --max-steps calls after it),
  minus the same import time;
- `first cpu s`: the harness process's CPU time when it reported the first failing
  backward (its `failure` event, `time.process_time()`), minus the same count taken in
  `python -c "import torch"` right after the import (not its whole process: torch's exit
  costs 0.3-0.5 s of CPU, which the harness never pays and which, subtracted, made verdicts
  look that much cheaper): the verdict's cost, less disturbed than wall-clock time by other
  work on a shared machine;
- `own cpu s`: the same for the script alone, up to the same backward call: the harness
  run with `--bare-stop N` (no line tracing, no graph walks; the wrapped backward only counts
  calls and stops before the Nth), minus import's CPU: what the program's own work before
  its failing backward costs (libraries, data, an optimizer's first import of
  torch._dynamo), which no harness can save;
- `plain s`: the script run plainly (`python case.py`, no harness at all) until the failing
  backward raises and ends it: the whole process's CPU time minus `import torch`'s whole
  process's (both include the interpreter's exit; the plain run's also its traceback and the
  teardown of what it built);
- `hooks s`: `first cpu s` minus `own cpu s`, what our instrumentation adds, and `graphs s`,
  the part of it spent walking and probing graphs (the rest is the line tracer);
- `cpu s`: the whole run's CPU time (user + system, the harness and what it started) minus
  the same: what going on to --max-steps after the first failure adds.

- `warm s` and `warm cpu s` (the warm runner, runtime/warm.py, as the editor and the CLI
  use it): a child is pre-started for the case and waited for until it has imported torch,
  torch._dynamo and the script's leading installed imports; then, from the request to the
  harness's report of the first failing backward, the wall-clock seconds and the child's
  CPU seconds (its `failure` event's count minus its `warm-request` event's). Nothing is
  subtracted: the import is what the warm child paid before the request. `warm` says
  whether the warm run found the crash at the same line (`--no-warm-runner` skips it).

A crash whose verdict costs more than 2 s is listed at the end with its own cost: when that
alone is over 2 s, the program's own work is why.

Times are wall-clock, so `--warm` (torch imported once) prints none; on a shared machine
run it when the load is low.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
YARDSTICK = ROOT / "tests" / "realworld"
sys.path[:0] = [str(ROOT / "tests" / "runtime")]

from autograd_lint.checker import check_path  # noqa: E402
from autograd_lint.runtime.cli_options import CONFIRMABLE, DISCOVERY_STEPS  # noqa: E402
from autograd_lint.runtime.discovery import runtime_findings  # noqa: E402
from autograd_lint.runtime.matching import failure_verdicts, verdict_for  # noqa: E402
from autograd_lint.runtime.runner import (  # noqa: E402
    RuntimeOptions,
    child_environment,
    harness_command,
    run_harness,
)
from autograd_lint.runtime.warm import POOL  # noqa: E402

TARGET_OVER_S = 2.0
FAILS_MARK = "# realworld: fails"


def own_work_over(result: dict) -> float:
    """The program's own work over the import, by the cheaper of its two measures: the
    bare run to the failing backward, and the plain run (absent when it did not raise)."""
    measured = [result.get(key) for key in ("own_cpu_over_s", "plain_cpu_over_s")]
    return min((value for value in measured if value is not None), default=0.0)


def marked_lines(path: Path) -> set[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {number for number, text in enumerate(lines, 1) if text.rstrip().endswith(FAILS_MARK)}


def children_cpu_s() -> float:
    """CPU seconds of the waited-for child processes so far (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def import_time(python: str, repeat: int = 3) -> tuple[float, float, float]:
    """Median wall and CPU seconds of `python -c "import torch"` (the whole process, its exit
    included), and the CPU seconds the process has spent once the import is done, as the
    harness's events count them (`time.process_time()`, before any exit: torch's teardown
    alone is 0.3-0.5 s, which the harness, leaving by `os._exit`, never pays)."""
    walls, cpus, at_import = [], [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), children_cpu_s()
        subprocess.run([python, "-c", "import torch"], check=True)
        walls.append(time.perf_counter() - start)
        cpus.append(children_cpu_s() - cpu)
        probe = "import time, torch; print(time.process_time())"
        printed = subprocess.run([python, "-c", probe], check=True, capture_output=True, text=True)
        at_import.append(float(printed.stdout))
    return statistics.median(walls), statistics.median(cpus), statistics.median(at_import)


def own_cpu_s(path: Path, options: RuntimeOptions, call: int) -> float | None:
    """Process CPU seconds of the script alone when it reaches backward call `call`: the
    harness with `--bare-stop` (nothing traced or walked), as the failure event counts them."""
    with tempfile.TemporaryDirectory() as scratch:
        result = Path(scratch) / "result.jsonl"
        channel = ["--result-file", str(result), "--bare-stop", str(call)]
        subprocess.run(
            harness_command(path, [], options, channel),
            cwd=path.parent,
            env=child_environment(options),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=options.timeout_seconds,
        )
        events = [json.loads(line) for line in result.read_text().splitlines() if line]
    stops = [e for e in events if e.get("event") == "bare-stop"]
    return stops[0]["cpu_seconds"] if stops else None


def plain_cpu_s(path: Path, options: RuntimeOptions) -> float | None:
    """Process CPU seconds of `python case.py` with nothing of ours loaded, which a crash
    case ends by raising at its failing backward; None when it did not raise."""
    cpu = children_cpu_s()
    run = subprocess.run(
        [options.python or sys.executable, str(path)],
        cwd=path.parent,
        env=child_environment(options),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=options.timeout_seconds,
    )
    spent = children_cpu_s() - cpu
    return spent if run.returncode != 0 and "RuntimeError" in run.stderr else None


def warm_case(case: dict, options: RuntimeOptions) -> dict:
    """The case run by a warm child pre-started for it and ready: from the request to the
    first failing backward, wall and CPU seconds, and whether it found the crash."""
    path = YARDSTICK / case["runnable"]
    child = POOL.prestart(path, options)
    if child is None or not child.reader.ready.wait(options.timeout_seconds):
        return {"warm_error": "the warm child did not start"}
    marks: dict[str, float] = {}

    def on_event(event: dict) -> None:
        kind = event.get("event")
        marks.setdefault(kind, time.perf_counter())
        if kind in ("warm-request", "failure"):
            marks.setdefault(f"{kind}_cpu", event.get("cpu_seconds"))

    start = time.perf_counter()
    run = run_harness(path, [], options, on_event=on_event)
    if "warm-request" not in marks:
        return {"warm_error": "the run did not take the warm child"}
    marked = marked_lines(path)
    row = {"warm_ok": any(failure.line in marked for failure in failure_verdicts(run))}
    if "failure" in marks:
        row["warm_first_s"] = marks["failure"] - start
        row["warm_first_cpu_s"] = marks["failure_cpu"] - marks["warm-request_cpu"]
    return row


def run_case(case: dict, options: RuntimeOptions) -> dict:
    path = YARDSTICK / case["runnable"]
    static = check_path(path)
    wanted = [f for f in static if f.code in CONFIRMABLE]
    marks: dict[str, float] = {}

    def on_event(event: dict) -> None:
        marks.setdefault(event.get("event"), time.perf_counter())
        if event.get("event") == "failure":
            marks.setdefault("failure_cpu", event.get("cpu_seconds"))
            marks.setdefault("failure_graph_cpu", event.get("graph_seconds"))
            marks.setdefault("failure_call", event.get("call"))

    start, cpu = time.perf_counter(), children_cpu_s()
    run = run_harness(path, wanted, options, on_event=on_event)
    run_s = time.perf_counter() - start
    run_cpu_s = children_cpu_s() - cpu
    confirmed = [(f, verdict_for(f, run)) for f in wanted]
    confirmed = [(f, v) for f, v in confirmed if v.status == "confirmed"]
    found_only = runtime_findings(str(path), path.read_text(encoding="utf-8"), run, static)
    reported = confirmed + found_only
    marked = marked_lines(path)
    # An AG007 finding sits on the in-place change, a finding on a helper's call site:
    # the verdict names the failing backward itself.
    at_mark = [f for f, v in reported if f.span.start.line in marked or v.line in marked]
    # A crash must be reported at its marked line; a correct program must get nothing.
    ok = bool(at_mark) if case["kind"] == "crash" else not reported
    return {
        "id": case["id"],
        "kind": case["kind"],
        "ok": ok,
        "static": sorted({f.code for f in wanted if f.span.start.line in marked}),
        "runtime_only": [f"{f.code}@{f.span.start.line}" for f, _ in found_only],
        "confirmed": [f"{f.code}@{f.span.start.line}" for f, _ in confirmed],
        "status": run.status,
        "backward_calls": run.backward_calls,
        "first_failure_s": marks["failure"] - start if "failure" in marks else None,
        "first_failure_cpu_s": marks.get("failure_cpu"),
        "first_failure_graph_cpu_s": marks.get("failure_graph_cpu"),
        "first_failure_call": marks.get("failure_call"),
        "run_s": run_s,
        "run_cpu_s": run_cpu_s,
        "detail": run.detail[:160],
    }


# Timings of a case; with --repeat, each is the minimum over the runs.
TIMES = (
    "first_over_s",
    "run_over_s",
    "run_cpu_over_s",
    "first_cpu_over_s",
    "first_failure_graph_cpu_s",
    "own_cpu_over_s",
    "plain_cpu_over_s",
    "warm_first_s",
    "warm_first_cpu_s",
)


def timed_case(case: dict, options: RuntimeOptions, baselines, args) -> dict:
    row = run_case(case, options)
    if baselines is None:
        return row
    # Whole processes (the run, a plain one) against the whole import; the harness's events
    # against the CPU time at the end of the import.
    baseline, baseline_cpu, import_cpu = baselines
    if row["first_failure_s"] is not None:
        row["first_over_s"] = row["first_failure_s"] - baseline
    row["run_over_s"] = row["run_s"] - baseline
    row["run_cpu_over_s"] = row["run_cpu_s"] - baseline_cpu
    if row["first_failure_cpu_s"] is not None:
        row["first_cpu_over_s"] = row["first_failure_cpu_s"] - import_cpu
    call = row["first_failure_call"]
    if case["kind"] == "crash" and call and not args.no_own:
        own = own_cpu_s(YARDSTICK / case["runnable"], options, call)
        if own is not None:
            row["own_cpu_over_s"] = own - import_cpu
        plain = plain_cpu_s(YARDSTICK / case["runnable"], options)
        if plain is not None:
            row["plain_cpu_over_s"] = plain - baseline_cpu
    if case["kind"] == "crash" and not args.no_warm_runner:
        row.update(warm_case(case, options))
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", action="store_true", help="one warm torch; no timings")
    parser.add_argument("--max-steps", type=int, default=DISCOVERY_STEPS)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--only", nargs="*", help="prefixes of case ids to keep")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run each case N times, keep each time's minimum"
    )
    parser.add_argument(
        "--no-own",
        action="store_true",
        help="do not also run each crash case uninstrumented to its failing backward",
    )
    parser.add_argument(
        "--no-warm-runner",
        action="store_true",
        help="do not also run each crash case in a pre-started warm child",
    )
    args = parser.parse_args(argv)

    cases = json.loads((YARDSTICK / "manifest.json").read_text())
    cases = [c for c in cases if c.get("runnable")]
    if args.only:
        cases = [c for c in cases if any(c["id"].startswith(p) for p in args.only)]
    warm = None
    if args.warm:
        from warm_python import WarmPython

        warm = WarmPython()
    python = str(warm.shim) if warm else args.python
    options = RuntimeOptions(
        python=python, device="cpu", max_steps=args.max_steps, timeout_seconds=120, discover=True
    )
    baselines = None if warm else import_time(args.python)
    baseline, baseline_cpu, import_cpu = baselines or (None, None, None)
    rows = []
    try:
        for case in cases:
            timed = [timed_case(case, options, baselines, args) for _ in range(args.repeat)]
            row = timed[0]
            for key in TIMES:  # the least disturbed of the runs
                values = [r[key] for r in timed if r.get(key) is not None]
                if values:
                    row[key] = min(values)
            if "own_cpu_over_s" in row and row.get("first_cpu_over_s") is not None:
                row["hooks_cpu_s"] = row["first_cpu_over_s"] - row["own_cpu_over_s"]
            rows.append(row)
            if not args.json:
                first, graphs = row.get("first_over_s"), row.get("first_failure_graph_cpu_s")
                times = (
                    f"{first if first is not None else float('nan'):6.2f} "
                    f"{row.get('run_over_s', float('nan')):6.2f} "
                    f"{row.get('first_cpu_over_s', float('nan')):6.2f} "
                    f"{row.get('own_cpu_over_s', float('nan')):6.2f} "
                    f"{row.get('plain_cpu_over_s', float('nan')):6.2f} "
                    f"{row.get('hooks_cpu_s', float('nan')):6.2f} "
                    f"{graphs if graphs is not None else float('nan'):6.2f} "
                    f"{row.get('run_cpu_over_s', float('nan')):6.2f} "
                    f"{row.get('warm_first_s', float('nan')):6.2f} "
                    f"{row.get('warm_first_cpu_s', float('nan')):6.2f}"
                    f" {'warm' if row.get('warm_ok') else '-   '}"
                )
                found = ",".join(row["confirmed"] + [f"+{r}" for r in row["runtime_only"]])
                print(
                    f"{row['kind']:7} {'ok ' if row['ok'] else 'MISS'} {row['id']:46} {times}"
                    f"  {found or '-'}",
                    flush=True,
                )
    finally:
        POOL.close()
        if warm is not None:
            warm.close()
    crashes = [r for r in rows if r["kind"] == "crash"]
    correct = [r for r in rows if r["kind"] == "correct"]
    firsts = [r["first_over_s"] for r in crashes if r.get("first_over_s") is not None]
    cpus = [r["run_cpu_over_s"] for r in crashes if r.get("run_cpu_over_s") is not None]
    first_cpus = [r["first_cpu_over_s"] for r in crashes if r.get("first_cpu_over_s") is not None]
    owns = [r["own_cpu_over_s"] for r in crashes if "own_cpu_over_s" in r]
    hooks = [r["hooks_cpu_s"] for r in crashes if "hooks_cpu_s" in r]
    plains = [r["plain_cpu_over_s"] for r in crashes if "plain_cpu_over_s" in r]
    warm_walls = [r["warm_first_s"] for r in crashes if "warm_first_s" in r]
    warm_cpus = [r["warm_first_cpu_s"] for r in crashes if "warm_first_cpu_s" in r]
    over = [r for r in crashes if r.get("first_cpu_over_s", 0) > TARGET_OVER_S]
    summary = {
        "crash_cases": len(crashes),
        "crashes_found": sum(r["ok"] for r in crashes),
        "crashes_found_only_at_runtime": sum(
            1 for r in crashes if r["ok"] and not r["static"] and r["runtime_only"]
        ),
        "runtime_only_findings": sum(len(r["runtime_only"]) for r in crashes),
        "correct_cases": len(correct),
        "correct_with_runtime_findings": sum(not r["ok"] for r in correct),
        "import_torch_s": baseline,
        "import_torch_cpu_s": baseline_cpu,
        "import_torch_cpu_at_import_s": import_cpu,
        "first_failure_over_import_s": {
            "median": statistics.median(firsts) if firsts else None,
            "max": max(firsts) if firsts else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in firsts),
        },
        "first_failure_cpu_over_import_cpu_s": {
            "median": statistics.median(first_cpus) if first_cpus else None,
            "max": max(first_cpus) if first_cpus else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in first_cpus),
        },
        "run_cpu_over_import_cpu_s": {
            "median": statistics.median(cpus) if cpus else None,
            "max": max(cpus) if cpus else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in cpus),
        },
        "own_cpu_over_import_cpu_s": {
            "median": statistics.median(owns) if owns else None,
            "max": max(owns) if owns else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in owns),
        },
        "plain_run_cpu_over_import_cpu_s": {
            "median": statistics.median(plains) if plains else None,
            "max": max(plains) if plains else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in plains),
        },
        # The warm runner: from the request to the first failure, nothing subtracted.
        "warm_crashes_found": sum(bool(r.get("warm_ok")) for r in crashes),
        "warm_first_failure_s": {
            "median": statistics.median(warm_walls) if warm_walls else None,
            "max": max(warm_walls) if warm_walls else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in warm_walls),
        },
        "warm_first_failure_cpu_s": {
            "median": statistics.median(warm_cpus) if warm_cpus else None,
            "max": max(warm_cpus) if warm_cpus else None,
            f"within_{TARGET_OVER_S:g}s": sum(t <= TARGET_OVER_S for t in warm_cpus),
        },
        "hooks_cpu_s": {
            "median": statistics.median(hooks) if hooks else None,
            "max": max(hooks) if hooks else None,
        },
        # Each verdict over the target, and whether the program's own work alone is.
        "over_target": {
            r["id"]: {
                "verdict_cpu_s": round(r["first_cpu_over_s"], 2),
                "own_cpu_s": round(r["own_cpu_over_s"], 2) if "own_cpu_over_s" in r else None,
                "plain_run_cpu_s": round(r["plain_cpu_over_s"], 2)
                if "plain_cpu_over_s" in r
                else None,
                "why": "own work" if own_work_over(r) > TARGET_OVER_S else "instrumentation",
            }
            for r in over
        },
        "max_steps": args.max_steps,
    }
    if args.json:
        print(json.dumps({"summary": summary, "cases": rows}, indent=2))
    else:
        print("(columns: kind, found, case, first-failure s over import, run s over import,")
        print(" CPU s to the first failure over import's, the script's own CPU s to the same")
        print(" backward (uninstrumented) over import's, the plain `python case.py` run's CPU s")
        print(" to its crash over import's, our hooks' CPU s (first - own), of")
        print(" which walking graphs, CPU s to the run's end over import's; warm runner: s and")
        print(" CPU s from the request to the first failure, and whether it found the crash;")
        print(" findings at runtime: confirmed static CODE@line, +runtime-only CODE@line)")
        print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
