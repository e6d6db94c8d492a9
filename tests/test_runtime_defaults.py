"""Runtime confirmation has one set of defaults: the command line's (RuntimeOptions), the
language server's for clients that send none (RuntimeSettings), the VS Code extension's
settings (package.json), and the tables in docs/runtime.md and docs/editors.md."""

from __future__ import annotations

import json
from pathlib import Path

from autograd_lint.lsp.settings import RuntimeSettings
from autograd_lint.runtime.verdict import RuntimeOptions

ROOT = Path(__file__).resolve().parents[1]


def test_cli_server_and_extension_defaults_agree():
    cli, server = RuntimeOptions(), RuntimeSettings()
    properties = json.loads((ROOT / "package.json").read_text())["contributes"]["configuration"]
    if isinstance(properties, list):  # one or several configuration sections
        properties = {k: v for section in properties for k, v in section["properties"].items()}
    else:
        properties = properties["properties"]

    def extension(key: str):
        return properties[f"autograd-lint.runtime.{key}"]["default"]

    assert cli.device == server.device == extension("device") == "auto"
    assert cli.max_steps == server.max_steps == extension("maxSteps")
    assert cli.timeout_seconds == server.timeout_seconds == extension("timeoutSeconds")
    assert cli.warm is server.warm is extension("warm") is True


def test_the_docs_tables_say_the_same():
    editors = (ROOT / "docs" / "editors.md").read_text()
    defaults = RuntimeOptions()
    assert f"| `runtime.maxSteps` | `{defaults.max_steps}` |" in editors
    assert f"| `runtime.timeoutSeconds` | `{int(defaults.timeout_seconds)}` |" in editors
    assert f"| `runtime.device` | `{defaults.device}` |" in editors
    runtime = (ROOT / "docs" / "runtime.md").read_text()
    assert f"`runtime.maxSteps` | {defaults.max_steps} " in runtime
    assert f"`runtime.timeoutSeconds` | {int(defaults.timeout_seconds)} |" in runtime
