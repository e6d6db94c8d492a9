"""Findings per file kept between runs of `autograd-lint check`, as ruff keeps its own.

An entry is found by the file's resolved path, the analyzer (its version and the size and
time of each of its source files, so an edited checkout never reads a stale entry), the
effective settings and the interpreter imports resolve into. It is used only when the
file's content hash is the one stored, and so is that of every project file its analysis
read: the modules it imports, and theirs (so editing `models.py` re-checks `train.py`,
which imports it, and nothing else), and every installed library file whose summary it
asked for (library_summaries.py tells `library_files_read` what each answer rests on: an
upgraded library re-checks the files that use its classes).

Entries are JSON (a cache directory inside a cloned repository is not trusted with
pickle), written to a temporary file and renamed into place (concurrent runs never read
half an entry), one file each under `<cache-dir>/<analyzer key>/`; past MAX_ENTRIES the
oldest are removed, and so are the folders of other analyzer versions. The directory holds
a `.gitignore` of `*`, so it is never committed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

from . import __version__
from .analysis.model import Finding, Position, Role, Severity, Span, Step
from .checker import read_python_file
from .config import DEFAULT_MAX_FILE_SIZE
from .resolved_paths import FolderResolver

CACHE_DIR_NAME = ".autograd-lint-cache"
MAX_ENTRIES = 50_000  # per analyzer key; a few hundred bytes to a few KB each
FORMAT = 2  # 2: entries name the library files they rest on


def analyzer_key() -> str:
    """Changes with the version and with any change to the analyzer's source files."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{__version__}\0{FORMAT}".encode())
    # The library model rows (*.toml) change findings as much as the code does.
    for source in sorted([*package.rglob("*.py"), *package.rglob("*.toml")]):
        try:
            info = source.stat()
        except OSError:
            continue
        digest.update(
            f"{source.relative_to(package)}\0{info.st_size}\0{info.st_mtime_ns}\0".encode()
        )
    return f"{__version__}-{digest.hexdigest()[:16]}"


def settings_key(settings) -> str:
    """What of a file's settings (config.Settings) changes its findings."""
    severity = sorted(settings.severity.items())
    return repr((settings.select, settings.ignore, severity, settings.max_file_size))


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- what a file's analysis read of installed libraries ------------------------------------

_LIBRARY_READS: ContextVar[dict[str, str] | None] = ContextVar("library_reads", default=None)


@contextlib.contextmanager
def recording_library_reads() -> Iterator[dict[str, str]]:
    """Collects (path -> content hash) of the library files answers rest on while the
    block runs; what is collected is also told to an enclosing recording."""
    reads: dict[str, str] = {}
    token = _LIBRARY_READS.set(reads)
    try:
        yield reads
    finally:
        _LIBRARY_READS.reset(token)
        library_files_read(reads)


def library_files_read(depends: Mapping[str, str]) -> None:
    """A library summary's answer rests on these files (path -> sha256 of its bytes)."""
    reads = _LIBRARY_READS.get()
    if reads is not None and depends:
        reads.update(depends)


def tells_library_reads(query):
    """For a method that remembers its answers (LibrarySummaries'): the files the first
    call read are remembered with the answer and told again by every later call, so each
    analysed file's cache entry names them, not only the first file's."""

    @functools.wraps(query)
    def answer(self, *args):
        told = self.__dict__.setdefault("_told_reads", {})
        key = (query.__name__, *(_hashable(a) for a in args))
        if key in told:
            library_files_read(told[key])
            return query(self, *args)
        with recording_library_reads() as reads:
            found = query(self, *args)
        told[key] = reads
        return found

    return answer


def _hashable(value):
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return value


class ResultCache:
    """The entries of one run: looked up before a file is analysed, stored after."""

    def __init__(
        self,
        directory: Path,
        context: str,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        folders: FolderResolver | None = None,
    ):
        self.root = directory
        self.max_file_size = max_file_size  # for the imported files whose hashes are kept
        self.directory = directory / analyzer_key()
        self.context = context  # the run's options that change findings (the interpreter)
        self._hashes: dict[str, str | None] = {}  # path -> content hash, once per run
        self._resolved: dict[str, str] = {}  # path -> its resolved path, once per run
        # The run's resolver (the CLI resolves its files with it first): each folder once.
        self._folders = folders if folders is not None else FolderResolver()
        self.hits = self.misses = 0
        self._prepared = False

    def lookup(self, path: Path, data: bytes, settings) -> list[Finding] | None:
        """The findings stored for `path` (as shown: findings carry it) with this content,
        checked with these settings."""
        try:
            entry = json.loads(self._entry_path(path, settings).read_text(encoding="utf-8"))
            if entry.get("content") != content_hash(data):
                raise ValueError("changed")
            if any(self.file_hash(dep) != digest for dep, digest in entry["deps"].items()):
                raise ValueError("an imported file changed")
            if any(self.file_hash(lib) != digest for lib, digest in entry["libs"].items()):
                raise ValueError("a library file changed")
            findings = [decode_finding(item) for item in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.misses += 1
            return None
        self.hits += 1
        return findings

    def store(
        self,
        path: Path,
        data: bytes,
        settings,
        deps: Iterable[str],
        findings: list[Finding],
        libraries: Mapping[str, str] | None = None,
    ) -> None:
        """`deps`: the project files the analysis read; `libraries`: the library files
        (path -> content hash when read) its library summaries rest on."""
        try:
            encoded = [encode_finding(f) for f in findings]
        except TypeError:
            return  # a finding that JSON cannot hold: checked again next time
        hashes = {dep: self.file_hash(dep) for dep in sorted(deps)}
        if any(digest is None for digest in hashes.values()):
            return
        libs = dict(sorted((libraries or {}).items()))
        if any(self.file_hash(lib) != digest for lib, digest in libs.items()):
            return  # a library changed during the run: its answer may be the old one's
        entry = {
            "content": content_hash(data),
            "deps": hashes,
            "libs": libs,
            "findings": encoded,
        }
        try:
            self._prepare()
            target = self._entry_path(path, settings)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                # dumps, not dump: only a one-shot encoding uses json's C encoder.
                out.write(json.dumps(entry, separators=(",", ":")))
            os.replace(temporary, target)
        except OSError:
            return  # a read-only or full disk costs the cache, never the run

    def file_hash(self, path: str) -> str | None:
        if path not in self._hashes:
            data, _ = read_python_file(Path(path), self.max_file_size)
            self._hashes[path] = None if data is None else content_hash(data)
        return self._hashes[path]

    def resolved(self, path: Path | str) -> str:
        """`path` resolved (symlinks followed), asked once per run: a lookup and a store
        both need it, and resolving walks every folder of the path."""
        key = str(path)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = str(self._folders.resolve(Path(path)))
        return found

    def _entry_path(self, path: Path, settings) -> Path:
        where = f"{path}\0{self.resolved(path)}\0{self.context}\0{settings_key(settings)}"
        name = hashlib.sha256(where.encode(errors="surrogateescape")).hexdigest()
        return self.directory / name

    def _prepare(self) -> None:
        if self._prepared:
            return
        self._prepared = True
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            ignore.write_text(
                "# Created by autograd-lint: its result cache.\n*\n", encoding="utf-8"
            )

    def prune(self) -> None:
        """Drop other analyzer versions' folders and, past MAX_ENTRIES, the oldest entries."""
        try:
            for folder in self.root.iterdir():
                if folder.is_dir() and folder != self.directory:
                    _remove_tree(folder)
            entries = list(os.scandir(self.directory)) if self.directory.is_dir() else []
        except OSError:
            return
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda e: _mtime(e))
        for entry in entries[: len(entries) - MAX_ENTRIES]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _mtime(entry: os.DirEntry) -> float:
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0


def _remove_tree(folder: Path) -> None:
    for entry in folder.iterdir():
        with contextlib.suppress(OSError):
            entry.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()


class ImportGraph:
    """What each file imports, directly or not, from the importer graph of a `Workspace`
    (imported path -> importing paths), inverted once."""

    def __init__(self, importers: dict[str, set[str]]):
        self.forward: dict[str, list[str]] = {}
        for imported, by in importers.items():
            for importer in by:
                self.forward.setdefault(importer, []).append(imported)

    def dependencies(self, path: str) -> set[str]:
        found: set[str] = set()
        todo = [path]
        while todo:
            for imported in self.forward.get(todo.pop(), ()):
                if imported not in found:
                    found.add(imported)
                    todo.append(imported)
        found.discard(path)
        return found


# -- findings as JSON ----------------------------------------------------------------------


def _span(span: Span) -> list[int]:
    return [span.start.line, span.start.column, span.end.line, span.end.column]


def _unspan(data) -> Span:
    line, column, end_line, end_column = (int(x) for x in data)
    return Span(Position(line, column), Position(end_line, end_column))


def _value(value):
    if isinstance(value, Span):
        return {"$span": _span(value)}
    if isinstance(value, tuple):
        return {"$tuple": [_value(v) for v in value]}
    if isinstance(value, list):
        return [_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"$dict": {k: _value(v) for k, v in value.items()}}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"not cached: {type(value).__name__}")


def _unvalue(value):
    if isinstance(value, list):
        return [_unvalue(v) for v in value]
    if isinstance(value, dict):
        if "$span" in value:
            return _unspan(value["$span"])
        if "$tuple" in value:
            return tuple(_unvalue(v) for v in value["$tuple"])
        return {k: _unvalue(v) for k, v in value["$dict"].items()}
    return value


def encode_finding(finding: Finding) -> dict:
    return {
        "code": finding.code,
        "severity": finding.severity.value,
        "message": finding.message,
        "span": _span(finding.span),
        "evidence": [
            [_span(s.span), s.message, s.role.value, s.name, s.path, s.cell]
            for s in finding.evidence
        ],
        "kind": finding.kind,
        "path": finding.path,
        "loop": _span(finding.loop) if finding.loop is not None else None,
        "extra": _value(finding.extra),
        "cell": finding.cell,
    }


def decode_finding(data: dict) -> Finding:
    return Finding(
        code=data["code"],
        severity=Severity(data["severity"]),
        message=data["message"],
        span=_unspan(data["span"]),
        evidence=tuple(
            Step(_unspan(span), message, Role(role), name, path, cell)
            for span, message, role, name, path, cell in data["evidence"]
        ),
        kind=data["kind"],
        path=data["path"],
        loop=_unspan(data["loop"]) if data["loop"] is not None else None,
        extra=_unvalue(data["extra"]),
        cell=data["cell"],
    )
