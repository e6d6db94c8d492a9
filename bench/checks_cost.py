"""What the AG005-AG007 checkers cost, beside `ast.parse` of the same text, in one run.

    python bench/checks_cost.py [PATHS...] [--repeat N]

Default paths: samples/, tests/corpus/, and the training corpus cache that
bench/training_scripts.py leaves in .bench-cache/training/ (when it is there). Prints the
files, the lines, CPU seconds (best of N) for `ast.parse` of every file and for
`run_checks` over blocks built once (no cache between runs: every run asks the evidence
afresh), and the findings per code. Issue 12 moved the checkers from name patterns to
evidence (constructors, use, imports); this says what that costs.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from autograd_lint.analysis.blocks import build_blocks, split_lines  # noqa: E402
from autograd_lint.analysis.checks import run_checks  # noqa: E402

DEFAULTS = (ROOT / "samples", ROOT / "tests" / "corpus", ROOT / ".bench-cache" / "training")


def sources_under(paths) -> list[str]:
    found = []
    for path in paths:
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            text = file.read_text(encoding="utf-8", errors="replace")
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                continue  # the checkers skip broken blocks; keep the comparison like for like
            found.append(text)
    return found


def best_cpu(work, repeat: int) -> float:
    best = None
    for _ in range(repeat):
        start = time.process_time()
        work()
        took = time.process_time() - start
        best = took if best is None else min(best, took)
    return best or 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = args.paths or [p for p in DEFAULTS if p.exists()]
    sources = sources_under(paths)
    lines = sum(text.count("\n") + 1 for text in sources)
    blocks = [build_blocks(text, split_lines(text)) for text in sources]
    codes: Counter = Counter()

    def check_all() -> None:
        codes.clear()
        for file_blocks in blocks:
            codes.update(f.code for f in run_checks(file_blocks, "bench.py"))

    parse_s = best_cpu(lambda: [ast.parse(text) for text in sources], args.repeat)
    check_s = best_cpu(check_all, args.repeat)
    print(f"files {len(sources)}, lines {lines} ({', '.join(str(p) for p in paths)})")
    print(f"ast.parse   {parse_s:7.2f} s CPU (best of {args.repeat})")
    print(f"run_checks  {check_s:7.2f} s CPU ({check_s / max(parse_s, 1e-9):.1f}x ast.parse)")
    print("findings    " + ", ".join(f"{code} {n}" for code, n in sorted(codes.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
