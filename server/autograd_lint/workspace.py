"""The project's files as importable modules: summaries resolved across file boundaries.

A `Workspace` maps `from .models import RNNModel` / `import models` in one file to the
`ModuleSummary` of another file under the project root, builds summaries lazily, keeps
them until the file (or something it imports) changes, and remembers who imported whom,
so the language server knows which open documents to re-check after an edit. Files
outside the root (site-packages) are not summarised as the user's code; where an import
leads into the user's interpreter is answered by `library_file` (environment.py), for
library summaries and models.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from pathlib import Path

from .analysis.modules import ModuleSummary, summarize
from .checker import SKIPPED_DIRS, read_python_file
from .config import DEFAULT_MAX_FILE_SIZE, find_project_root
from .environment import Environment, find_python
from .library_summaries import LibrarySummaries

log = logging.getLogger(__name__)

PATHS_SECONDS = 2.0  # how long Workspace.module_path trusts an answer


class Workspace:
    def __init__(
        self,
        root: Path | str,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        python: str | None = None,
    ):
        self.root = Path(root).resolve()
        self.max_file_size = max_file_size
        # The user's interpreter (None: the one running us), asked for its sys.path only
        # when an import first leads out of the project.
        self.environment = Environment(python, (self.root, self.root / "src"))
        self.outside: set[Path] = set()  # imports not followed: they lead out of the root
        self.overlays: dict[str, str] = {}  # unsaved editor buffers, by resolved path
        self._summaries: dict[str, ModuleSummary] = {}
        self._building: set[str] = set()
        self._importers: dict[str, set[str]] = {}  # imported path -> importing paths
        self._paths: dict[tuple, tuple[Path | None, float]] = {}  # see module_path
        self._resolved: dict[str, tuple[str, float]] = {}  # importing file -> resolved path

    # -- resolving ------------------------------------------------------------------------
    def resolve(self, module: str, level: int, from_path: str) -> ModuleSummary | None:
        target = self.module_path(module, level, from_path)
        if target is None:
            return None
        self._importers.setdefault(str(target), set()).add(self._resolved_path(from_path))
        return self.summary_of(target)

    def summary_of(self, target: Path) -> ModuleSummary | None:
        key = str(target)
        found = self._summaries.get(key)
        if found is not None:
            return found
        if key in self._building:  # an import cycle: the inner import sees nothing
            return None
        text = self.read(target)
        if text is None:
            return None
        self._building.add(key)
        try:
            summary = summarize(text, key, self.resolve)
        finally:
            self._building.discard(key)
        self._summaries[key] = summary
        return summary

    def module_path(self, module: str, level: int, from_path: str) -> Path | None:
        """The project file an import names (None: not a project file), remembered: the
        language server asks again on every keystroke, and finding that `import torch` is
        no project file took ~40 stat calls for a file's imports. The memo is dropped when
        a file opens, closes or changes on disk (`changed`), and an answer is asked again
        once PATHS_SECONDS old, for a file made where no editor tells the server."""
        now = time.monotonic()
        # Where an import leads depends on the folder of the importing file: the files of
        # one folder (a CLI run checks them all) ask once.
        key = (module, level, os.path.dirname(self._resolved_path(from_path, now)))
        found = self._paths.get(key)
        if found is not None and now - found[1] < PATHS_SECONDS:
            return found[0]
        path = self._module_path(module, level, from_path)
        self._paths[key] = (path, now)
        return path

    def _resolved_path(self, path: str, now: float | None = None) -> str:
        """`path` with links followed, remembered as module_path's answers are."""
        now = time.monotonic() if now is None else now
        found = self._resolved.get(path)
        if found is not None and now - found[1] < PATHS_SECONDS:
            return found[0]
        resolved = str(Path(path).resolve())
        self._resolved[path] = (resolved, now)
        return resolved

    def _module_path(self, module: str, level: int, from_path: str) -> Path | None:
        parts = [p for p in module.split(".") if p]
        if level:
            base = Path(from_path).resolve().parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            here = Path(from_path).resolve().parent
            bases = [here, self.root, self.root / "src"]
        for base in bases:
            candidate = base.joinpath(*parts)
            # `from .. import Net` names the package itself: only its __init__ can hold Net.
            paths = [candidate.with_suffix(".py")] if parts else []
            for path in (*paths, candidate / "__init__.py"):
                if not path.is_file():
                    continue
                if self.contains(path):
                    return path.resolve()
                # A relative import can climb above the root: what lies there is not read.
                self._not_followed(path, from_path)
        return None

    def library_file(self, module: str) -> Path | None:
        """The source file an absolute import of `module` loads from the user's
        interpreter, when it is not a project file (None: a project file, not found, or
        a C extension)."""
        path = self.environment.resolve_module_file(module)
        return None if path is None or self.contains(path) else path

    def use_python(self, python: str | None) -> bool:
        """Resolve imports into this interpreter from now on (the editor chose another;
        None: the one running us): a new environment, and library summaries of its own.
        True when it is another interpreter than before."""
        if find_python(python) == self.environment.python:
            return False
        self.environment = Environment(python, (self.root, self.root / "src"))
        self.__dict__.pop("library_summaries", None)  # the cached_property's value
        return True

    @functools.cached_property
    def library_summaries(self) -> LibrarySummaries:
        """Summaries of the user's installed library classes (library_summaries.py)."""
        return LibrarySummaries(self.environment)

    def _not_followed(self, path: Path, from_path: str) -> None:
        try:
            inside = path.resolve().is_relative_to(self.root)  # only in a skipped folder
        except (OSError, RuntimeError):
            inside = False
        if not inside and path not in self.outside:
            self.outside.add(path)
            log.warning(
                "%s: not following an import to %s, outside the project %s",
                from_path, path, self.root,
            )  # fmt: skip

    def contains(self, path: Path) -> bool:
        try:
            relative = path.resolve().relative_to(self.root)
        except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (< 3.13)
            return False
        return not any(part in SKIPPED_DIRS for part in relative.parts)

    def read(self, path: Path) -> str | None:
        overlay = self.overlays.get(str(path))
        if overlay is not None:
            return overlay
        data, _ = read_python_file(path, self.max_file_size)
        return None if data is None else data.decode("utf-8", errors="replace")

    # -- changes --------------------------------------------------------------------------
    def changed(self, path: Path | str, text: str | None = None) -> set[str]:
        """A file changed (text: its unsaved buffer, None: read it from disk).

        Returns the paths of the files that import it, directly or not: their findings
        may change too.
        """
        key = str(Path(path).resolve())
        if text is None or key not in self.overlays:
            self._paths.clear()  # opened, closed, or on disk: files may have come or gone
            self._resolved.clear()
        if text is None:
            self.overlays.pop(key, None)
        else:
            self.overlays[key] = text
        affected = self.dependents(key)
        for stale in affected | {key}:
            self._summaries.pop(stale, None)
        return affected

    def dependents(self, key: str) -> set[str]:
        found: set[str] = set()
        todo = [key]
        while todo:
            for importer in self._importers.get(todo.pop(), ()):
                if importer not in found:
                    found.add(importer)
                    todo.append(importer)
        found.discard(key)
        return found

    def index(self) -> int:
        """Summarise every Python file under the root (what a cold start does)."""
        count = 0
        for directory, subdirs, files in os.walk(self.root):
            subdirs[:] = [d for d in subdirs if d not in SKIPPED_DIRS and not d.startswith(".")]
            for name in files:
                path = Path(directory, name)
                if name.endswith(".py") and self.contains(path) and self.summary_of(path.resolve()):
                    count += 1
        return count


def find_root(path: Path) -> Path:
    """The project root for `path` (symlinks resolved, as the import graph names files):
    the nearest folder with pyproject.toml or .git, else the file's own folder."""
    start = path.resolve()
    return find_project_root(start) or (start if start.is_dir() else start.parent)
