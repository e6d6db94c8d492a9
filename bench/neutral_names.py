"""Name independence: do the findings survive renaming every name a file binds?

    python bench/neutral_names.py [PATHS...] [--json OUT] [--write DIR] [--no-blame] [--rename-self]
    python bench/neutral_names.py --check-runs [--rename-self] [FILES...]

Issue 12 asks that the analysis know values by evidence, not by what the user called them.
Each file is analyzed as written and renamed by `neutral_renamer.rename_source` (every name
it binds becomes `v1`, `v2`, ...; imports, builtins, torch's attributes and framework hooks
stay; lines never move). Findings are compared by (line, code): kept, lost, added. A lost
finding is blamed on each name whose renaming alone loses it, which says what spelling
the analysis read. Default sets: samples/*.py, tests/corpus/, tests/realworld/cases/ (a
file of a case's project folder is analysed with that project's imports, as the CLI would),
and the yardstick's project cases renamed across all their files (`rename_project`: the
names another file of the project spells stay, so imports and shared attributes still meet).

`--check-runs` proves the renamer keeps behaviour: it runs each runnable file (default:
samples/*.py, tests/realworld/runnable/*.py and the tests/corpus/ files headed `# runnable`)
and its renamed version under torch and compares the outcomes (clean, or the same error
type at the same line).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "server"), str(ROOT / "tests" / "realworld")]

from autograd_lint.analysis import analyze  # noqa: E402
from neutral_renamer import Renamed, rename_source  # noqa: E402

DEFAULT_SETS = {
    "samples": ["samples"],
    "corpus": ["tests/corpus"],
    "realworld": ["tests/realworld/cases"],
}
RUNNABLE = ["samples", "tests/realworld/runnable"]
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def python_files(paths: list[str]) -> list[Path]:
    """Files under the paths; a folder's own files only for samples/ (its project_*/
    folders import each other, and a file renamed alone would no longer match its peer)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(path.glob("*.py" if path.name == "samples" else "**/*.py"))
    return [p for p in found if "__pycache__" not in p.parts]


def runnable_files() -> list[Path]:
    def headed(path: Path) -> bool:
        with path.open(encoding="utf-8") as lines:
            return lines.readline().startswith("# runnable")

    corpus = [p for p in python_files([str(ROOT / "tests/corpus")]) if headed(p)]
    return python_files([str(ROOT / p) for p in RUNNABLE]) + corpus


def project_resolver(path: Path):
    """How the CLI resolves a yardstick project's imports (tests/realworld/README.md): for a
    file of a case's project, within that case's folder (yardstick.Case.resolver); None for
    any other file."""
    import yardstick

    case = yardstick.case_of(path)
    return case.resolver() if case is not None else None


def spelled(source: str) -> set[str]:
    """Every identifier a file spells, in code or inside a string (a getattr name, a key)."""
    words: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME:
            words.add(token.string)
        elif token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            words.update(IDENTIFIER.findall(token.string))
    return words


def rename_project(case, rename_self: bool = False) -> dict[Path, Renamed]:
    """Every file of a yardstick case (`case.files`: its entry, its project's modules)
    renamed, except the names another file of the project spells (what one imports from
    another, an attribute one sets and another reads): the project still fits together,
    and each file's own names are neutral. A single-file case is renamed whole."""
    sources = {path: path.read_text(encoding="utf-8") for path in case.files}
    spellings = {path: spelled(text) for path, text in sources.items()}
    renamed = {}
    for path, text in sources.items():
        elsewhere = set().union(*(words for other, words in spellings.items() if other != path))
        own = set(rename_source(text, rename_self=rename_self).mapping) - elsewhere
        renamed[path] = rename_source(text, own, rename_self)
    return renamed


def measure_projects(rename_self: bool = False) -> dict:
    """The yardstick's project cases renamed across all their files (rename_project), each
    entry analysed as the yardstick does with its renamed modules (yardstick.case_findings)."""
    import yardstick

    total: dict = {"projects": 0, "kept": 0, "lost": [], "added": []}
    for case in yardstick.load_manifest():
        if case.project is None:
            continue
        renamed = rename_project(case, rename_self)
        before = _keys(yardstick.case_findings(case))
        after = _keys(yardstick.case_findings(case, {p: r.text for p, r in renamed.items()}))
        total["projects"] += 1
        total["kept"] += sum((before & after).values())
        total["lost"] += [f"{case.id}:{line} {code}" for line, code in (before - after).elements()]
        total["added"] += [f"{case.id}:{line} {code}" for line, code in (after - before).elements()]
    return total


def _keys(findings) -> Counter:
    return Counter((f.span.start.line, f.code) for f in findings)


def _shown(path: Path) -> Path:
    """The path relative to the repository when inside it: findings read the same anywhere."""
    try:
        return path.resolve().relative_to(ROOT)
    except ValueError:
        return path


def _blame(source: str, path: Path, names: set[str], row: dict, rename_self: bool, resolver):
    """The names whose renaming alone loses the finding; when none does alone, the names
    that must all be renamed for it to be lost (renaming all the others keeps it)."""
    key = (row["line"], row["code"])

    def lost_with(only: set[str]) -> bool:
        text = rename_source(source, only, rename_self).text
        return key not in _keys(analyze(text, str(path), resolver=resolver))

    alone = sorted(name for name in names if lost_with({name}))
    if alone:
        return alone, False
    return sorted(name for name in names if not lost_with(names - {name})), True


def compare_file(path: Path, blame: bool = True, rename_self: bool = False) -> dict:
    """The findings of one file as written and renamed, with the lost ones blamed."""
    source = path.read_text(encoding="utf-8")
    resolver = project_resolver(path)
    path = _shown(path)
    try:
        renamed = rename_source(source, rename_self=rename_self)
    except SyntaxError:
        return {"skipped": "does not parse"}
    compile(renamed.text, str(path), "exec")  # the renamed file must stay valid Python
    before = analyze(source, str(path), resolver=resolver)
    after = analyze(renamed.text, str(path), resolver=resolver)
    kept = _keys(before) & _keys(after)
    lost_keys, added_keys = _keys(before) - _keys(after), _keys(after) - _keys(before)

    def listed(findings, keys: Counter) -> list[dict]:
        keys = keys.copy()
        rows = []
        for f in findings:
            key = (f.span.start.line, f.code)
            if keys[key] > 0:
                keys[key] -= 1
                rows.append({"file": str(path), "line": key[0], "code": f.code,
                             "message": f.message[:100]})  # fmt: skip
        return rows

    lost = listed(before, lost_keys)
    for row in lost if blame else []:
        blamed = _blame(source, path, set(renamed.mapping), row, rename_self, resolver)
        row["names"], row["together"] = blamed
    return {"kept": sum(kept.values()), "lost": lost, "added": listed(after, added_keys),
            "kept_codes": Counter(code for _, code in kept.elements()),
            "renamed_names": len(renamed.mapping)}  # fmt: skip


def measure(files: list[Path], blame: bool = True, rename_self: bool = False) -> dict:
    total: dict = {"files": len(files), "skipped": [], "kept": 0, "lost": [], "added": []}
    total["kept_codes"] = Counter()
    for path in files:
        result = compare_file(path, blame, rename_self)
        if "skipped" in result:
            total["skipped"].append(str(_shown(path)))
            continue
        for key in ("kept", "lost", "added", "kept_codes"):
            total[key] += result[key]
    return total


def report(name: str, total: dict) -> None:
    lost, added = total["lost"], total["added"]
    original = total["kept"] + len(lost)
    print(f"== {name}: {total['files']} files ({len(total['skipped'])} not parsed, skipped)")
    print(f"   findings: {original} as written; kept {total['kept']}, lost {len(lost)},"
          f" added {len(added)}")  # fmt: skip
    for label, rows in (("kept", None), ("lost", lost), ("added", added)):
        codes = total["kept_codes"] if rows is None else Counter(r["code"] for r in rows)
        print(f"   {label} by code: " + (", ".join(f"{c} {n}" for c, n in sorted(codes.items()))
                                        or "none"))  # fmt: skip
    for label, rows in (("lost", lost), ("added", added)):
        for row in rows:
            how = "names together" if row.get("together") else "names"
            names = f"  [{how}: {', '.join(row['names'])}]" if "names" in row else ""
            print(f"   {label} {row['file']}:{row['line']} {row['code']} {row['message']}{names}")
    blamed = Counter(n for row in lost for n in row.get("names", []))
    if blamed:
        print(
            "   lost findings per name: " + ", ".join(f"{n} {c}" for n, c in blamed.most_common())
        )


def check_runs(files: list[Path], rename_self: bool = False) -> int:
    """Run each file and its renamed version; print and count the outcomes that differ."""
    import os

    from run_cases import error_kind, run_one

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch  # imported once, before run_one's forks

    # The first optimizer step imports more of torch lazily (seconds): once, not per child.
    warm = torch.nn.Linear(2, 1)
    warm(torch.ones(1, 2)).sum().backward()
    torch.optim.Adam(warm.parameters()).step()

    def outcome(result: dict) -> tuple:
        kind = error_kind(result.get("message", "")) if result["outcome"] == "raised" else None
        return result["outcome"], result.get("error_type"), result.get("line"), kind

    differ = 0
    with tempfile.TemporaryDirectory(prefix="neutral-") as tmp:
        for path in files:
            renamed_path = Path(tmp) / path.name
            text = rename_source(path.read_text(encoding="utf-8"), rename_self=rename_self).text
            renamed_path.write_text(text, encoding="utf-8")
            before = outcome(run_one(path.resolve(), 120))
            after = outcome(run_one(renamed_path, 120))
            differ += before != after
            verdict = "same" if before == after else f"DIFFERS: renamed {after}"
            print(
                f"{path}: {before[0]} {before[1] or ''} {before[2] or ''} -> {verdict}", flush=True
            )
    print(f"{len(files) - differ} of {len(files)} renamed files behave the same")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    parser.add_argument("--write", type=Path, help="write the renamed files under this folder")
    parser.add_argument("--no-blame", action="store_true", help="skip blaming lost findings")
    parser.add_argument("--rename-self", action="store_true", help="rename `self`/`cls` too")
    parser.add_argument("--check-runs", action="store_true", help="run files and renamed files")
    args = parser.parse_args(argv)
    if args.check_runs:
        files = python_files(args.paths) if args.paths else runnable_files()
        return check_runs(files, args.rename_self)
    sets = {p: [p] for p in args.paths} if args.paths else DEFAULT_SETS
    numbers = {}
    for name, paths in sets.items():
        files = python_files([p if args.paths else str(ROOT / p) for p in paths])
        total = measure(files, not args.no_blame, args.rename_self)
        report(name, total)
        numbers[name] = {
            **total,
            "lost_count": len(total["lost"]),
            "added_count": len(total["added"]),
        }
        for path in files if args.write else []:
            try:
                text = rename_source(path.read_text(encoding="utf-8"), None, args.rename_self).text
            except SyntaxError:
                continue
            target = args.write / path.resolve().relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if not args.paths:
        projects = measure_projects(args.rename_self)
        print(f"== realworld projects renamed across their files: {projects['projects']} cases")
        print(f"   findings on the entries: kept {projects['kept']}, lost {len(projects['lost'])},"
              f" added {len(projects['added'])}")  # fmt: skip
        for label in ("lost", "added"):
            for row in projects[label]:
                print(f"   {label} {row}")
        numbers["realworld projects"] = projects
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
