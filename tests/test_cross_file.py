"""Summaries across files: imports of the project's own modules, in the CLI and the API."""

import json
import subprocess
from pathlib import Path

from autograd_lint.analysis import Role, analyze
from autograd_lint.cli import main
from autograd_lint.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "samples" / "project_stateful"

MODELS = """
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

TRAIN = """
import torch
{import_line}

model = {constructor}
for step in range(3):
    loss = model(torch.randn(2, 3))
    loss.backward()
"""


def write_project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def check(root: Path, name: str):
    workspace = Workspace(root)
    path = root / name
    return analyze(path.read_text(), str(path), resolver=workspace.resolve)


def test_sample_project_finds_module_state_with_evidence_in_models(capsys):
    path = PROJECT / "train_buggy.py"
    findings = analyze(path.read_text(), str(path), resolver=Workspace(ROOT).resolve)
    (finding,) = [f for f in findings if f.code == "AG001"]
    assert finding.kind == "module-state"
    stored = finding.steps(Role.STORED)
    assert stored and stored[0].path.endswith("models.py") and stored[0].name == "self.hidden"
    assert finding.steps(Role.BUILT)[0].path.endswith("models.py")
    fixed = PROJECT / "train_fixed.py"
    assert analyze(fixed.read_text(), str(fixed), resolver=Workspace(ROOT).resolve) == []
    # the CLI resolves the project's imports by itself
    assert main(["check", str(PROJECT), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(Path(f["path"]).name, f["code"]) for f in report["findings"]] == [
        ("train_buggy.py", "AG001")
    ]
    assert any(
        step.get("path", "").endswith("models.py") for step in report["findings"][0]["evidence"]
    )


def test_sample_project_behaves_as_marked_at_runtime(torch_python):
    buggy = subprocess.run(
        [torch_python, "train_buggy.py"], cwd=PROJECT, capture_output=True, text=True, timeout=180
    )
    assert "Trying to backward through the graph a second time" in buggy.stderr
    marked = [
        n
        for n, line in enumerate((PROJECT / "train_buggy.py").read_text().splitlines(), 1)
        if "expect: AG001" in line
    ]
    assert f'train_buggy.py", line {marked[0]}' in buggy.stderr
    fixed = subprocess.run(
        [torch_python, "train_fixed.py"], cwd=PROJECT, capture_output=True, text=True, timeout=180
    )
    assert fixed.returncode == 0, fixed.stderr


def test_import_forms(tmp_path):
    forms = {
        "from models import Keeper": "Keeper()",
        "import models": "models.Keeper()",
        "import models as m": "m.Keeper()",
        "from pkg import Keeper": "Keeper()",  # re-exported by pkg/__init__.py
        "from pkg.inner import Keeper": "Keeper()",
        "from pkg import inner": "inner.Keeper()",
    }
    files = {
        "models.py": MODELS,
        "pkg/__init__.py": "from .inner import Keeper\n",
        "pkg/inner.py": MODELS,
    }
    for index, (import_line, constructor) in enumerate(forms.items()):
        name = f"train_{index}.py"
        files[name] = TRAIN.format(import_line=import_line, constructor=constructor)
    root = write_project(tmp_path, files)
    for index, import_line in enumerate(forms):
        codes = [f.code for f in check(root, f"train_{index}.py")]
        assert codes == ["AG001"], (import_line, codes)


def test_relative_import_inside_a_package(tmp_path):
    root = write_project(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/models.py": MODELS,
            "app/train.py": TRAIN.format(
                import_line="from .models import Keeper", constructor="Keeper()"
            ),
        },
    )
    assert [f.code for f in check(root, "app/train.py")] == ["AG001"]


def test_parent_package_submodule_imported_relatively(tmp_path, torch_python):
    # `from .. import models` names a submodule of the parent package, found only by
    # going up two levels; read as an absolute `models` it resolves to nothing.
    root = write_project(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/models.py": MODELS,
            "app/loops/__init__.py": "",
            "app/loops/train.py": TRAIN.format(
                import_line="from .. import models", constructor="models.Keeper()"
            ),
        },
    )
    (finding,) = check(root, "app/loops/train.py")
    assert (finding.code, finding.kind) == ("AG001", "module-state")
    assert finding.steps(Role.BUILT)[0].path == str(root / "app" / "models.py")
    run = subprocess.run(
        [torch_python, "-m", "app.loops.train"], cwd=root, capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip
    assert "Trying to backward through the graph a second time" in run.stderr
    assert f'train.py", line {finding.span.start.line}' in run.stderr


def test_missing_modules_and_cycles_are_quiet(tmp_path):
    root = write_project(
        tmp_path,
        {
            "a.py": "from b import thing\nfrom nowhere import Model\nimport torch\n"
            + TRAIN.format(import_line="", constructor="Model()"),
            "b.py": "from a import something\nthing = 1\n",
        },
    )
    assert [f.code for f in check(root, "a.py")] == []


def test_a_change_in_an_imported_file_reaches_its_importers(tmp_path):
    root = write_project(
        tmp_path,
        {
            "models.py": MODELS,
            "train.py": TRAIN.format(
                import_line="from models import Keeper", constructor="Keeper()"
            ),
        },
    )
    workspace = Workspace(root)
    train = root / "train.py"
    assert [f.code for f in analyze(train.read_text(), str(train), resolver=workspace.resolve)] == [
        "AG001"
    ]
    detached = MODELS.replace(
        "self.state = self.cell(x, self.state)", "self.state = self.cell(x, self.state).detach()"
    )
    affected = workspace.changed(root / "models.py", detached)
    assert str(train.resolve()) in affected
    assert analyze(train.read_text(), str(train), resolver=workspace.resolve) == []
    assert workspace.changed(root / "models.py", None) == {str(train.resolve())}
    assert [f.code for f in analyze(train.read_text(), str(train), resolver=workspace.resolve)] == [
        "AG001"
    ]


def test_an_open_document_sees_a_change_in_the_file_it_imports(tmp_path):
    # As in an editor: train.py stays open (one AnalysisCache) with a block that does not
    # parse, and only models.py changes. train.py's own blocks are the very objects the
    # last analysis read, so only the imported module's key says the analysis is stale.
    from autograd_lint.analysis.engine import AnalysisCache

    broken = "\n\ndef report(\n"  # typed half-way, below the loop
    train_text = TRAIN.format(import_line="from models import Keeper", constructor="Keeper()")
    root = write_project(tmp_path, {"models.py": MODELS, "train.py": train_text + broken})
    workspace = Workspace(root)
    train = root / "train.py"
    cache = AnalysisCache()

    def codes():
        found = analyze(train.read_text(), str(train), cache=cache, resolver=workspace.resolve)
        return sorted(f.code for f in found)

    assert codes() == ["AG000", "AG001"]
    detached = MODELS.replace(
        "self.state = self.cell(x, self.state)", "self.state = self.cell(x, self.state).detach()"
    )
    workspace.changed(root / "models.py", detached)
    assert codes() == ["AG000"]
    workspace.changed(root / "models.py", None)  # the file on disk again
    assert codes() == ["AG000", "AG001"]
