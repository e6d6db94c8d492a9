"""Memory and time on hostile input: peak RSS per 100k lines, and the CLI on a hostile tree.

    python bench/hardening.py            # prints the numbers (nothing is asserted)
    python bench/hardening.py --json

1. Peak RSS of one `analyze()` per file size, each in a fresh process (so ru_maxrss is that
   analysis's), for generated training files (bench/latency.py's: models and loops as
   functions) and for module-level scripts (the samples concatenated: the costly shape),
   as MB per 100k lines; and a 50 MB, 1.6M-line file, which the analysis cuts at
   MAX_ANALYSED_LINES.
2. `autograd-lint check` on a tree holding FIFOs named *.py, a *.py symlink to /dev/zero,
   symlink loops, a symlink to the parent folder and a 50 MB file: wall time, exit status,
   peak RSS of the CLI, and its AG000 notes; once with the default max-file-size (the big
   file is skipped) and once with --max-file-size 100000000 (it is read and cut).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.py"))

MEASURE = """
import resource, sys, time
sys.path.insert(0, {bench!r})
from autograd_lint.analysis import analyze
text = open({path!r}, encoding="utf-8").read()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
findings = analyze(text, "big.py")
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(base, peak, cpu, len(findings))
"""


def scripts_text(lines: int) -> str:
    parts = [p.read_text(encoding="utf-8") for p in SAMPLES]
    out, count, index = [], 0, 0
    while count < lines:
        part = parts[index % len(parts)]
        out.append(part)
        count += part.count("\n") + 1
        index += 1
    return "\n".join(out)


def functions_text(lines: int) -> str:
    sys.path.insert(0, str(ROOT / "bench"))
    import latency  # noqa: PLC0415 - the latency bench's generated training file

    return latency.training_file(lines)


def measure(text: str, workdir: Path) -> dict:
    path = workdir / "input.py"
    path.write_text(text, encoding="utf-8")
    code = MEASURE.format(bench=str(ROOT / "bench"), path=str(path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    base, peak, cpu, findings = out.stdout.split()
    lines = text.count("\n") + 1
    return {
        "lines": lines,
        "mb": round(len(text.encode()) / 1e6, 1),
        "peak_rss_mb": round(int(peak) / 1024, 1),
        "analysis_rss_mb": round((int(peak) - int(base)) / 1024, 1),
        "cpu_s": round(float(cpu), 2),
        "findings": int(findings),
    }


def hostile_tree(root: Path) -> Path:
    pkg = root / "clone" / "pkg"
    pkg.mkdir(parents=True)
    (root / "clone" / ".git").mkdir()
    (pkg / "good.py").write_text((ROOT / "samples" / "ag001_rnn_hidden_buggy.py").read_text())
    for name in ("fifo.py", "another_fifo.py"):
        os.mkfifo(pkg / name)
    (pkg / "zero.py").symlink_to("/dev/zero")
    (pkg / "urandom.py").symlink_to("/dev/urandom")
    (pkg / "loop_a.py").symlink_to("loop_b.py")
    (pkg / "loop_b.py").symlink_to("loop_a.py")
    (pkg / "self_loop").symlink_to("self_loop")
    (pkg / "parent").symlink_to("..")
    (pkg / "big.py").write_text(scripts_text(1_600_000), encoding="utf-8")
    return root / "clone"


CLI = (
    "import resource, sys\n"
    "from autograd_lint.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('peak-rss-kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run_cli(clone: Path, *extra: str) -> dict:
    command = [sys.executable, "-c", CLI, "check", "pkg", *extra]
    start = time.monotonic()
    result = subprocess.run(command, cwd=clone, capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - start
    peak = [line.split()[1] for line in result.stderr.splitlines() if line.startswith("peak-rss")]
    notes = [line for line in result.stdout.splitlines() if " AG000 " in line]
    return {
        "args": " ".join(extra) or "(defaults)",
        "exit": result.returncode,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(int(peak[0]) / 1024, 1) if peak else None,
        "traceback": "Traceback" in result.stderr,
        "notes": notes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict = {"analysis": [], "cli": []}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for shape, make in (("functions", functions_text), ("scripts", scripts_text)):
            for lines in (25_000, 50_000, 100_000):
                results["analysis"].append({"shape": shape, **measure(make(lines), workdir)})
        results["analysis"].append(
            {"shape": "scripts", **measure(scripts_text(1_600_000), workdir)}
        )
        clone = hostile_tree(workdir / "hostile")
        results["cli"].append(run_cli(clone))
        results["cli"].append(run_cli(clone, "--max-file-size", "100000000"))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print("analyze(): peak RSS of a fresh process per file (MB per 100k lines = analysis RSS")
    print("scaled to 100k lines; files past 60,000 lines are cut, so their figure falls)")
    for row in results["analysis"]:
        per = row["analysis_rss_mb"] * 100_000 / row["lines"]
        print(
            f"  {row['shape']:9} {row['lines']:>9,} lines {row['mb']:>5} MB: peak "
            f"{row['peak_rss_mb']:>7} MB (analysis {row['analysis_rss_mb']} MB, "
            f"{per:.0f} MB/100k lines), {row['cpu_s']} s CPU, {row['findings']} findings"
        )
    print("autograd-lint check on a hostile tree (FIFOs, /dev/zero, loops, a 50 MB file):")
    for row in results["cli"]:
        print(
            f"  {row['args']}: exit {row['exit']}, {row['wall_s']} s, peak RSS "
            f"{row['peak_rss_mb']} MB, traceback: {row['traceback']}"
        )
        for note in row["notes"]:
            print(f"    {note[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
