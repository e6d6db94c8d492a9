"""Throughput of `autograd_lint.analysis.analyze` on real PyTorch code, beside `ast.parse`.

    python bench/throughput.py                      # default packages, best of 3
    python bench/throughput.py --packages timm skorch --repeat 5
    python bench/throughput.py --json > numbers.json
    python bench/throughput.py --list-findings      # every finding with its evidence

The sources are fetched from PyPI into `.bench-cache/` on first use (see corpus.py).
Everything runs in this one process, pinned to one core, and is timed in CPU seconds
of the process (time.process_time), so the numbers are single-core numbers that a
busy machine disturbs less. `analyze` parses the file itself, so its time includes a
parse.
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import corpus
from autograd_lint.analysis import analyze

TARGET_LINES_PER_SECOND = 40_000
TARGET_ANALYZE_OVER_PARSE = 2.0
LIBCST_SAMPLE_FILES = 5
REPORTED_CRASHES = 5


@dataclass
class PackageResult:
    name: str
    files: int
    lines: int
    parse_s: float
    analyze_s: float
    findings: Counter = field(default_factory=Counter)
    crashes: list[str] = field(default_factory=list)

    @property
    def lines_per_s(self) -> float:
        return self.lines / self.analyze_s if self.analyze_s else float("inf")

    @property
    def ratio(self) -> float:
        return self.analyze_s / self.parse_s if self.parse_s else float("inf")

    def to_json(self) -> dict:
        return {
            "package": self.name,
            "files": self.files,
            "lines": self.lines,
            "parse_s": round(self.parse_s, 4),
            "analyze_s": round(self.analyze_s, 4),
            "lines_per_s": round(self.lines_per_s),
            "analyze_over_parse": round(self.ratio, 3),
            "findings": dict(sorted(self.findings.items())),
            "crashes": self.crashes,
        }


def pin_to_one_core() -> int | None:
    """Pin this process to one of the cores it may use; returns the core, or None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


def count_lines(source: str) -> int:
    return source.count("\n") + (0 if source.endswith("\n") or not source else 1)


def best_time(run, repeat: int) -> float:
    # CPU time of this (single-threaded, pinned) process: on a shared machine the
    # wall clock also counts the time other processes held the core.
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def parse_all(files: list[tuple[str, str]]) -> None:
    for label, source in files:
        try:  # noqa: SIM105 - contextlib.suppress would add its own cost to the timing
            ast.parse(source, label)
        except SyntaxError:
            pass


def analyze_all(files: list[tuple[str, str]], sink: list | None = None) -> None:
    for label, source in files:
        try:
            findings = analyze(source, label)
        except Exception as exc:  # an engine crash on real code is a result, not a stop
            if sink is not None:
                sink.append((label, None, f"{type(exc).__name__}: {exc}"))
            continue
        if sink is not None:
            sink.append((label, findings, None))


def measure(name: str, files: list[tuple[str, str]], repeat: int, collected: list) -> PackageResult:
    parse_s = best_time(lambda: parse_all(files), repeat)
    analyze_s = best_time(lambda: analyze_all(files), repeat)
    # One more, untimed pass keeps the findings out of the timed ones' memory traffic.
    outcomes: list = []
    analyze_all(files, outcomes)
    result = PackageResult(
        name, len(files), sum(count_lines(s) for _, s in files), parse_s, analyze_s
    )
    for label, findings, crash in outcomes:
        if crash is not None:
            result.crashes.append(f"{label}: {crash}")
            continue
        result.findings.update(f.code for f in findings)
        collected.extend(findings)
    return result


def time_libcst(files: list[tuple[str, str]]) -> dict | None:
    """libcst parse time of the biggest files, for the record (the design chose `ast`)."""
    try:
        import libcst
    except ImportError:
        return None
    biggest = sorted(files, key=lambda item: len(item[1]), reverse=True)[:LIBCST_SAMPLE_FILES]
    parseable = []
    for label, source in biggest:
        try:
            ast.parse(source, label)
        except SyntaxError:
            continue
        parseable.append((label, source))
    lines = sum(count_lines(s) for _, s in parseable)
    cst_s = best_time(lambda: [libcst.parse_module(s) for _, s in parseable], 1)
    ast_s = best_time(lambda: parse_all(parseable), 3)
    return {"files": len(parseable), "lines": lines, "libcst_s": cst_s, "ast_s": ast_s}


def format_findings(result: PackageResult) -> str:
    return " ".join(f"{code}:{n}" for code, n in sorted(result.findings.items())) or "-"


def print_table(results: list[PackageResult], total: PackageResult, core: int | None) -> None:
    header = f"{'package':<20}{'files':>7}{'lines':>10}{'parse s':>10}{'analyze s':>11}"
    header += f"{'lines/s':>11}{'an/parse':>10}  findings"
    print(f"one process pinned to core {core}; CPU seconds, best of the repeats")
    print(header)
    print("-" * len(header))
    for row in [*results, total]:
        if row is total:
            print("-" * len(header))
        print(
            f"{row.name:<20}{row.files:>7}{row.lines:>10}{row.parse_s:>10.3f}{row.analyze_s:>11.3f}"
            f"{row.lines_per_s:>11,.0f}{row.ratio:>10.2f}  {format_findings(row)}"
        )
    speed_ok = total.lines_per_s >= TARGET_LINES_PER_SECOND
    ratio_ok = total.ratio <= TARGET_ANALYZE_OVER_PARSE
    print(
        f"target: >= {TARGET_LINES_PER_SECOND:,} lines/s  -> "
        f"{'met' if speed_ok else 'MISSED'} ({total.lines_per_s:,.0f})"
    )
    print(
        f"target: analyze <= {TARGET_ANALYZE_OVER_PARSE:g}x parse -> "
        f"{'met' if ratio_ok else 'MISSED'} ({total.ratio:.2f}x)"
    )
    for row in results:
        for crash in row.crashes[:REPORTED_CRASHES]:
            print(f"CRASH {crash}")
        if len(row.crashes) > REPORTED_CRASHES:
            print(f"CRASH ... {len(row.crashes) - REPORTED_CRASHES} more in {row.name}")


def print_libcst(record: dict | None) -> None:
    if record is None:
        print("libcst: not installed")
        return
    print(
        f"libcst parse of the {record['files']} biggest files ({record['lines']:,} lines): "
        f"{record['libcst_s']:.3f} s = {record['lines'] / record['libcst_s']:,.0f} lines/s, "
        f"{record['libcst_s'] / record['ast_s']:.1f}x ast.parse ({record['ast_s']:.3f} s)"
    )


def finding_to_json(finding) -> dict:
    start = finding.span.start
    return {
        "path": finding.path,
        "line": start.line,
        "column": start.column,
        "code": finding.code,
        "message": finding.message,
        "evidence": [{"role": step.role.value, **step.to_json()} for step in finding.evidence],
    }


def list_findings(findings: list) -> None:
    for finding in sorted(findings, key=lambda f: f.sort_key()):
        start = finding.span.start
        print(f"{finding.path}:{start.line}:{start.column} {finding.code} {finding.message}")
        for step in finding.evidence:
            where = f"{step.path}:" if step.path else ""
            line, col = step.span.start.line, step.span.start.column
            print(f"    {where}{line}:{col} [{step.role.value}] {step.message}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--packages",
        nargs="+",
        metavar="PKG",
        help="package names or pip requirements (default: %(default)s)",
        default=[spec.name for spec in corpus.DEFAULT_PACKAGES],
    )
    parser.add_argument("--repeat", type=int, default=3, help="take the best of N timed passes")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--list-findings",
        action="store_true",
        help="print every finding with its evidence (inside the JSON with --json)",
    )
    parser.add_argument("--cache-dir", type=Path, default=corpus.CACHE_DIR)
    args = parser.parse_args(argv)

    core = pin_to_one_core()
    log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
    results: list[PackageResult] = []
    every_file: list[tuple[str, str]] = []
    findings: list = []
    for requested in args.packages:
        spec = corpus.find_spec(requested)
        folder = corpus.fetch(spec, args.cache_dir, log=log)
        if folder is None:
            continue
        files = [(str(p.relative_to(folder)), s) for p, s in corpus.read_sources(folder)]
        every_file.extend(files)
        results.append(measure(spec.name, files, max(args.repeat, 1), findings))
    if not results:
        log("no package could be fetched")
        return 1

    total = PackageResult(
        "TOTAL",
        sum(r.files for r in results),
        sum(r.lines for r in results),
        sum(r.parse_s for r in results),
        sum(r.analyze_s for r in results),
        sum((r.findings for r in results), Counter()),
    )
    libcst_record = time_libcst(every_file)
    if args.json:
        payload = {
            "core": core,
            "repeat": args.repeat,
            "packages": [r.to_json() for r in results],
            "total": total.to_json(),
            "targets": {
                "lines_per_s": TARGET_LINES_PER_SECOND,
                "analyze_over_parse": TARGET_ANALYZE_OVER_PARSE,
            },
            "libcst": libcst_record,
        }
        if args.list_findings:
            ordered = sorted(findings, key=lambda f: f.sort_key())
            payload["findings"] = [finding_to_json(f) for f in ordered]
        print(json.dumps(payload, indent=2))
        return 0
    print_table(results, total, core)
    print_libcst(libcst_record)
    if args.list_findings:
        list_findings(findings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
