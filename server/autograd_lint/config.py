"""Settings: which rules run, at what severity, and which files are skipped.

Settings come from the `[tool.autograd-lint]` table of the nearest `pyproject.toml`,
then command-line options are merged on top:

    [tool.autograd-lint]
    select = ["AG0"]              # codes or code prefixes; default: every rule
    ignore = ["AG003"]            # wins over select
    exclude = ["tests/data", "*_generated.py"]   # gitignore-like, relative to the project
    severity = { AG001 = "warning" }
    max-file-size = 5000000       # bytes; larger files are skipped with an AG000 note
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .analysis.model import Finding, Severity
from .globs import Glob, compile_glob

SECTION = "autograd-lint"
SYNTAX_ERROR_CODE = "AG000"
_CODE_PATTERN = re.compile(r"AG\d{0,3}")
_SEVERITIES = tuple(s.value for s in Severity)
_KEYS = ("select", "ignore", "exclude", "severity", "max-file-size", "cache-dir")
# A file larger than this is reported as skipped, not read: a cloned repository decides
# what its files hold, and a 50 MB generated file is nobody's training loop.
DEFAULT_MAX_FILE_SIZE = 5_000_000


class ConfigError(ValueError):
    """The configuration cannot be used; the message says what to change."""


@dataclass
class Settings:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # Where `check` keeps its result cache (relative to `root`); None: .autograd-lint-cache.
    cache_dir: str | None = None
    # The directory `exclude` patterns are relative to (where the pyproject.toml lies).
    root: Path | None = None

    def enabled(self, code: str) -> bool:
        code = code.upper()
        if code == SYNTAX_ERROR_CODE:
            # A file that does not parse was not checked at all: only an explicit
            # `ignore = ["AG000"]` hides that, never a prefix or a narrow select.
            return SYNTAX_ERROR_CODE not in self.ignore
        if _matches_any(code, self.ignore):
            return False
        return self.select is None or _matches_any(code, self.select)

    def severity_of(self, code: str) -> Severity | None:
        """The configured severity for `code` (the longest matching key wins), if any."""
        matching = [key for key in self.severity if code.upper().startswith(key)]
        if not matching:
            return None
        return Severity(self.severity[max(matching, key=len)])

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        kept = []
        for finding in findings:
            if not self.enabled(finding.code):
                continue
            severity = self.severity_of(finding.code)
            if severity is not None and severity is not finding.severity:
                finding = dataclasses.replace(finding, severity=severity)
            kept.append(finding)
        return kept

    def merged(self, **overrides) -> Settings:
        """A copy with each override that is not None put in place of the current value."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        values = {name: getattr(self, name.replace("-", "_")) for name in _KEYS}
        values.update(
            {k.replace("_", "-"): v for k, v in overrides.items() if v is not None and k != "root"}
        )
        merged = Settings.from_mapping(values)
        merged.root = overrides.get("root") or self.root
        return merged

    @classmethod
    def from_mapping(cls, data: Mapping) -> Settings:
        if not isinstance(data, Mapping):
            raise ConfigError(f"[tool.{SECTION}] must be a table, not {type(data).__name__}")
        unknown = [key for key in data if key not in _KEYS]
        if unknown:
            raise ConfigError(
                f"unknown key(s) in [tool.{SECTION}]: {', '.join(map(str, unknown))} "
                f"(allowed: {', '.join(_KEYS)})"
            )
        select = data.get("select")
        return cls(
            select=None if select is None else _codes("select", select),
            ignore=_codes("ignore", data.get("ignore", [])),
            exclude=_patterns(data.get("exclude", [])),
            severity=_severities(data.get("severity", {})),
            max_file_size=_size(data.get("max-file-size", DEFAULT_MAX_FILE_SIZE)),
            cache_dir=_cache_dir(data.get("cache-dir")),
        )

    def is_excluded(self, path: Path, *, parents: bool = False) -> bool:
        """Whether `path` (a file or directory) matches `exclude`, relative to `root`.

        Like gitignore, the last matching pattern decides, and `!pattern` re-includes.
        A tree walk prunes excluded directories and asks about each path alone; with
        `parents=True` a path is also excluded when a directory above it (below the
        root) is, as when one file is checked on its own (in an editor).
        """
        if not self.exclude or self.root is None:
            return False
        root = self.root.absolute()
        path = path.absolute()
        for candidate in (path, *path.parents) if parents else (path,):
            if root not in candidate.parents:
                return False
            if self._matches_exclude(candidate.relative_to(root).as_posix(), candidate):
                return True
        return False

    def _matches_exclude(self, relative: str, path: Path) -> bool:
        excluded = False
        for glob, negated, dirs_only in map(_compile_exclude, self.exclude):
            if dirs_only and not path.is_dir():
                continue
            if glob.fullmatch(relative):
                excluded = not negated
        return excluded


def _matches_any(code: str, prefixes: Iterable[str]) -> bool:
    return any(code.startswith(prefix) for prefix in prefixes)


def _strings(key: str, value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"'{key}' must be a list of strings, got {value!r}")
    return list(value)


def _patterns(value) -> list[str]:
    patterns = _strings("exclude", value)
    for pattern in patterns:
        _compile_exclude(pattern)  # raises ConfigError on a pattern that cannot work
    return patterns


def _codes(key: str, value) -> list[str]:
    codes = [code.strip().upper() for code in _strings(key, value)]
    for code in codes:
        if not _CODE_PATTERN.fullmatch(code):
            raise ConfigError(
                f"'{key}' has an invalid rule code {code!r}: expected a code like AG001 "
                f"or a prefix like AG0"
            )
        _check_known(key, code)
    return codes


def _check_known(key: str, code: str) -> None:
    """A code (or prefix) that names no rule selects or ignores nothing: a typo
    (`AG01` for `AG001`, a rule from a newer version) would pass in silence."""
    from .rules import RULES  # the registry loads every rule module: only when asked

    if not any(rule.startswith(code) for rule in RULES):
        known = f"{min(RULES)}-{max(RULES)}"
        raise ConfigError(
            f"'{key}' names no rule: {code!r} (the rules are {known}; "
            f"`autograd-lint rules` lists them)"
        )


def _cache_dir(value) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(f"'cache-dir' must be a folder path (a string), got {value!r}")
    return value


def _size(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"'max-file-size' must be a positive number of bytes, got {value!r}")
    return value


def _severities(value) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"'severity' must be a table of code = level, got {value!r}")
    out = {}
    for code, level in value.items():
        key = str(code).strip().upper()
        if not _CODE_PATTERN.fullmatch(key):
            raise ConfigError(f"'severity' has an invalid rule code {code!r}")
        _check_known("severity", key)
        if not isinstance(level, str) or level.lower() not in _SEVERITIES:
            raise ConfigError(
                f"severity of {key} must be one of {', '.join(_SEVERITIES)}, got {level!r}"
            )
        out[key] = level.lower()
    return out


def parse_codes(text: str) -> list[str]:
    """Split a comma-separated command-line list of codes and check each one."""
    return _codes("codes", [part for part in text.split(",") if part.strip()])


# -- exclude patterns -------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _compile_exclude(pattern: str) -> tuple[Glob, bool, bool]:
    """One gitignore-like pattern as (matcher of a relative posix path, negated, dirs only)."""
    negated = pattern.startswith("!")
    pattern = pattern.removeprefix("!").strip().replace("\\", "/")
    if pattern.startswith("./"):
        pattern = pattern[1:]
    dirs_only = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    # As in gitignore: a pattern with a slash (but for a trailing one) is anchored at
    # the root; one without matches a name at any depth.
    anchored = "/" in pattern
    pattern = pattern.lstrip("/")
    if not pattern:
        raise ConfigError("'exclude' has an empty pattern")
    return compile_glob(pattern, anchored), negated, dirs_only


# -- discovery --------------------------------------------------------------------------


def _start_dir(path: Path) -> Path:
    path = path.absolute()
    return path if path.is_dir() else path.parent


def find_project_root(path: Path) -> Path | None:
    """The nearest directory at or above `path` holding a pyproject.toml or a .git."""
    for directory in (_start_dir(path), *_start_dir(path).parents):
        if (directory / "pyproject.toml").is_file() or (directory / ".git").exists():
            return directory
    return None


def find_pyproject(path: Path) -> Path | None:
    for directory in (_start_dir(path), *_start_dir(path).parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def read_pyproject(pyproject: Path) -> Settings:
    """Settings from `[tool.autograd-lint]` of one file (defaults when the table is absent)."""
    # Imported here: tomllib pulls in datetime, a noticeable part of the server's start-up.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised only on 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {pyproject}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pyproject} is not valid TOML: {exc}") from exc
    table = data.get("tool", {})
    table = table.get(SECTION, {}) if isinstance(table, dict) else {}
    try:
        settings = Settings.from_mapping(table)
    except ConfigError as exc:
        raise ConfigError(f"{pyproject}: {exc}") from exc
    settings.root = pyproject.absolute().parent
    return settings


def load_settings(start: Path) -> Settings:
    """Settings of the nearest pyproject.toml at or above `start`; defaults when there is none."""
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Settings(root=find_project_root(start))
    return read_pyproject(pyproject)
