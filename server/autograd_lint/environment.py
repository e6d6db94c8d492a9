"""The user's Python environment: where an import leads outside the project.

The analysis reads library code (and its models) for the interpreter the user runs, not
for the one running autograd-lint: the CLI's own by default (`--python PATH` names
another), in the language server the editor's (its `python` setting, else the
interpreter the editor reports). That interpreter is asked for its `sys.path` once,
by running it with `-c` and a fixed probe (never the user's code), with a timeout; the
answer is cached per interpreter, keyed by its path and modification time (and its
venv's pyvenv.cfg), so recreating a venv at the same path is noticed; in memory, and on
disk (the user's cache folder) while every folder of the answer keeps its modification
time, so an install that adds a .pth file is noticed too. An interpreter
that does not exist, hangs or prints nonsense gives an empty path and a logged warning,
never an exception.

`Environment.resolve_module_file("snntorch._neurons.leaky")` then finds the module's
source the way the import system's path finder would: the project roots first, then the
interpreter's `sys.path`; in each folder a regular package (`x/__init__.py`) before a C
extension (`x.*.so`, `x.pyd`) before a source module (`x.py`), and folders without
`__init__.py` joined as namespace packages. A C extension, a bytecode-only module or a
namespace package has no source file to read: None. Folder listings and answers are
cached, so a lookup costs a few dictionary reads after the first.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from shutil import which

log = logging.getLogger(__name__)

PROBE_MARK = "AUTOGRAD_LINT_SYS_PATH "
# One line of JSON after a mark, so that whatever a sitecustomize prints is not the answer.
PROBE = (
    "import json, sys; print("
    + repr(PROBE_MARK)
    + " + json.dumps({'path': sys.path, 'version': list(sys.version_info[:3]),"
    " 'executable': sys.executable}))"
)
DEFAULT_TIMEOUT_SECONDS = 10.0
MAX_MODULE_PARTS = 32  # a dotted name longer than this is not an import anyone wrote
MAX_LISTED_FOLDERS = 20_000  # folder listings kept (site-packages has a few thousand)


@dataclass(frozen=True)
class InterpreterInfo:
    """What an interpreter said about itself; `error` set (and `sys_path` empty) when it
    could not be asked."""

    python: str
    sys_path: tuple[str, ...] = ()
    version: tuple[int, ...] = ()
    executable: str = ""
    error: str | None = None


_answers: dict[tuple, InterpreterInfo] = {}
_answers_lock = threading.Lock()


def _interpreter_key(python: str) -> tuple | None:
    """The cache key of an interpreter: its path as given (a venv's python is a link to the
    base interpreter: resolving it would lose the venv), its file's modification time
    and that of the venv's pyvenv.cfg. None when it does not exist."""
    try:
        stamp = os.stat(python).st_mtime_ns
    except OSError:
        return None
    config = Path(python).parent.parent / "pyvenv.cfg"
    try:
        venv_stamp = config.stat().st_mtime_ns
    except OSError:
        venv_stamp = None
    return (os.path.abspath(python), stamp, venv_stamp)


def find_python(python: str | os.PathLike | None) -> str:
    """The interpreter's path: a command name (`python3`) looked up on PATH; None means
    the interpreter running autograd-lint."""
    if python is None or not str(python).strip():
        return sys.executable
    text = os.path.expanduser(str(python))
    if os.sep in text or (os.altsep and os.altsep in text):
        return text
    return which(text) or text


def query_interpreter(
    python: str | os.PathLike | None = None, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> InterpreterInfo:
    """Ask `python` for its sys.path (cached per interpreter path and modification time)."""
    path = find_python(python)
    key = _interpreter_key(path)
    if key is None:
        return _failed(path, "no such interpreter")
    with _answers_lock:
        cached = _answers.get(key)
    if cached is None:
        cached = _read_answer(key)
    if cached is not None:
        with _answers_lock:
            _answers[key] = cached
        return cached
    info = _run_probe(path, timeout)
    if info.error is None:  # a failure is not remembered: the next open may find it fixed
        with _answers_lock:
            _answers[key] = info
        _write_answer(key, info)
    return info


# -- answers kept on disk: a CLI run asks no interpreter the previous run asked ---------


def _answer_file(key: tuple) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    name = hashlib.sha256(repr(key).encode()).hexdigest()[:32]
    return Path(base, "autograd-lint", "interpreters", f"{name}.json")


def _stamp(folder: str) -> int | None:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None


def _read_answer(key: tuple) -> InterpreterInfo | None:
    """The answer a previous process wrote, while every sys.path folder has the same
    modification time (a .pth file added by an install changes its folder's)."""
    try:
        data = json.loads(_answer_file(key).read_text(encoding="utf-8"))
        if data["key"] != json.loads(json.dumps(list(key))):
            return None
        if any(_stamp(folder) != stamp for folder, stamp in data["stamps"].items()):
            return None
        return InterpreterInfo(
            data["python"], tuple(data["sys_path"]), tuple(data["version"]), data["executable"]
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_answer(key: tuple, info: InterpreterInfo) -> None:
    data = {
        "key": list(key),
        "python": info.python,
        "sys_path": list(info.sys_path),
        "version": list(info.version),
        "executable": info.executable,
        "stamps": {folder: _stamp(folder) for folder in info.sys_path},
    }
    target = _answer_file(key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(data), encoding="utf-8")
        os.replace(partial, target)
    except OSError as exc:  # a read-only home: the next run asks again
        log.info("interpreter answer not cached (%s)", exc)


def forget_interpreters() -> None:
    """Drop every cached answer (tests; the editor switching environments needs not)."""
    with _answers_lock:
        _answers.clear()


def _run_probe(path: str, timeout: float) -> InterpreterInfo:
    # -E: PYTHONPATH and friends of *this* process are not the user's; cwd "/": a
    # sitecustomize.py in whatever folder we were started from is not imported.
    try:
        done = subprocess.run(
            [path, "-E", "-c", PROBE],
            capture_output=True,
            timeout=timeout,
            cwd=os.path.abspath(os.sep),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _failed(path, f"no answer within {timeout:g} s")
    except (OSError, ValueError) as exc:  # not executable, not a program, a NUL in the path
        return _failed(path, f"cannot run it ({type(exc).__name__}: {exc})")
    for line in done.stdout.decode("utf-8", errors="replace").splitlines():
        if line.startswith(PROBE_MARK):
            try:
                answer = json.loads(line[len(PROBE_MARK) :])
                entries = tuple(str(entry) for entry in answer["path"] if entry)
                version = tuple(int(part) for part in answer["version"])
                executable = str(answer.get("executable") or path)
            except (ValueError, KeyError, TypeError) as exc:
                return _failed(path, f"an answer that cannot be read ({exc})")
            return InterpreterInfo(path, entries, version, executable)
    detail = done.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
    return _failed(path, f"exited with {done.returncode} without an answer {detail[0]}".strip())


def _failed(path: str, reason: str) -> InterpreterInfo:
    log.warning("not reading libraries of %s: %s", path, reason)
    return InterpreterInfo(path, error=reason)


@dataclass(frozen=True)
class Distribution:
    """The installed distribution a library file belongs to (for cache keys and rows'
    version ranges)."""

    name: str  # normalised: lower case, runs of -_. as one -
    version: str


def normalise_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_METADATA_FOLDER = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+?)(-py[\d.]+)?\.(dist|egg)-info$")
_EXTENSION = re.compile(r"\.(so|pyd)$")


class Environment:
    """Module files and distributions for one interpreter and a project's roots."""

    def __init__(
        self,
        python: str | os.PathLike | None = None,
        project_roots: Sequence[Path | str] = (),
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
    ):
        self.python = find_python(python)
        self.project_roots = tuple(Path(root) for root in project_roots)
        self.timeout = timeout
        self._info: InterpreterInfo | None = None
        self._search: tuple[Path, ...] | None = None
        self._listings: dict[str, frozenset[str] | None] = {}
        self._files: dict[str, Path | None] = {}
        self._distributions: dict[str, dict[str, Distribution]] = {}
        self._owners_of: dict[str, Distribution | None] = {}  # by file
        self._lock = threading.Lock()

    @property
    def info(self) -> InterpreterInfo:
        if self._info is None:  # asked on first use: a file importing no library never asks
            self._info = query_interpreter(self.python, self.timeout)
        return self._info

    def search_path(self) -> tuple[Path, ...]:
        """Project roots, then the interpreter's sys.path; folders only (a zip or egg on
        sys.path holds no file to point evidence at)."""
        if self._search is not None:
            return self._search
        seen: dict[str, Path] = {}
        for entry in (*self.project_roots, *self.info.sys_path):
            text = os.path.abspath(entry)
            if text not in seen and self._listing(text) is not None:
                seen[text] = Path(text)
        self._search = tuple(seen.values())
        return self._search

    # -- modules ------------------------------------------------------------------------
    def resolve_module_file(self, dotted: str) -> Path | None:
        """The source file (`.py`) the import of `dotted` would load, or None: not found,
        a C extension, bytecode only, a namespace package, or not a dotted name."""
        with self._lock:
            if dotted in self._files:
                return self._files[dotted]
        found = self._find(dotted)
        with self._lock:
            self._files[dotted] = found
        return found

    def _find(self, dotted: str) -> Path | None:
        parts = dotted.split(".")
        if len(parts) > MAX_MODULE_PARTS or not all(part.isidentifier() for part in parts):
            return None
        folders: Iterable[Path] = self.search_path()
        file = None
        for part in parts:
            if not folders:
                return None
            kind, found = self._find_in(part, folders)
            if kind == "package":
                folders, file = [found.parent], found
            elif kind == "namespace":
                folders, file = found, None
            elif kind == "module":
                folders, file = [], found
            else:  # "extension", "bytecode" or nothing: no source to read
                return None
        return file

    def _find_in(self, name: str, folders: Iterable[Path]):
        """The path finder's choice for `name` in the folders, in order."""
        portions: list[Path] = []
        for folder in folders:
            listing = self._listing(str(folder))
            if not listing:
                continue
            if name in listing:
                inner = self._listing(str(folder / name))
                if inner is not None:
                    if "__init__.py" in inner:
                        return "package", folder / name / "__init__.py"
                    if any(entry.startswith("__init__.") for entry in inner):
                        return "extension", None  # a compiled or bytecode-only package
                    portions.append(folder / name)
            prefix = name + "."
            candidates = [entry for entry in listing if entry.startswith(prefix)]
            if any(_EXTENSION.search(entry) for entry in candidates):
                return "extension", None  # extensions come before sources in a folder
            if prefix + "py" in candidates:
                return "module", folder / (prefix + "py")
            if prefix + "pyc" in candidates:
                return "bytecode", None
        return ("namespace", portions) if portions else ("missing", None)

    def _listing(self, folder: str) -> frozenset[str] | None:
        with self._lock:
            if folder in self._listings:
                return self._listings[folder]
        try:
            names = frozenset(os.listdir(folder))
        except (OSError, ValueError):
            names = None
        with self._lock:
            if len(self._listings) >= MAX_LISTED_FOLDERS:
                self._listings.clear()
            self._listings[folder] = names
        return names

    # -- distributions ------------------------------------------------------------------
    def distribution_of(self, file: Path | str) -> Distribution | None:
        """The installed distribution that owns a file found by `resolve_module_file`:
        the *.dist-info (or *.egg-info) beside its top-level package that names it."""
        key = str(file)
        with self._lock:
            if key in self._owners_of:  # asked for every library object the analysis makes
                return self._owners_of[key]
        found = None
        path = Path(file)
        # The deepest folder that holds it: a venv inside the project lies under the root.
        for entry in sorted(self.search_path(), key=lambda e: len(e.parts), reverse=True):
            try:
                relative = path.relative_to(entry)
            except ValueError:
                continue
            if relative.parts:
                found = self._owner(entry, relative.parts[0].removesuffix(".py"))
                break
        with self._lock:
            self._owners_of[key] = found
        return found

    def distribution_named(self, name: str) -> Distribution | None:
        """An installed distribution by name, in the first sys.path folder that has it."""
        wanted = normalise_name(name)
        for entry in self.search_path():
            for owner in self._metadata(entry).values():
                if owner.name == wanted:
                    return owner
        return None

    def _metadata(self, entry: Path) -> dict[str, Distribution]:
        """Metadata folder name -> its distribution, for one sys.path folder."""
        found = {}
        for folder in sorted(self._listing(str(entry)) or ()):
            match = _METADATA_FOLDER.match(folder)
            if match is not None:
                found[folder] = Distribution(normalise_name(match["name"]), match["version"])
        return found

    def _owner(self, entry: Path, top: str) -> Distribution | None:
        """The distribution that installs top-level module `top` in one sys.path folder:
        the one named like it when it says so (no file list read), else the first whose
        top-level names include it (all read once, then kept)."""
        key = str(entry)
        with self._lock:
            owners = self._distributions.get(key)
        if owners is not None:
            return owners.get(top)
        metadata = self._metadata(entry)
        for folder, owner in metadata.items():
            if owner.name == normalise_name(top) and top in _top_level_names(entry / folder):
                return owner
        owners = {}
        for folder, owner in metadata.items():
            for name in _top_level_names(entry / folder):
                owners.setdefault(name, owner)
        with self._lock:
            self._distributions[key] = owners
        return owners.get(top)


def _top_level_names(metadata: Path) -> set[str]:
    """The importable top-level names a distribution installs: top_level.txt when there
    is one, else the first part of each path in RECORD (only those, not the whole file
    list, are kept)."""
    try:
        text = (metadata / "top_level.txt").read_text(encoding="utf-8", errors="replace")
        names = {line.strip() for line in text.splitlines() if line.strip()}
        if names:
            return names
    except OSError:
        pass
    names: set[str] = set()
    try:
        with open(metadata / "RECORD", encoding="utf-8", errors="replace") as record:
            for line in record:
                first = line.split(",", 1)[0].split("/", 1)[0]
                if first.endswith((".dist-info", ".data")) or first.startswith(".."):
                    continue
                names.add(first.removesuffix(".py"))
    except OSError:
        pass
    names.discard("__pycache__")
    return names
