"""Score the analyzer on the real-world yardstick (tests/realworld/).

    python bench/realworld.py [--json OUT] [--domain D]

A case that carries its repository's modules (`project` in the manifest) is analysed
with its folder as the project root, its imports resolved as `autograd-lint check` does.
Prints recall (a crash is found when AG001/AG002 — for the in-place error of a retained
carried graph also AG007 — is reported at its failing line), false alarms (AG001/AG002/
AG007 on a correct program), a table by mechanism, and every miss and false alarm.
The labels come from running each case's completion with torch (tests/test_realworld.py).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "realworld"))
sys.path.insert(0, str(HERE.parent / "server"))

import yardstick  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the score as JSON here")
    parser.add_argument("--domain", help="only the cases of this domain")
    args = parser.parse_args(argv)

    cases = yardstick.load_manifest()
    if args.domain:
        cases = [case for case in cases if case.domain == args.domain]
    started = time.perf_counter()
    result = yardstick.score(cases)
    seconds = time.perf_counter() - started
    summary = result.summary()
    sources = len({case.source for case in cases})
    projects = sum(case.project is not None for case in cases)

    print(
        f"real-world yardstick: {summary['cases']} cases from {sources} threads, {projects} "
        f"analysed as projects with their repository's modules ({seconds:.2f} s)"
    )
    print(
        f"recall:       {summary['found']}/{summary['crashes']} crashes found at the failing "
        f"line = {summary['recall']:.0%}"
    )
    print(
        f"false alarms: {summary['false_alarms']}/{summary['correct']} correct programs "
        "get AG001/AG002/AG007"
    )
    print()
    width = max((len(name) for name in result.by_mechanism()), default=10)
    print(f"{'mechanism':<{width}}  crashes  found  correct  false alarms")
    for name, row in result.by_mechanism().items():
        print(
            f"{name:<{width}}  {row['crashes']:>7}  {row['found']:>5}  "
            f"{row['correct']:>7}  {row['false alarms']:>12}"
        )
    if result.missed:
        print("\nmissed crashes:")
        for verdict in result.missed:
            case = verdict.case
            got = ", ".join(f"{code}@{line}" for line, code in verdict.alarms) or "nothing"
            extra = f" [analysis raised {verdict.error}]" if verdict.error else ""
            print(f"  {case.id} ({case.mechanism}) {case.file}:{case.line}: got {got}{extra}")
    if result.false_alarms:
        print("\nfalse alarms:")
        for verdict in result.false_alarms:
            case = verdict.case
            got = ", ".join(f"{code}@{line}" for line, code in verdict.alarms)
            print(f"  {case.id} ({case.mechanism}) {case.file}: {got}")
    if args.json:
        payload = dict(
            summary,
            by_mechanism={name: dict(row) for name, row in result.by_mechanism().items()},
            missed=[v.case.id for v in result.missed],
            false_alarms=[v.case.id for v in result.false_alarms],
        )
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
