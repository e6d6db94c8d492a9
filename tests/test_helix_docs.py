"""docs/editors.md's Helix `languages.toml`, as written: it parses as TOML, names the server
for Python, and its `command` and `args` (from PATH) start a server that, driven the way Helix
drives it, reports the buggy sample's AG001 with the severity the file's `config` asks for.

No Helix binary is installed in CI (Debian 12 has no package), so the test plays Helix's part
of the protocol as Helix's source does it (helix-term/src/application.rs, helix-lsp/src/
client.rs): the `config` table goes out as `initializationOptions` and again in
`workspace/didChangeConfiguration` after `initialized`, and a `workspace/configuration` item
is answered by walking `config` along the item's dotted `section`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

from fuzz.stdio_client import StdioServer

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "ag001_rnn_hidden_buggy.py"
TIMEOUT = 90.0


def languages_toml() -> dict:
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(\[language-server\..*?)```", text, re.DOTALL)
    assert len(blocks) == 1, "docs/editors.md: one Helix languages.toml block expected"
    return tomllib.loads(blocks[0])


def test_the_languages_toml_names_our_server_for_python():
    config = languages_toml()
    (python,) = [entry for entry in config["language"] if entry["name"] == "python"]
    assert "autograd-lint" in python["language-servers"]
    assert "autograd-lint" in config["language-server"]


def test_the_readme_line_agrees_with_the_full_file():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r'`\[language-server\.([\w-]+)\] command = "([^"]+)", args = (\[[^\]]*\])`', readme
    )
    assert match, "README lost its Helix line"
    name, command, args = match.group(1), match.group(2), json.loads(match.group(3))
    server = languages_toml()["language-server"][name]
    assert (server["command"], server["args"]) == (command, args)


class HelixLikeClient(StdioServer):
    """The shared stdio client, answering `workspace/configuration` as Helix does: each item
    by walking the server's `config` table along the item's dotted `section`."""

    def __init__(self, command: list[str], config, cwd: Path, env: dict):
        super().__init__(cwd, env, command)
        self.config = config

    def configuration(self, item: dict):
        value = self.config
        section = item.get("section")
        for part in section.split(".") if section else []:
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value


def test_the_documented_command_reports_the_bug_with_the_configured_severity(tmp_path):
    languages = languages_toml()
    server = languages["language-server"]["autograd-lint"]
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(SAMPLE, project / "train.py")
    bin_dir = str(Path(sys.executable).parent)  # where `autograd-lint` is installed
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    argv = [shutil.which(server["command"], path=env["PATH"]), *server["args"]]
    assert argv[0] and Path(argv[0]).parent == Path(bin_dir), argv
    config = server.get("config")
    client = HelixLikeClient(argv, config, project, env)
    try:
        answer = client.initialize(
            initialization_options=config,
            capabilities={
                "workspace": {"configuration": True, "workspaceFolders": True},
                "textDocument": {"publishDiagnostics": {"relatedInformation": True}},
                "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]},
            },
            client_info={"name": "helix"},
        )
        assert "capabilities" in answer["result"], answer
        if config is not None:
            client.notify("workspace/didChangeConfiguration", {"settings": config})
        uri = (project / "train.py").as_uri()
        client.open(uri, SAMPLE.read_text(encoding="utf-8"), version=0)
        diagnostics = client.wait(
            lambda: (client.published.get(uri) or {}).get("diagnostics") or None, TIMEOUT
        )
        assert client.close(timeout=30) == 0
    finally:
        if client.alive():
            client.process.kill()
    wanted = (config or {}).get("autograd-lint", {}).get("severity", {}).get("AG001", "error")
    lsp_severity = {"error": 1, "warning": 2, "info": 3}[wanted]
    found = [(d["range"]["start"]["line"], d["code"], d["severity"]) for d in diagnostics]
    assert (40, "AG001", lsp_severity) in found, found  # line 41, 0-based
