"""`autograd-lint check --fix` and `--diff`: fix-all over files, keeping their bytes' shape.

A file is read as Python would decode it (BOM or coding cookie, else UTF-8) but with
its line endings kept, and written back in the same encoding, so a fix changes only
the lines it rewrites.
"""

from __future__ import annotations

import codecs
import difflib
import io
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.model import Finding
from ..checker import read_python_file
from ..config import DEFAULT_MAX_FILE_SIZE
from .engine import fix_all
from .model import Fix


@dataclass
class FileFix:
    path: Path
    old: str
    new: str
    encoding: str
    applied: list[Fix] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.new != self.old

    # Methods, so that a notebook's fix (notebook.fix.NotebookFix) can write its JSON and
    # speak of cells.
    def save(self) -> None:
        write(self)

    def diff(self) -> str:
        return unified_diff(self)

    def describe(self, verb: str = "fixed") -> list[str]:
        return describe_applied(self, verb)


def read_source(path: Path, limit: int = DEFAULT_MAX_FILE_SIZE) -> tuple[str, str]:
    """(text with its original line endings, encoding to write it back with).

    Read as the checker reads (a regular file within the size limit), else OSError."""
    data, problem = read_python_file(path, limit)
    if data is None:
        raise OSError(problem)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig" or data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8-sig"
    return data.decode(encoding), encoding


def fix_file(
    path: Path,
    findings: list[Finding],
    analyzer: Callable[[str, str], list[Finding]],
    limit: int = DEFAULT_MAX_FILE_SIZE,
) -> FileFix:
    """Fix-all on one file (nothing is written). `analyzer(source, path)` re-checks it."""
    old, encoding = read_source(path, limit)
    new, applied, remaining = fix_all(old, findings, path=str(path), analyzer=analyzer)
    return FileFix(path, old, new, encoding, applied, remaining)


def write(result: FileFix) -> None:
    with open(result.path, "w", encoding=result.encoding, newline="") as out:
        out.write(result.new)


def unified_diff(result: FileFix) -> str:
    name = result.path.as_posix()
    lines = difflib.unified_diff(
        result.old.splitlines(keepends=True),
        result.new.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    text = ""
    for line in lines:
        text += line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
    return text


def describe_applied(result: FileFix, verb: str = "fixed") -> list[str]:
    """`path:LINE: AG001 fixed: <title>` per applied fix (lines as they were then)."""
    return [
        f"{result.path}:{fix.edits[0].span.start.line}: {fix.code} {verb}: {fix.title}"
        for fix in result.applied
    ]


class FixSession:
    """One `check --fix` (write=True) or `check --diff` (write=False) run over many files."""

    def __init__(self, write: bool):
        self.write = write
        self.results: list[FileFix] = []
        self.refused: list[str] = []  # files not written, and why

    def file(
        self,
        path: Path,
        findings: list[Finding],
        analyzer: Callable[[str, str], list[Finding]],
        *,
        root: Path | None = None,
        limit: int = DEFAULT_MAX_FILE_SIZE,
        fixer: Callable[..., FileFix] | None = None,
    ) -> list[Finding]:
        """Fix one file; returns the findings to report for it (what remains, after --fix).

        A file is written only where it really lies inside `root`, the project: a cloned
        repository's `train.py` may be a symlink to a file of the user's elsewhere."""
        if not findings:
            return findings
        try:
            result = (fixer or fix_file)(path, findings, analyzer, limit)
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            return findings  # already reported as AG000 (cannot read or decode it)
        if self.write and result.changed:
            target = _outside(path, root)
            if target is not None:
                self.refused.append(
                    f"{path}: not fixed: it is a link to {target}, outside the project {root}"
                )
                return findings
            self.results.append(result)
            result.save()
            return result.remaining
        self.results.append(result)
        return findings

    @property
    def changed(self) -> list[FileFix]:
        return [r for r in self.results if r.changed]

    def diff(self) -> str:
        return "".join(r.diff() for r in self.changed)

    def summary(self) -> str:
        """What was (or would be) changed, for stderr."""
        lines = [
            line
            for r in self.changed
            for line in r.describe("fixed" if self.write else "would be fixed")
        ]
        applied = sum(len(r.applied) for r in self.changed)
        remaining = sum(len(r.remaining) for r in self.results)
        verb = "applied" if self.write else "would be applied"
        lines.extend(self.refused)
        lines.append(
            f"{applied} fix{'es' if applied != 1 else ''} {verb} in {len(self.changed)} "
            f"file{'s' if len(self.changed) != 1 else ''}; {remaining} finding"
            f"{'s' if remaining != 1 else ''} without an automatic fix"
        )
        return "\n".join(lines) + "\n"


def _outside(path: Path, root: Path | None) -> Path | None:
    """Where `path` really lies when that is outside `root` (None: inside, or no root)."""
    if root is None:
        return None
    try:
        target = path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()
    return None if target.is_relative_to(root.resolve()) else target
