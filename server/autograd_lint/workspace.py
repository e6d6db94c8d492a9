"""The project's files as importable modules: summaries resolved across file boundaries.

A `Workspace` maps `from .models import RNNModel` / `import models` in one file to the
`ModuleSummary` of another file under the project root, builds summaries lazily, keeps
them until the file (or something it imports) changes, and remembers who imported whom,
so the language server knows which open documents to re-check after an edit. Files
outside the root (site-packages) are never read: their code is not the user's.
"""

from __future__ import annotations

import os
from pathlib import Path

from .analysis.modules import ModuleSummary, summarize
from .checker import SKIPPED_DIRS
from .config import find_project_root


class Workspace:
    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()
        self.overlays: dict[str, str] = {}  # unsaved editor buffers, by resolved path
        self._summaries: dict[str, ModuleSummary] = {}
        self._building: set[str] = set()
        self._importers: dict[str, set[str]] = {}  # imported path -> importing paths

    # -- resolving ------------------------------------------------------------------------
    def resolve(self, module: str, level: int, from_path: str) -> ModuleSummary | None:
        target = self.module_path(module, level, from_path)
        if target is None:
            return None
        self._importers.setdefault(str(target), set()).add(str(Path(from_path).resolve()))
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
            for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
                if parts and path.is_file() and self.contains(path):
                    return path.resolve()
            if not parts and (candidate / "__init__.py").is_file():
                return (candidate / "__init__.py").resolve()
        return None

    def contains(self, path: Path) -> bool:
        try:
            relative = path.resolve().relative_to(self.root)
        except ValueError:
            return False
        return not any(part in SKIPPED_DIRS for part in relative.parts)

    def read(self, path: Path) -> str | None:
        overlay = self.overlays.get(str(path))
        if overlay is not None:
            return overlay
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    # -- changes --------------------------------------------------------------------------
    def changed(self, path: Path | str, text: str | None = None) -> set[str]:
        """A file changed (text: its unsaved buffer, None: read it from disk).

        Returns the paths of the files that import it, directly or not: their findings
        may change too.
        """
        key = str(Path(path).resolve())
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
                if name.endswith(".py") and self.summary_of(Path(directory, name).resolve()):
                    count += 1
        return count


def find_root(path: Path) -> Path:
    """The project root for `path` (symlinks resolved, as the import graph names files):
    the nearest folder with pyproject.toml or .git, else the file's own folder."""
    start = path.resolve()
    return find_project_root(start) or (start if start.is_dir() else start.parent)
