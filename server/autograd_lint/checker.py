"""Checking files: analysis, then inline suppressions, then settings.

`check_source` and `check_path` never raise on any input: a file that does not parse
or cannot be decoded becomes an AG000 finding, and an internal error of the analysis
is logged (with its traceback) rather than stopping a run over many files.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import stat
import tokenize
from collections.abc import Iterator
from pathlib import Path

from .analysis import Finding, Span
from .analysis.library_layers import summaries_from, summaries_of
from .analysis.suppress import filter_suppressed
from .config import SYNTAX_ERROR_CODE, Settings
from .rules import severity_of

log = logging.getLogger(__name__)

# Directories that never hold the user's own code (for checking, and for the project's
# import graph). Virtual environments under any name are recognised by their pyvenv.cfg.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        "__pycache__",
        "site-packages",
        "node_modules",
        "build",
        "dist",
    }
)


def check_source(
    source: str, path: str, settings: Settings | None = None, *, cache=None, resolver=None
) -> list[Finding]:
    settings = settings or Settings()
    findings: list[Finding] = []
    try:
        # The libraries of the interpreter the workspace behind the resolver resolves into
        # (the editor's, `--python`), not the server's: what library layers keep.
        from .analysis.engine import analyze  # not for a run the result cache answers

        with summaries_from(summaries_of(getattr(resolver, "__self__", None))):
            findings = analyze(source, path, cache=cache, resolver=resolver)
    except Exception:
        log.exception("internal error while analysing %s; no findings reported for it", path)
    findings = [f if f.path else dataclasses.replace(f, path=path) for f in findings]
    findings = filter_suppressed(findings, source)
    return sorted(settings.apply(findings), key=Finding.sort_key)


def check_path(
    path: Path, settings: Settings | None = None, *, cache=None, resolver=None
) -> list[Finding]:
    settings = settings or Settings()
    data, problem = read_python_file(path, settings.max_file_size)
    if data is None:
        return settings.apply([file_problem(path, problem)])
    try:
        source = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return settings.apply(
            [file_problem(path, f"cannot decode file: {_decode_reason(exc, data)}")]
        )
    return check_source(source, str(path), settings, cache=cache, resolver=resolver)


def read_python_file(path: Path, limit: int) -> tuple[bytes | None, str]:
    """(the file's bytes, "") or (None, why it was not read).

    Only a regular file is read, and only when it is at most `limit` bytes: a repository
    can name a FIFO (a read that never returns), a symlink to /dev/zero (one that never
    ends) or a symlink loop `*.py`. It is opened without blocking and checked again once
    open, so a path swapped for a FIFO after the first look cannot hang the read either.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, "skipped: not a regular file"
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        return None, f"cannot read file: {getattr(exc, 'strerror', None) or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "skipped: not a regular file"
        if info.st_size > limit:
            return None, _too_large(info.st_size, limit)
        chunks, size = [], 0
        while size <= limit:  # a file that grows while it is read stops at the limit
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return None, f"cannot read file: {exc.strerror or exc}"
    finally:
        os.close(fd)
    if size > limit:
        return None, _too_large(size, limit)
    return b"".join(chunks), ""


def _too_large(size: int, limit: int) -> str:
    return f"skipped: too large ({size:,} bytes; the limit is {limit:,}, max-file-size)"


def decode_source(data: bytes) -> str:
    """Decode as Python does: a BOM or PEP 263 coding cookie, else UTF-8; newlines become \\n."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # Also raised for plain invalid UTF-8 in the first two lines; decoding says where.
        data.decode("utf-8")
        raise
    text = data.decode(encoding)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode_reason(exc: Exception, data: bytes) -> str:
    if isinstance(exc, UnicodeDecodeError):
        line = data.count(b"\n", 0, exc.start) + 1
        return f"invalid {exc.encoding} ({exc.reason}) on line {line}"
    return str(exc)


def file_problem(path: Path, message: str) -> Finding:
    severity = severity_of(SYNTAX_ERROR_CODE)
    return Finding(SYNTAX_ERROR_CODE, severity, message, Span.of(1, 0, 1, 0), path=str(path))


def iter_python_files(path: Path, settings: Settings) -> Iterator[Path]:
    """`path` itself when it is a file (even an excluded one), else the .py files (and
    the .ipynb notebooks, see notebook/) under it."""
    if not path.is_dir():
        yield path
        return
    for dirpath, dirnames, filenames in os.walk(path):
        directory = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not _skipped_dir(directory / d, settings))
        for name in sorted(filenames):
            file = directory / name
            if name.endswith((".py", ".ipynb")) and not settings.is_excluded(file):
                yield file


def _skipped_dir(directory: Path, settings: Settings) -> bool:
    return (
        directory.name in SKIPPED_DIRS
        or (directory / "pyvenv.cfg").exists()
        or settings.is_excluded(directory)
    )
