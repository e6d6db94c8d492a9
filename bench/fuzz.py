"""Fuzz the language server for minutes: random incremental edits and junk messages.

    python bench/fuzz.py                    # 5 minutes over the samples and tests/corpus
    python bench/fuzz.py --minutes 1 --seed 3 --json

Prints the counts: edits applied, bursts (each one ends with an incremental-vs-fresh
comparison), junk messages, crashes, hangs, incremental-vs-fresh mismatches and
processes spawned (none may be: confirmation is not enabled). Problems are written to
--out (the text of the document that showed each one), to reproduce them. The same
fuzzer runs for 20 s in the test suite (tests/fuzz/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

from fuzzing import SOURCES, Fuzzer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a hang")
    parser.add_argument("--out", type=Path, default=ROOT / ".bench-cache" / "fuzz-problems.txt")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as workspace:
        fuzzer = Fuzzer(Path(workspace), args.seed, args.timeout, SOURCES)
        counts = fuzzer.run(args.minutes * 60)
    elapsed = time.monotonic() - started
    if counts.problems:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n\n".join(counts.problems), encoding="utf-8")
    if args.json:
        numbers = {k: v for k, v in vars(counts).items() if k != "problems"}
        print(json.dumps({**numbers, "seconds": round(elapsed, 1), "sources": len(SOURCES)}))
    else:
        print(f"fuzzed {elapsed:.0f} s over {len(SOURCES)} sources (seed {args.seed}):")
        print(counts.line())
        if counts.problems:
            print(f"problems written to {args.out}")
    bad = counts.crashes + counts.hangs + counts.mismatches + counts.spawned
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
