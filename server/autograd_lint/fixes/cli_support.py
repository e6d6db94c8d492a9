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


def read_source(path: Path) -> tuple[str, str]:
    """(text with its original line endings, encoding to write it back with)."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig" or data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8-sig"
    return data.decode(encoding), encoding


def fix_file(
    path: Path, findings: list[Finding], analyzer: Callable[[str, str], list[Finding]]
) -> FileFix:
    """Fix-all on one file (nothing is written). `analyzer(source, path)` re-checks it."""
    old, encoding = read_source(path)
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


def describe_applied(result: FileFix) -> list[str]:
    """`path:LINE: AG001 fixed: <title>` per applied fix (lines as they were then)."""
    return [
        f"{result.path}:{fix.edits[0].span.start.line}: {fix.code} fixed: {fix.title}"
        for fix in result.applied
    ]
