"""Editor settings (section `autograd-lint`) layered over each project's pyproject.toml.

    {
      "enable": true,
      "select": ["AG0"], "ignore": ["AG003"],
      "severity": {"AG001": "warning"},
      "trace": "off" | "messages" | "verbose",
      "runtime": {"enabled": false, "device": "auto", "python": null, "args": [],
                  "maxSteps": 5, "timeoutSeconds": 120},
      "workspaceTrusted": false,
      "diagnosticMode": "openFilesOnly" | "workspace",
      "interpreter": ["/path/to/python"],
      "python": "/path/to/python"
    }

`workspaceTrusted` is the editor's word that the folder may run code (runtime
confirmation is refused without it); `interpreter` is the editor's Python (the VS Code
client sends the Python extension's choice), used for runtime confirmation when
`runtime.python` is empty. `python` names the interpreter whose installed libraries
imports resolve into (environment.py), for editors that send no `interpreter`; empty:
the editor's interpreter, else the one running the server (see `analysis_python`).

Project settings come first, the editor's `select`/`ignore` replace the project's when
given, and its `severity` entries override the project's code by code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..config import ConfigError, Settings, load_settings

SECTION = "autograd-lint"
TRACE_LEVELS = ("off", "messages", "verbose")


@dataclass(frozen=True)
class RuntimeSettings:
    """How runtime confirmation runs (see lsp/confirm.py)."""

    # The command line's defaults (runtime.verdict.RuntimeOptions) and the VS Code
    # extension's (package.json): one answer whichever way a run is asked for.
    enabled: bool = False
    device: str = "auto"
    python: str | None = None
    args: tuple[str, ...] = ()
    max_steps: int = 5
    timeout_seconds: float = 120.0
    # Keep an interpreter with torch imported ready for the next run (runtime/warm.py).
    warm: bool = True

    def to_json(self) -> dict:
        return {
            "enabled": self.enabled,
            "device": self.device,
            "python": self.python,
            "args": list(self.args),
            "maxSteps": self.max_steps,
            "timeoutSeconds": self.timeout_seconds,
            "warm": self.warm,
        }


@dataclass(frozen=True)
class ClientSettings:
    enable: bool = True
    select: list[str] | None = None
    ignore: list[str] | None = None
    severity: dict[str, str] = field(default_factory=dict)
    trace: str = "off"
    runtime: RuntimeSettings = RuntimeSettings()
    workspace_trusted: bool = False
    interpreter: tuple[str, ...] = ()
    python: str | None = None
    # "workspace": the folder's files that are not open are checked too (workspace/diagnostic).
    diagnostic_mode: str = "openFilesOnly"

    def to_json(self) -> dict:
        return {
            "enable": self.enable,
            "select": self.select,
            "ignore": self.ignore,
            "severity": dict(self.severity),
            "trace": self.trace,
            "runtime": self.runtime.to_json(),
            "workspaceTrusted": self.workspace_trusted,
            "interpreter": list(self.interpreter),
            "python": self.python,
            "diagnosticMode": self.diagnostic_mode,
        }


def section_of(value) -> Mapping | None:
    """The `autograd-lint` section from initializationOptions or a didChangeConfiguration
    payload, which clients send either wrapped in the section name or bare."""
    if not isinstance(value, Mapping):
        return None
    inner = value.get(SECTION, value)
    return inner if isinstance(inner, Mapping) else None


DIAGNOSTIC_MODES = ("openFilesOnly", "workspace")


def parse_client_settings(data, problems: list[str]) -> ClientSettings:
    """Settings from one JSON object; a bad value is reported in `problems` and replaced by
    its default, so one typo does not switch the whole server off."""
    if not isinstance(data, Mapping):
        if data is not None:
            problems.append(f"settings must be an object, got {type(data).__name__}")
        return ClientSettings()
    values: dict = {}
    if "enable" in data:
        values["enable"] = _typed(data, "enable", bool, problems, default=True)
    for key in ("select", "ignore"):
        if data.get(key) is not None:
            codes = _typed(data, key, list, problems, default=None)
            if codes is not None:
                try:
                    values[key] = getattr(Settings.from_mapping({key: codes}), key)
                except ConfigError as exc:
                    problems.append(str(exc))
    if data.get("severity") is not None:
        try:
            values["severity"] = Settings.from_mapping({"severity": data["severity"]}).severity
        except ConfigError as exc:
            problems.append(str(exc))
    if "trace" in data:
        trace = data["trace"]
        if trace in TRACE_LEVELS:
            values["trace"] = trace
        else:
            problems.append(f"'trace' must be one of {', '.join(TRACE_LEVELS)}, got {trace!r}")
    if "runtime" in data:
        values["runtime"] = _runtime(data["runtime"], problems)
    if "workspaceTrusted" in data:
        values["workspace_trusted"] = _typed(data, "workspaceTrusted", bool, problems, False)
    if data.get("interpreter") is not None:
        interpreter = _typed(data, "interpreter", list, problems, default=[])
        values["interpreter"] = tuple(map(str, interpreter))
    if data.get("python") is not None:
        values["python"] = _typed(data, "python", str, problems, default=None) or None
    if data.get("diagnosticMode") is not None:
        mode = data["diagnosticMode"]
        if mode in DIAGNOSTIC_MODES:
            values["diagnostic_mode"] = mode
        else:
            problems.append(
                f"'diagnosticMode' must be one of {', '.join(DIAGNOSTIC_MODES)}, got {mode!r}"
            )
    return ClientSettings(**values)


def analysis_python(settings: ClientSettings) -> str | None:
    """The interpreter whose libraries the analysis reads: the `python` setting, else the
    editor's interpreter when it is one program (not `conda run ...`), else None (the
    interpreter running the server)."""
    if settings.python:
        return settings.python
    return settings.interpreter[0] if len(settings.interpreter) == 1 else None


def _typed(data: Mapping, key: str, kind: type, problems: list[str], default):
    value = data[key]
    if isinstance(value, kind):
        return value
    problems.append(f"'{key}' must be a {kind.__name__}, got {value!r}")
    return default


def _runtime(data, problems: list[str]) -> RuntimeSettings:
    if not isinstance(data, Mapping):
        problems.append(f"'runtime' must be an object, got {data!r}")
        return RuntimeSettings()
    checks = {
        "enabled": ("enabled", bool),
        "device": ("device", str),
        "python": ("python", (str, type(None))),
        "args": ("args", list),
        "maxSteps": ("max_steps", int),
        "timeoutSeconds": ("timeout_seconds", (int, float)),
        "warm": ("warm", bool),
    }
    values = {}
    for key, (name, kind) in checks.items():
        if key not in data:
            continue
        value = data[key]
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            values[name] = tuple(map(str, value)) if name == "args" else value
        else:
            problems.append(f"'runtime.{key}' has an invalid value {value!r}")
    return RuntimeSettings(**values)


def effective_settings(path: str, client: ClientSettings, problems: list[str]) -> Settings | None:
    """Checker settings for one file: its project's, then the editor's on top.

    None when the file should not be checked (the editor disabled the server, or the
    project's `exclude` covers it)."""
    if not client.enable:
        return None
    project = Settings()
    file = Path(path)
    if file.is_absolute():
        try:
            project = load_settings(file)
        except ConfigError as exc:
            problems.append(str(exc))
        except OSError:
            pass
        try:
            if project.is_excluded(file, parents=True):
                return None
        except OSError:
            pass
    return project.merged(
        select=client.select,
        ignore=client.ignore,
        severity={**project.severity, **client.severity} if client.severity else None,
    )
