"""The interpreter the editor selected is the one whose libraries the server reads.

A virtual environment holds a small library (ours) whose layer evolves a weight from the
last one at every call and keeps it on `self`; the server's own interpreter does not have
it. A training loop over that layer is AG001, with evidence in the library's file, only
when the server is told to read that environment: by the `python` setting (other
editors), or by the `interpreter` the client sends (the VS Code extension sends the
Python extension's choice). Unselected, the import leads nowhere and nothing is found.
torch is the ground truth: the loop raises when run with the library on its path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from lsp_helpers import CLIENTS, Editor, start
from pytest_lsp import client_capabilities

FREED = "backward through the graph a second time"
LAYER = """\
import torch


class EvolvingLinear(torch.nn.Module):
    \"\"\"A weight evolved from the last one at every call, and kept for the next.\"\"\"

    def __init__(self, size):
        super().__init__()
        self.initial = torch.nn.Parameter(torch.eye(size))
        self.cell = torch.nn.GRUCell(size, size)
        self.weight = None

    def forward(self, x):
        start = self.initial if self.weight is None else self.weight
        self.weight = self.cell(start, start)
        return x @ self.weight
"""
TRAIN = """\
import torch
from evolving import EvolvingLinear

layer = EvolvingLinear(3)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(3):
    loss = layer(torch.randn(2, 3)).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""


@pytest.fixture(scope="module")
def environment(tmp_path_factory) -> tuple[str, Path]:
    """(the environment's python, the library's layer file)."""
    root = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(root)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    package = site / "evolving"
    package.mkdir()
    (package / "__init__.py").write_text("from .layers import EvolvingLinear\n")
    (package / "layers.py").write_text(LAYER)
    meta = site / "evolving-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: evolving\nVersion: 1.0\n")
    (meta / "top_level.txt").write_text("evolving\n")
    (meta / "RECORD").write_text("evolving/__init__.py,,\nevolving/layers.py,,\n")
    return str(python), package / "layers.py"


def test_the_loop_raises_when_run_with_the_library(environment, tmp_path):
    _, layer_file = environment
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    env = {**os.environ, "PYTHONPATH": str(layer_file.parent.parent)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert done.returncode != 0 and FREED in done.stderr


def evidence_files(diagnostic) -> set[str]:
    return {
        Path(r.location.uri.removeprefix("file://")).name
        for r in diagnostic.related_information or ()
    }


@pytest.mark.parametrize("editor", ["vscode", "neovim"])
@pytest.mark.parametrize("setting", ["python", "interpreter", None])
async def test_imports_resolve_into_the_interpreter_the_editor_selected(
    bare_client, environment, editor, setting
):
    python, layer_file = environment
    options = {"python": python} if setting == "python" else {}
    if setting == "interpreter":
        options = {"interpreter": [python]}
    workspace = bare_client.workspace
    (workspace / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    await start(
        bare_client,
        client_capabilities(CLIENTS[editor]),
        workspace,
        initialization_options={"autograd-lint": options} if options else None,
    )
    train = Editor(bare_client, workspace / "train.py", TRAIN)
    found = [d for d in await train.diagnostics() if d.code == "AG001"]
    if setting is None:
        assert found == []  # the server's own interpreter has no `evolving`
        return
    (diagnostic,) = found
    assert diagnostic.range.start.line == 7  # `loss.backward()`
    assert "layers.py" in evidence_files(diagnostic)
    related = [r for r in diagnostic.related_information if r.location.uri.endswith("layers.py")]
    assert (
        related[0].location.range.start.line + 1
        == LAYER.splitlines().index("        self.weight = self.cell(start, start)") + 1
    )
