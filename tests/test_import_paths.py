"""Workspace.module_path remembers where imports lead, and forgets when files may have
come or gone: a file opened, closed or changed on disk, or an answer PATHS_SECONDS old."""

from autograd_lint import workspace as workspace_module
from autograd_lint.workspace import Workspace

MODELS = "import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n"


def test_a_module_made_after_the_first_lookup_is_found_once_the_server_hears_of_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    train = tmp_path / "train.py"
    train.write_text("from models import Net\n")
    project = Workspace(tmp_path)
    assert project.resolve("models", 0, str(train)) is None
    models = tmp_path / "models.py"
    models.write_text(MODELS)
    # A watched-file notification (or a save) reaches the project as `changed(path)`.
    project.changed(models)
    summary = project.resolve("models", 0, str(train))
    assert summary is not None and summary.lookup("Net") is not None
    models.unlink()
    project.changed(models)
    assert project.resolve("models", 0, str(train)) is None


def test_opening_a_document_forgets_the_paths_and_typing_in_one_keeps_them(tmp_path):
    train = tmp_path / "train.py"
    project = Workspace(tmp_path)
    asked = []
    module_path = project._module_path
    project._module_path = lambda *args: asked.append(args[0]) or module_path(*args)
    assert project.resolve("models", 0, str(train)) is None
    (tmp_path / "models.py").write_text(MODELS)
    project.changed(train, "from models import Net\n")  # opened: the paths are asked again
    assert project.resolve("models", 0, str(train)) is not None
    assert asked.count("models") == 2
    project.changed(train, "from models import Net\n#")  # a keystroke: remembered
    assert project.resolve("models", 0, str(train)) is not None
    assert asked.count("models") == 2


def test_an_old_answer_is_asked_again_without_any_notification(tmp_path, monkeypatch):
    train = tmp_path / "train.py"
    project = Workspace(tmp_path)
    assert project.resolve("models", 0, str(train)) is None
    (tmp_path / "models.py").write_text(MODELS)
    monkeypatch.setattr(workspace_module, "PATHS_SECONDS", 0.0)
    assert project.resolve("models", 0, str(train)) is not None


def test_the_files_of_one_folder_ask_once_and_a_linked_file_asks_from_its_target(tmp_path):
    (tmp_path / "models.py").write_text(MODELS)
    other = tmp_path / "other"
    other.mkdir()
    (other / "models.py").write_text(MODELS)
    train, evaluate = tmp_path / "train.py", tmp_path / "evaluate.py"
    linked = tmp_path / "linked.py"
    linked.symlink_to(other / "script.py")  # imports resolve from the target's folder
    project = Workspace(tmp_path)
    asked = []
    module_path = project._module_path
    project._module_path = lambda *args: asked.append(args[::2]) or module_path(*args)
    found = [project.resolve("models", 0, str(p)) for p in (train, evaluate, linked)]
    assert [f for m, f in asked if m == "models"] == [str(train), str(linked)]
    assert found[0] is found[1] and found[0].path == str((tmp_path / "models.py").resolve())
    assert found[2].path == str((other / "models.py").resolve())
