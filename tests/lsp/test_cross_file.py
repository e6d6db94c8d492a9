"""Across files: evidence in an imported module, and re-checking importers when it changes."""

from __future__ import annotations

from lsp_helpers import Editor, eventually
from lsprotocol import types

MODELS = """\
import torch
from torch import nn


class Keeper(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 3)
        self.state = None

    def forward(self, x):
        self.state = self.cell(x, self.state)
        return self.state.sum()
"""

TRAIN = """\
import torch
from models import Keeper

model = Keeper()
for step in range(3):
    loss = model(torch.randn(2, 3))
    loss.backward()
"""

DETACH = "        if self.state is not None:\n            self.state = self.state.detach()\n"


def has_ag001(diagnostics) -> bool:
    return any(d.code == "AG001" for d in diagnostics)


async def test_evidence_in_the_imported_module_and_recheck_on_its_edit(client):
    (client.workspace / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    models_path = client.workspace / "models.py"
    models_path.write_text(MODELS)
    train = Editor(client, client.workspace / "train.py", TRAIN)
    (diagnostic,) = [d for d in await train.diagnostics() if d.code == "AG001"]
    if client.editor == "emacs":
        assert "line 12 of models.py:" in diagnostic.message  # `self.state = ...`
    else:
        related = {
            (r.location.uri, r.location.range.start.line) for r in diagnostic.related_information
        }
        assert (models_path.as_uri(), 11) in related  # line 12: `self.state = ...`

    # Edit the imported module in the editor, unsaved: train.py is checked again.
    models = Editor(client, models_path, MODELS)
    await models.diagnostics()
    # Hovering the line in models.py that keeps the graph tells train.py's story.
    hover = await models.hover(11, 10)
    assert hover is not None and "**AG001**" in hover.contents.value
    assert "*This line:* `self.state` keeps the graph on the object between calls" in (
        hover.contents.value
    )
    models.edit(11, 0, 0, DETACH)
    await eventually(client, train, lambda diagnostics: not has_ag001(diagnostics))
    # Closing the unsaved buffer brings back the file on disk, and the finding.
    models.close()
    await eventually(client, train, has_ag001)


async def test_a_module_changed_on_disk_rechecks_its_importers(client):
    (client.workspace / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    models_path = client.workspace / "models.py"
    models_path.write_text(MODELS)
    train = Editor(client, client.workspace / "train.py", TRAIN)
    assert has_ag001(await train.diagnostics())
    fixed = MODELS.replace(
        "        self.state = self.cell", DETACH + "        self.state = self.cell"
    )
    models_path.write_text(fixed)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=models_path.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    await eventually(client, train, lambda diagnostics: not has_ag001(diagnostics))
