"""Mutation testing of the pure analysis: how many small deliberate bugs the suite catches.

    python bench/mutation.py                       # every mutant of server/autograd_lint/analysis
    python bench/mutation.py --modules interp calls syntax_facts   # only these modules
    python bench/mutation.py --sample 300 --seed 1 # a random sample of the mutants
    python bench/mutation.py --modules lifetimes report --sample 30 --per-module  # 30 of each
    python bench/mutation.py --show                # and the diff of every survivor
    python bench/mutation.py --survivors           # only the last run's survivors, again
    python bench/mutation.py --rev HEAD            # a commit's tree, not the working tree
    python bench/mutation.py --functions engine._parameter_classes engine.AnalysisCache.update_blocks
                                                   # every mutant of these functions only

Runs mutmut (`pip install -r bench/requirements-mutation.txt`) with bench/mutmut.cfg.
mutmut only finds code under ./, src/ or source/, and this repository keeps the package in
server/, so the script copies the package, the tests and the samples to the top of a
scratch tree (.bench-cache/mutation/, kept between runs: mutmut reuses the verdicts of
mutants whose function did not change) and runs mutmut there; nothing in the checkout is
touched. The test command is the fast static suites listed in bench/mutmut.cfg.

Prints killed / survived / timeout (and any other mutmut status) per module and in total,
then the name of every survivor. A survivor is either a gap in the suite (write a test
whose verdict the mutant changes) or equivalent (the mutant cannot change any result);
docs/mutation.md records the latest run and the reason for each equivalent survivor.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WORK = ROOT / ".bench-cache" / "mutation"
COPIED = {
    "server/autograd_lint": "autograd_lint",
    "tests": "tests",
    "samples": "samples",
    "docs": "docs",
    "pyproject.toml": "pyproject.toml",
    "bench/mutmut.cfg": "setup.cfg",
}
# A mutmut mutant name: autograd_lint.analysis.<module>.<function>__mutmut_<n>.
PREFIX = "autograd_lint.analysis."


def prepare(work: Path, rev: str | None) -> None:
    """Mirror the files mutmut needs into `work`, keeping mtimes (mutmut's change test).

    With `rev`, from that commit's tree: a shared checkout's unfinished edits stay out.
    """
    work.mkdir(parents=True, exist_ok=True)
    root = ROOT
    if rev:
        root = work.parent / f"{work.name}-tree"
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, *COPIED], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    # tests/realworld/ comes too: the yardstick's score floor (test_realworld.py) is in the
    # test command, and it is what holds the library-layer rows.
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for source, target in COPIED.items():
        src, dst = root / source, work / target
        if src.is_dir():
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=ignore)
        else:
            shutil.copy2(src, dst)


def mutmut(work: Path, *args: str, quiet: bool = False) -> int:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1"}
    # The checkout's editable install must not shadow the mutated copy: mutmut puts
    # mutants/ first on sys.path, and PYTHONPATH would come before it.
    env.pop("PYTHONPATH", None)
    output = subprocess.DEVNULL if quiet else None
    command = [sys.executable, "-m", "mutmut", *args]
    return subprocess.call(command, cwd=work, env=env, stdout=output, stderr=output)


def verdicts(work: Path) -> dict[str, str]:
    """Every generated mutant's status, read from mutmut's own result files."""
    code = (
        "import json\n"
        "from mutmut.__main__ import SourceFileMutationData, walk_mutatable_files\n"
        "from mutmut.stats import status_by_exit_code\n"
        "out = {}\n"
        "for path in walk_mutatable_files():\n"
        "    m = SourceFileMutationData(path=path)\n"
        "    m.load()\n"
        "    out.update({k: status_by_exit_code[v] for k, v in m.exit_code_by_key.items()})\n"
        "print(json.dumps(out))\n"
    )
    import json

    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=work, capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def function_pattern(dotted: str) -> str:
    """mutmut's names for the mutants of `module.function` or `module.Class.method`: it
    mangles a function to `x_<name>` and a method to `xǁ<Class>ǁ<name>`."""
    module, _, rest = dotted.partition(".")
    owner, _, function = rest.rpartition(".")
    mangled = f"xǁ{owner}ǁ{function}" if owner else f"x_{function}"
    return f"{PREFIX}{module}.{mangled}__mutmut_*"


def module_of(name: str) -> str:
    return name[len(PREFIX) :].split(".")[0] if name.startswith(PREFIX) else name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--modules", nargs="*", help="analysis modules to mutate (default all)")
    parser.add_argument("--sample", type=int, help="run only this many mutants, drawn at random")
    parser.add_argument(
        "--per-module", action="store_true", help="draw --sample mutants from each module"
    )
    parser.add_argument(
        "--survivors", action="store_true", help="run again only the last run's survivors"
    )
    parser.add_argument(
        "--functions",
        nargs="*",
        help="only these functions' mutants: module.function or module.Class.method",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--show", action="store_true", help="print each survivor's diff")
    parser.add_argument("--report-only", action="store_true", help="print the last run's table")
    parser.add_argument("--rev", help="mutate this commit's tree instead of the working tree")
    args = parser.parse_args(argv)

    wanted = [function_pattern(name) for name in args.functions or []]

    def selected(name: str) -> bool:
        """In a module of --modules or a function of --functions (every mutant with neither)."""
        if not args.modules and not wanted:
            return True
        return module_of(name) in (args.modules or ()) or any(fnmatch(name, p) for p in wanted)

    work = args.work.resolve()
    if not args.report_only:
        prepare(work, args.rev)
        patterns = [f"{PREFIX}{m}.*" for m in args.modules or []]
        patterns += wanted
        if args.survivors:
            # After writing tests for them: named mutants are run again, whatever mutmut
            # recorded (a mutant whose function changed since is generated anew, unrun).
            previous = verdicts(work)
            patterns = sorted(
                name for name, status in previous.items() if status == "survived" and selected(name)
            )
            if not patterns:
                print("no survivors recorded")
                return 0
        elif args.sample:
            # Generate the mutants (and mutmut's test map) without running any, then draw.
            # mutmut has no generate-only command: a pattern that matches no mutant makes it
            # stop, with an assertion, right after generating.
            mutmut(work, "run", "--max-children", str(args.jobs), f"{PREFIX}__none__", quiet=True)
            names = sorted(name for name in verdicts(work) if selected(name))
            rng = random.Random(args.seed)
            groups: dict[str, list[str]] = {}
            for name in names:
                groups.setdefault(module_of(name) if args.per_module else "", []).append(name)
            patterns = sorted(
                drawn
                for group in groups.values()
                for drawn in rng.sample(group, min(args.sample, len(group)))
            )
        mutmut(work, "run", "--max-children", str(args.jobs), *patterns)

    results = verdicts(work)
    if (args.sample or args.survivors) and not args.report_only:
        # Only this run's draw: the scratch tree keeps earlier runs' verdicts too.
        results = {k: v for k, v in results.items() if k in set(patterns)}
    results = {k: v for k, v in results.items() if selected(k)}
    checked = {k: v for k, v in results.items() if v != "not checked"}
    by_module: dict[str, Counter] = {}
    for name, status in checked.items():
        by_module.setdefault(module_of(name), Counter())[status] += 1
    statuses = ["killed", "survived", "timeout"]
    statuses += sorted({s for c in by_module.values() for s in c} - set(statuses))
    print(f"{'module':<16}" + "".join(f"{s:>10}" for s in statuses))
    total: Counter = Counter()
    for module, counts in sorted(by_module.items()):
        total.update(counts)
        print(f"{module:<16}" + "".join(f"{counts[s]:>10}" for s in statuses))
    print(f"{'total':<16}" + "".join(f"{total[s]:>10}" for s in statuses))
    survivors = sorted(k for k, v in checked.items() if v == "survived")
    for name in survivors:
        print(f"survived: {name}")
        if args.show:
            mutmut(work, "show", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
