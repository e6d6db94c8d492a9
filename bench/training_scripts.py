"""Run the analyzer over the training code of popular open-source PyTorch repositories.

    python bench/training_scripts.py [--mirrors DIR] [--only REPO ...] [--list] [--json OUT]

The repositories, their pinned commits and which of their files count as training code
are listed in `bench/training_repos.json`. The files are read out of git mirrors (as the
`fetch` tool leaves them, `<mirrors>/<owner>+<name>/repo`) at the pinned commit and
written to `.bench-cache/training/<owner>+<name>/` (git-ignored, never committed), so
a finding's line can be read there. A notebook is analysed as its code cells joined
in order, with IPython lines (`%magic`, `!shell`) blanked so line numbers still match
the joined text, which is written beside it as `<name>.ipynb.py`.

Prints per repository the files, the lines and the count of each finding code: the
errors AG001/AG002/AG007 first, then the others. `--list` prints every error with its
evidence chain, for triage (bench/training_triage.md).
"""

from __future__ import annotations

import argparse
import codeop
import fnmatch
import json
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "server"))

from autograd_lint.analysis import analyze  # noqa: E402

MANIFEST = HERE / "training_repos.json"
CACHE = ROOT / ".bench-cache" / "training"
DEFAULT_MIRRORS = Path("/work/.mirror")
ERRORS = ("AG001", "AG002", "AG007")
OTHERS = ("AG000", "AG003", "AG004", "AG005", "AG006")

# What makes a file "training code" inside a repository's include globs: a training-like
# file name, or a backward / a Lightning training_step in its text.
TRAINING_NAME = re.compile(r"^(train|main|trainer|finetune|run_)[^/]*\.(py|ipynb)$")
TRAINING_TEXT = re.compile(r"\.backward\(|\btraining_step\b")


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The git directory of a mirror; fetch leaves either a bare `repo` or `repo/.git`."""
    base = mirrors / repo.replace("/", "+") / "repo"
    for candidate in (base / ".git", base):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def git(gitdir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    command = ["git", f"--git-dir={gitdir}", *args]
    return subprocess.run(command, input=stdin, check=True, capture_output=True).stdout


def matches(path: str, globs: list[str]) -> bool:
    # fnmatch's `*` also crosses `/`, so "examples/*" means everything under examples/.
    return any(fnmatch.fnmatchcase(path, glob) for glob in globs)


def _continues(code: str) -> bool:
    """Whether the next line of `code` would continue an unfinished statement."""
    try:
        return codeop.compile_command(code + "\n", symbol="exec") is None
    except (SyntaxError, ValueError, OverflowError):
        return False


def notebook_code(raw: bytes) -> str:
    """The code cells of a notebook joined in order; IPython-only lines become blank."""
    try:
        cells = json.loads(raw).get("cells", [])
    except (ValueError, AttributeError):
        return ""
    chunks = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        lines: list[str] = []
        for line in text.split("\n"):
            # An IPython line (`%magic`, `!shell`) starts a statement; a `% (a, b)` that
            # continues an open `print(... ` is Python's modulo and must stay.
            if line.lstrip().startswith(("%", "!")) and not _continues("\n".join(lines)):
                line = ""
            lines.append(line)
        chunks.append("\n".join(lines))
    return "\n".join(chunks) + "\n"


def read_blobs(gitdir: Path, commit: str, paths: list[str]) -> dict[str, bytes]:
    """Contents of many files at one commit through one `git cat-file --batch`; a file the
    mirror lacks (snapshots leave out files of 4 MiB and more) is simply absent."""
    request = "".join(f"{commit}:{path}\n" for path in paths).encode()
    out = git(gitdir, "cat-file", "--batch", stdin=request)
    blobs, at = {}, 0
    for path in paths:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        blobs[path] = out[at : at + size]
        at += size + 1
    return blobs


def select(entry: dict, gitdir: Path) -> list[tuple[str, str, bytes]]:
    """(path, analysable text, raw bytes) of every training file of one repository."""
    names = git(gitdir, "ls-tree", "-r", "--name-only", entry["commit"]).decode().splitlines()
    candidates = [
        path
        for path in names
        if (path.endswith((".py", ".ipynb")) or path in entry.get("paths", []))
        and matches(path, entry["include"])
        and not matches(path, entry.get("exclude", []))
    ]
    chosen = []
    for path, raw in read_blobs(gitdir, entry["commit"], candidates).items():
        if path.endswith(".ipynb"):
            text = notebook_code(raw)
        else:
            text = raw.decode("utf-8", errors="replace")
        # Files named explicitly in "paths" are taken whatever their name or text says.
        named = path in entry.get("paths", [])
        base = PurePosixPath(path).name
        if named or TRAINING_NAME.match(base) or TRAINING_TEXT.search(text):
            chosen.append((path, text, raw))
    return chosen


def extract(repo: str, files: list[tuple[str, str, bytes]]) -> None:
    """Write the selected files (and each notebook's joined code) under the cache."""
    target = CACHE / repo.replace("/", "+")
    for path, text, raw in files:
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(raw)
        if path.endswith(".ipynb"):
            out.with_name(out.name + ".py").write_text(text, encoding="utf-8")


def analyse(repo: str, files: list[tuple[str, str, bytes]]) -> tuple[dict, list]:
    """The per-repository numbers, and the error findings as (cache path, finding)."""
    counts: Counter[str] = Counter()
    errors = []
    lines = notebooks = 0
    for path, text, _raw in files:
        lines += text.count("\n") + (not text.endswith("\n") and bool(text))
        notebooks += path.endswith(".ipynb")
        shown = f"{repo.replace('/', '+')}/{path}" + (".py" if path.endswith(".ipynb") else "")
        try:
            findings = analyze(text, path)
        except Exception as error:  # a crash is a result to report, not a reason to stop
            print(f"CRASH {shown}: {type(error).__name__}: {error}", file=sys.stderr)
            counts["crash"] += 1
            continue
        for finding in findings:
            counts[finding.code] += 1
            if finding.code in ERRORS:
                errors.append((shown, finding))
    row = {"files": len(files), "notebooks": notebooks, "lines": lines, **counts}
    return row, errors


def print_finding(shown: str, finding) -> None:
    start = finding.span.start
    print(f"{shown}:{start.line}:{start.column} {finding.code} {finding.message}")
    for step in finding.evidence:
        where = f"{step.path}:" if step.path else ""
        print(
            f"    {where}{step.span.start.line}:{step.span.start.column} "
            f"[{step.role.value}] {step.message}"
        )


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=DEFAULT_MIRRORS,
        help="folder of git mirrors, <owner>+<name>/repo (default: %(default)s)",
    )
    parser.add_argument("--only", nargs="+", metavar="REPO", help="only these owner/name repos")
    parser.add_argument("--list", action="store_true", help="print every error with evidence")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the numbers as JSON")
    args = parser.parse_args(argv)

    entries = json.loads(MANIFEST.read_text())["repos"]
    if args.only:
        entries = [entry for entry in entries if entry["repo"] in args.only]
    # Check every mirror up front: a half-run corpus gives numbers that compare to nothing.
    gitdirs = {entry["repo"]: git_dir(args.mirrors, entry["repo"]) for entry in entries}
    missing = [repo for repo, gitdir in gitdirs.items() if gitdir is None]
    if missing:
        print(f"no git mirror under {args.mirrors} for: {', '.join(missing)}", file=sys.stderr)
        print(
            "fetch them (e.g. the `fetch` tool, or `git clone --mirror` into "
            "<mirrors>/<owner>+<name>/repo) or pass --mirrors DIR",
            file=sys.stderr,
        )
        return 2

    rows: dict[str, dict] = {}
    all_errors = []
    for entry in entries:
        repo, gitdir = entry["repo"], gitdirs[entry["repo"]]
        try:
            files = select(entry, gitdir)
        except subprocess.CalledProcessError as error:
            print(
                f"{repo}: commit {entry['commit']} not in the mirror: {error.stderr.decode()}",
                file=sys.stderr,
            )
            return 2
        extract(repo, files)
        rows[repo], errors = analyse(repo, files)
        all_errors += errors

    codes = [*ERRORS, *OTHERS]
    width = max(len(repo) for repo in rows) if rows else 10
    header = f"{'repository':<{width}} {'files':>5} {'nb':>4} {'lines':>7}"
    print(header + "".join(f" {code:>5}" for code in codes))
    total: Counter[str] = Counter()
    for repo, row in rows.items():
        total.update(row)
        print(
            f"{repo:<{width}} {row['files']:>5} {row['notebooks']:>4} {row['lines']:>7}"
            + "".join(f" {row.get(code, 0):>5}" for code in codes)
        )
    print(
        f"{'total':<{width}} {total['files']:>5} {total['notebooks']:>4} {total['lines']:>7}"
        + "".join(f" {total.get(code, 0):>5}" for code in codes)
    )
    if total["crash"]:
        print(f"analysis crashed on {total['crash']} files (see stderr)")

    if args.list:
        print()
        for shown, finding in all_errors:
            print_finding(shown, finding)
    if args.json:
        payload = {
            "repos": rows,
            "total": dict(total),
            "errors": [
                {
                    "path": shown,
                    "line": f.span.start.line,
                    "column": f.span.start.column,
                    "code": f.code,
                    "message": f.message,
                    "evidence": [{"role": s.role.value, **s.to_json()} for s in f.evidence],
                }
                for shown, f in all_errors
            ],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
