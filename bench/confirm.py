"""Runtime confirmation: time from command to verdict, beside `python -c "import torch"`.

    python bench/confirm.py                    # every buggy sample and runtime fixture
    python bench/confirm.py --repeat 3 --only rnn gan
    python bench/confirm.py --device cuda:0 --json

For each buggy script, `confirm()` runs it under the harness (the script's findings built
from its `# expect:` marks, as the tests do) and is timed from the call to the verdict:

- `total s`: the whole command, process start to verdict, median of --repeat runs;
- `script s`: from the harness's `start` event (torch imported, the script about to run)
  to the verdict: the user's code up to the failure plus the instrumentation;
- `over s`: `total` minus the median `python -c "import torch"` time, measured the same
  way just before. Target: at most 2 s on CPU;
- `plain s`: `python script.py` alone, to its own crash (or end), median of --repeat runs,
  for what the script itself costs: `total - plain` is the harness's share;
- `warm s`: the same `confirm()` once a warm child (runtime/warm.py) was pre-started for
  the script and has imported torch and its leading installed imports: from the call to
  the verdict, nothing subtracted (`--no-warm-runner` skips it). Target: at most 2 s.

Wall-clock times: on a shared machine run it when the load is low, and compare runs made
close together.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "runtime")]

from autograd_lint.runtime.runner import RuntimeOptions, confirm, format_verdict  # noqa: E402
from autograd_lint.runtime.warm import POOL  # noqa: E402
from runtime_support import SAMPLES, SCRIPTS, findings_for  # noqa: E402

TARGET_OVERHEAD_S = 2.0


def import_time(python: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([python, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def plain_time(python: str, script: Path, env: dict, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [python, str(script)],
            cwd=script.parent,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_confirm(script: Path, options: RuntimeOptions, repeat: int) -> dict:
    totals, script_times = [], []
    verdict = None
    for _ in range(repeat):
        marks = {}

        def on_event(event, marks=marks):
            marks.setdefault(event.get("event"), time.perf_counter())

        start = time.perf_counter()
        # one run answers every finding of the script; the first one is shown
        verdict = confirm(script, findings_for(script), options, on_event=on_event)[0]
        totals.append(time.perf_counter() - start)
        if "start" in marks and "verdict" in marks:
            script_times.append(marks["verdict"] - marks["start"])
    return {
        "script": script.name,
        "status": verdict.status,
        "verdict": format_verdict(verdict),
        "total_s": statistics.median(totals),
        "script_s": statistics.median(script_times) if script_times else None,
        "peak_memory_bytes": verdict.peak_memory_bytes,
    }


def time_warm_confirm(script: Path, options: RuntimeOptions, repeat: int) -> float | None:
    """Median seconds from `confirm()` to its verdict with a ready warm child each time."""
    totals = []
    for _ in range(repeat):
        child = POOL.prestart(script, options)
        if child is None or not child.reader.ready.wait(options.timeout_seconds):
            return None
        start = time.perf_counter()
        confirm(script, findings_for(script), options)
        totals.append(time.perf_counter() - start)
        if child.process.poll() is None:  # not taken: the run started cold
            return None
    return statistics.median(totals)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--only", nargs="*", help="substrings of script names to keep")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-warm-runner", action="store_true", help="cold runs only")
    args = parser.parse_args(argv)

    scripts = sorted(SAMPLES.glob("*_buggy.py")) + sorted(SCRIPTS.glob("*_buggy.py"))
    if args.only:
        scripts = [s for s in scripts if any(part in s.name for part in args.only)]
    env = {"FIXTURE_DEVICE": "cuda" if args.device.startswith("cuda") else "cpu"}
    options = RuntimeOptions(python=args.python, device=args.device, env=env)

    baseline = import_time(args.python, max(3, args.repeat))
    rows = []
    for script in scripts:
        row = time_confirm(script, options, args.repeat)
        row["over_s"] = row["total_s"] - baseline
        cpu_only = {"CUDA_VISIBLE_DEVICES": ""} if args.device == "cpu" else {}
        row["plain_s"] = plain_time(args.python, script, {**env, **cpu_only}, args.repeat)
        if not args.no_warm_runner:
            row["warm_s"] = time_warm_confirm(script, options, args.repeat)
        rows.append(row)
        if not args.json:
            script_s = f"{row['script_s']:8.2f}" if row["script_s"] is not None else "       -"
            warm_s = row.get("warm_s")
            print(
                f"{row['script']:36} {row['total_s']:8.2f} {script_s} {row['over_s']:7.2f}"
                f" {row['plain_s']:8.2f} {warm_s if warm_s is not None else float('nan'):7.2f}"
                f"  {row['verdict']}",
                flush=True,
            )
    POOL.close()
    over = [row["over_s"] for row in rows]
    warm = [row["warm_s"] for row in rows if row.get("warm_s") is not None]
    harness_share = [row["total_s"] - row["plain_s"] for row in rows]
    summary = {
        "import_torch_s": baseline,
        "median_total_minus_plain_s": statistics.median(harness_share) if rows else None,
        "median_over_s": statistics.median(over) if over else None,
        "max_over_s": max(over) if over else None,
        "median_warm_s": statistics.median(warm) if warm else None,
        "max_warm_s": max(warm) if warm else None,
        "within_target": {
            "cold_over_import": sum(t <= TARGET_OVERHEAD_S for t in over),
            "warm": sum(t <= TARGET_OVERHEAD_S for t in warm),
            "of": len(rows),
        },
        "target_over_s": TARGET_OVERHEAD_S,
        "device": args.device,
    }
    if args.json:
        print(json.dumps({"summary": summary, "scripts": rows}, indent=2))
    else:
        print(f"{'(columns: script, total s, script s, over s, plain s, warm s, verdict)':36}")
        print(
            f"import torch {baseline:.2f} s; over import: median {summary['median_over_s']:.2f} s,"
            f" max {summary['max_over_s']:.2f} s (target <= {TARGET_OVERHEAD_S:.0f} s);"
            f" total - plain: median {summary['median_total_minus_plain_s']:.2f} s"
        )
        if warm:
            within = summary["within_target"]
            print(
                f"warm runner, request to verdict: median {summary['median_warm_s']:.2f} s, max"
                f" {summary['max_warm_s']:.2f} s; within {TARGET_OVERHEAD_S:.0f} s: warm"
                f" {within['warm']}, cold (over import) {within['cold_over_import']}"
                f" of {within['of']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
