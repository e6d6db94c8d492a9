"""Reading the user's environment: an interpreter's sys.path, and where imports lead.

Ground truth is the import system itself: for real installed modules the file we
resolve must be the one `importlib.util.find_spec` says the interpreter loads, and for
folders laid out here the choice must be the path finder's (checked by importing).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from autograd_lint import environment
from autograd_lint.cli import main
from autograd_lint.environment import Environment, find_python, query_interpreter
from autograd_lint.workspace import Workspace


@pytest.fixture(autouse=True)
def fresh_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    environment.forget_interpreters()
    yield
    environment.forget_interpreters()


def fake_python(folder: Path, body: str, name: str = "python") -> Path:
    """An executable that stands for an interpreter: it runs `body` as sh."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def answering(folder: Path, entries: list[Path], name: str = "python") -> Path:
    answer = {"path": ["", *map(str, entries)], "version": [3, 11, 0], "executable": "x"}
    # A sitecustomize may print first: only the marked line is the answer.
    return fake_python(
        folder,
        f"echo 'hello from sitecustomize'\necho '{environment.PROBE_MARK}{json.dumps(answer)}'\n",
        name,
    )


def test_the_running_interpreter_reports_the_sys_path_a_fresh_process_has():
    info = query_interpreter(sys.executable)
    fresh = subprocess.run(
        [sys.executable, "-E", "-c", "import json, sys; print(json.dumps(sys.path))"],
        capture_output=True,
        text=True,
        cwd="/",
        check=True,
    )
    assert info.error is None
    assert list(info.sys_path) == [entry for entry in json.loads(fresh.stdout) if entry]
    assert info.version == tuple(sys.version_info[:3])


def test_an_answer_is_cached_per_interpreter_until_it_changes(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    python = answering(tmp_path, [first])
    runs = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: runs.append(a) or real_run(*a, **k))
    assert query_interpreter(python).sys_path == (str(first),)
    assert query_interpreter(str(python)).sys_path == (str(first),)
    assert len(runs) == 1
    # The interpreter is replaced (a venv recreated): a newer file is asked again.
    answering(tmp_path, [second])
    stamp = python.stat().st_mtime_ns + 10**9
    os.utime(python, ns=(stamp, stamp))
    assert query_interpreter(python).sys_path == (str(second),)
    assert len(runs) == 2


def test_a_later_process_reads_the_answer_from_disk_until_a_path_folder_changes(
    tmp_path, monkeypatch
):
    site = tmp_path / "site"
    site.mkdir()
    python = answering(tmp_path, [site])
    runs = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: runs.append(a) or real_run(*a, **k))
    assert query_interpreter(python).sys_path == (str(site),)
    environment.forget_interpreters()  # as a new process would start
    assert query_interpreter(python).sys_path == (str(site),)
    assert len(runs) == 1
    # An install adds a .pth file to site-packages: the folder changed, ask again.
    (site / "editable.pth").write_text("/somewhere\n")
    stamp = site.stat().st_mtime_ns + 10**9
    os.utime(site, ns=(stamp, stamp))
    environment.forget_interpreters()
    assert query_interpreter(python).sys_path == (str(site),)
    assert len(runs) == 2


@pytest.mark.parametrize(
    "body",
    [
        "exit 3\n",  # fails
        "echo 'no answer here'\n",  # prints no marked line
        f"echo '{environment.PROBE_MARK}{{not json'\n",  # a marked line that is not JSON
        f"echo '{environment.PROBE_MARK}{{\"path\": 5}}'\n",  # JSON of the wrong shape
        "sleep 30\n",  # hangs
    ],
)
def test_a_broken_interpreter_gives_an_empty_path_and_no_exception(tmp_path, body):
    python = fake_python(tmp_path, body)
    info = query_interpreter(python, timeout=0.5)
    assert info.error is not None and info.sys_path == ()
    assert Environment(python, timeout=0.5).resolve_module_file("json") is None


def test_missing_and_unrunnable_interpreters_are_errors_not_crashes(tmp_path):
    not_executable = tmp_path / "python"
    not_executable.write_text("#!/bin/sh\n")
    for python in (tmp_path / "missing", not_executable, tmp_path):
        info = query_interpreter(python)
        assert info.error is not None and info.sys_path == ()


def test_a_command_name_is_looked_up_on_path():
    assert os.path.isabs(find_python("sh"))
    assert find_python(None) == sys.executable


def layout(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def imported_origin(entries: list[Path], module: str) -> str | None:
    """Where a real interpreter whose sys.path is `entries` imports `module` from."""
    code = (
        "import sys, importlib.util; sys.path[:] = sys.argv[2:]\n"
        "try: spec = importlib.util.find_spec(sys.argv[1])\n"
        "except ModuleNotFoundError: spec = None  # a submodule of a module\n"
        "print(spec.origin if spec and spec.has_location else None)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, module, *map(str, entries)],
        capture_output=True,
        text=True,
        check=True,
    )
    origin = done.stdout.strip()
    return None if origin == "None" else origin


LAYOUT = {
    # first: a package and a module of the same name (the package wins)
    "first/both/__init__.py": "",
    "first/both.py": "",
    # a module compiled and as source in one folder (the extension wins)
    "first/fast.cpython-311-x86_64-linux-gnu.so": "",
    "first/fast.py": "",
    # the same module in two folders (the first folder wins)
    "first/twice.py": "",
    "second/twice.py": "",
    # a namespace package split over two folders
    "first/space/one.py": "",
    "second/space/two/__init__.py": "",
    "second/space/two/deep.py": "",
    # bytecode only
    "second/compiled.pyc": "",
    # a folder without __init__ that stands beside a module: the module wins
    "second/shadow/readme.txt": "",
    "second/shadow.py": "",
}
MODULES = [
    "both",
    "fast",
    "twice",
    "space",
    "space.one",
    "space.two",
    "space.two.deep",
    "compiled",
    "shadow",
    "missing",
    "both.missing",
    "twice.sub",
]


@pytest.mark.parametrize("module", MODULES)
def test_modules_resolve_where_the_import_system_finds_them(tmp_path, module):
    layout(tmp_path, LAYOUT)
    entries = [tmp_path / "first", tmp_path / "second"]
    python = answering(tmp_path, entries)
    expected = imported_origin(entries, module)
    if expected is not None and not expected.endswith(".py"):
        expected = None  # an extension or bytecode: no source to read
    found = Environment(python).resolve_module_file(module)
    assert (str(found) if found else None) == expected


def test_project_roots_come_before_the_interpreters_path(tmp_path):
    layout(tmp_path, {"project/models.py": "", "site/models.py": "", "site/lib.py": ""})
    python = answering(tmp_path, [tmp_path / "site"])
    found = Environment(python, [tmp_path / "project"])
    assert found.resolve_module_file("models") == tmp_path / "project" / "models.py"
    assert found.resolve_module_file("lib") == tmp_path / "site" / "lib.py"


@pytest.mark.parametrize("name", ["", "a..b", "1x", "a.b-c", "os.path.", "x." * 40 + "y"])
def test_names_that_no_import_could_spell_resolve_to_nothing(name):
    assert Environment().resolve_module_file(name) is None


INSTALLED = [
    "torch.optim.lbfgs",
    "torch._C",
    "torch.distributions.bernoulli",
    "snntorch",
    "snntorch._neurons.leaky",
    "spikingjelly.activation_based.neuron",
    "lightning.pytorch.core.module",
    "gpytorch.models.exact_gp",
    "json",
    "_json",
    "math",
]


@pytest.mark.parametrize("module", INSTALLED)
def test_installed_modules_resolve_to_the_file_python_loads(module):
    spec = importlib.util.find_spec(module)
    expected = spec.origin if spec.origin and spec.origin.endswith(".py") else None
    found = Environment().resolve_module_file(module)
    assert (str(found) if found else None) == expected


@pytest.mark.parametrize("module, distribution", [
    ("snntorch._neurons.leaky", "snntorch"),
    ("lightning.pytorch.core.module", "lightning"),
    ("pytorch_lightning.core.module", "pytorch-lightning"),
    ("torch_geometric_temporal.nn.recurrent.evolvegcno", "torch-geometric-temporal"),
    ("torch.optim.lbfgs", "torch"),
])  # fmt: skip
def test_a_library_file_knows_its_distribution_and_version(module, distribution):
    found = Environment()
    owner = found.distribution_of(found.resolve_module_file(module))
    assert owner is not None
    assert (owner.name, owner.version) == (distribution, importlib.metadata.version(distribution))
    assert found.distribution_named(distribution) == owner


def test_the_workspace_answers_library_files_only_outside_the_project(tmp_path):
    layout(tmp_path, {"pyproject.toml": "", "models.py": "", "src/pkg/__init__.py": ""})
    workspace = Workspace(tmp_path)
    assert workspace.library_file("models") is None  # the project's own: summarised as such
    assert workspace.library_file("pkg") is None
    leaky = workspace.library_file("snntorch._neurons.leaky")
    assert leaky is not None and leaky.name == "leaky.py"


def test_the_cli_refuses_an_interpreter_that_does_not_exist(tmp_path, capsys):
    (tmp_path / "train.py").write_text("x = 1\n")
    assert main(["check", "--python", str(tmp_path / "nope"), str(tmp_path)]) == 2
    assert "no such interpreter" in capsys.readouterr().err


def test_the_cli_resolves_libraries_in_the_named_interpreter(tmp_path, monkeypatch):
    layout(tmp_path, {"project/train.py": "import lib\n", "site/lib.py": ""})
    python = answering(tmp_path, [tmp_path / "site"])
    made = []
    real_init = Workspace.__init__

    def recording(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Workspace, "__init__", recording)
    assert main(["check", "--python", str(python), str(tmp_path / "project")]) == 0
    assert [w.library_file("lib") for w in made] == [tmp_path / "site" / "lib.py"]


def test_the_editor_names_the_interpreter_whose_libraries_are_read():
    from autograd_lint.lsp.settings import analysis_python, parse_client_settings

    problems: list[str] = []
    chosen = parse_client_settings(
        {"python": "/envs/a/bin/python", "interpreter": ["/b"]}, problems
    )
    assert analysis_python(chosen) == "/envs/a/bin/python"  # the `python` setting first
    assert analysis_python(parse_client_settings({"interpreter": ["/b"]}, problems)) == "/b"
    # `conda run -n x python` is a command, not an interpreter: the server's own is used.
    command = parse_client_settings({"interpreter": ["conda", "run", "python"]}, problems)
    assert analysis_python(command) is None
    assert analysis_python(parse_client_settings({"python": ""}, problems)) is None
    assert problems == []
    assert parse_client_settings({"python": 3}, problems).python is None
    assert problems == ["'python' must be a str, got 3"]
    assert chosen.to_json()["python"] == "/envs/a/bin/python"
