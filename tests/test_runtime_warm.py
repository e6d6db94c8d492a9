"""The warm runner (runtime/warm.py): a harness child started before it is asked for.

Its claims, each checked here: a warm run gives the verdict and output a cold one gives;
what it imports early is the script's leading import block, installed modules only, up to
the first statement that is not such an import; nothing starts unless a run is allowed
(enabled, trusted) and asked for by the CLI or the editor; timeout and cancel kill a warm
child's whole tree; a child whose script's imports changed is not used.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from autograd_lint.lsp.confirm import Confirmations
from autograd_lint.lsp.documents import Document
from autograd_lint.lsp.settings import ClientSettings, RuntimeSettings
from autograd_lint.runtime import warm
from autograd_lint.runtime.cli_options import add_cli_arguments, confirm_check
from autograd_lint.runtime.runner import HARNESS, RuntimeOptions, run_harness
from autograd_lint.runtime.warm import POOL, WarmPool, leading_imports

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "runtime"))
from runtime_support import process_gone  # noqa: E402

TIMEOUT_S = 180
# A neutral training loop whose second backward walks the first step's freed graph.
CARRIED = """\
import torch
from torch import nn

print("draws", torch.rand(3, generator=torch.Generator().manual_seed(0)).tolist())
layer = nn.Linear(4, 4)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
state = torch.zeros(1, 4)
for step in range(4):
    state = torch.tanh(layer(state))
    total = state.sum()
    opt.zero_grad()
    total.backward()
    opt.step()
"""
# Starts a grandchild that sleeps, records both pids, then hangs (no backward ever).
SPAWNS = """\
import os
import subprocess
import sys
import time

import torch

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100000)"])
with open(os.environ["CHILD_PID_FILE"], "w") as pid_file:
    pid_file.write(f"{os.getpid()} {child.pid}\\n")
while True:
    time.sleep(0.1)
"""


@pytest.fixture(autouse=True)
def no_warm_children_left():
    POOL.close()
    yield
    POOL.close()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def cpu_options(**overrides) -> RuntimeOptions:
    values = {"device": "cpu", "timeout_seconds": TIMEOUT_S, "discover": True, "max_steps": 20}
    values.update(overrides)
    return RuntimeOptions(**values)


def run_recording(script: Path, options: RuntimeOptions, cancel=None):
    """A run of `script` and the harness events it sent."""
    events = []
    verdict = run_harness(script, [], options, cancel, on_event=events.append)
    return verdict, [event.get("event") for event in events]


def ready(child: warm.WarmChild) -> dict:
    assert child is not None
    assert child.reader.ready.wait(TIMEOUT_S), "the warm child never got ready"
    return child.reader.ready_report


def comparable(verdict) -> dict:
    report = verdict.to_json()
    report.pop("peakMemoryBytes", None)  # the process's RSS: not a property of the script
    return report


# -- what is imported early -------------------------------------------------------------


def test_the_leading_block_stops_at_the_first_other_statement():
    source = '''\
        """Docstring first."""
        from __future__ import annotations
        import os.path, numpy as np
        from torch import nn
        from torch.utils.data import DataLoader
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        import lightning
    '''
    assert leading_imports(textwrap.dedent(source)) == (
        "os.path",
        "numpy",
        "torch",
        "torch.utils.data",
    )


def test_a_relative_import_or_any_guard_ends_the_block():
    assert leading_imports("import json\nfrom . import local\nimport csv\n") == ("json",)
    guarded = "import json\ntry:\n    import csv\nexcept ImportError:\n    pass\n"
    assert leading_imports(guarded) == ("json",)
    assert leading_imports("x = 1\nimport json\n") == ()
    assert leading_imports("import (\n") == ()  # does not parse: nothing early


def test_project_modules_are_never_imported_early_and_end_the_preload(tmp_path):
    # The child decides with the script's folder first on sys.path, as `python script.py`.
    sentinel = tmp_path / "ran"
    write(tmp_path, "own_helpers.py", f"open({str(sentinel)!r}, 'w').close()\n")
    write(tmp_path, "colorsys.py", f"open({str(sentinel)!r}, 'w').close()\n")  # shadows stdlib
    extra = tmp_path / "on_pythonpath"
    extra.mkdir()
    write(extra, "path_module.py", f"open({str(sentinel)!r}, 'w').close()\n")
    probe = textwrap.dedent(
        f"""
        import importlib.util, json, sys
        sys.path[0] = {str(tmp_path)!r}
        spec = importlib.util.spec_from_file_location("preload", {str(HARNESS.with_name("_preload.py"))!r})
        preload = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(preload)
        cases = {{
            "local": ["json", "own_helpers", "csv"],
            "shadowed": ["json", "colorsys", "csv"],
            "pythonpath": ["csv", "path_module", "json"],
            "missing": ["json", "no_such_module_anywhere", "csv"],
            "installed": ["json", "csv", "email.mime.text"],
        }}
        print(json.dumps({{k: preload.import_leading(v, {str(tmp_path)!r}) for k, v in cases.items()}}))
        """
    )
    printed = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(extra), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    ).stdout
    answers = json.loads(printed)
    assert answers["local"] == [["json"], None]
    assert answers["shadowed"] == [["json"], None]
    assert answers["pythonpath"] == [["csv"], None]
    assert answers["missing"] == [["json"], None]
    assert answers["installed"] == [["json", "csv", "email.mime.text"], None]
    assert not sentinel.exists(), "a module of the user's ran before the script"


def test_a_warm_child_imports_torch_and_the_installed_head_of_the_block(tmp_path):
    write(tmp_path, "own_helpers.py", "VALUE = 1\n")
    script = write(
        tmp_path,
        "train.py",
        "import torch\nimport colorsys\nimport own_helpers\nimport json\nx = 1\nimport csv\n",
    )
    child = POOL.prestart(script, cpu_options())
    report = ready(child)
    assert report["ok"], report
    assert report["preloaded"] == ["torch", "colorsys"]


# -- the same run, warm or cold ---------------------------------------------------------


def test_a_warm_run_gives_the_cold_runs_verdict_and_output(tmp_path):
    script = write(tmp_path, "carried.py", CARRIED)
    options = cpu_options()
    cold, cold_events = run_recording(script, options)
    ready(POOL.prestart(script, options))
    warm_run, warm_events = run_recording(script, options)
    assert "warm-request" in warm_events and "warm-request" not in cold_events
    assert cold.status == "confirmed" and cold.line == 12
    assert comparable(warm_run) == comparable(cold)
    assert "draws" in cold.stdout and warm_run.stdout == cold.stdout
    assert len(POOL) == 0, "a warm child serves one run"


def test_the_warm_up_draws_no_random_number_and_keeps_no_tensor():
    # torch seeds its default generator at random per process, so two runs cannot be
    # compared: the warm-up is checked against the same process's state instead.
    probe = textwrap.dedent(
        f"""
        import gc, importlib.util, torch
        spec = importlib.util.spec_from_file_location("preload", {str(HARNESS.with_name("_preload.py"))!r})
        preload = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(preload)
        before = torch.get_rng_state()
        preload.warm_torch(torch)
        gc.collect()
        tensors = [o for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.requires_grad]
        print(torch.equal(before, torch.get_rng_state()), len(tensors), "torch._dynamo" in __import__("sys").modules)
        """
    )
    printed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert printed.split() == ["True", "0", "True"]


SAME_VERDICT_SCRIPTS = [
    ROOT / "samples" / "ag001_rnn_hidden_buggy.py",
    ROOT / "samples" / "ag001_rnn_hidden_fixed.py",
    ROOT / "tests" / "realworld" / "runnable" / "gan_vaegan_retain_then_step.py",
    ROOT / "tests" / "realworld" / "runnable" / "rl_ppo_stepwise_critic_fit.py",
]


@pytest.mark.parametrize("script", SAME_VERDICT_SCRIPTS, ids=lambda p: p.stem)
def test_samples_and_yardstick_programs_get_the_same_verdict_warm(script, torch_python):
    # The session's warm interpreter (tests/conftest.py) stands in for Python on both
    # sides: what differs is only whether the run came through a pre-started child.
    options = cpu_options(python=torch_python)
    cold, cold_events = run_recording(script, options)
    ready(POOL.prestart(script, options))
    warm_run, warm_events = run_recording(script, options)
    assert "warm-request" in warm_events and "warm-request" not in cold_events
    assert comparable(warm_run) == comparable(cold)


# -- when it is not used ----------------------------------------------------------------


def test_a_child_whose_script_changed_its_imports_is_not_used(tmp_path, torch_python):
    script = write(tmp_path, "carried.py", CARRIED)
    options = cpu_options(python=torch_python)
    child = POOL.prestart(script, options)
    ready(child)
    script.write_text("import json\n" + CARRIED)
    verdict, events = run_recording(script, options)
    assert "warm-request" not in events, "the stale child ran the script"
    assert verdict.status == "confirmed" and verdict.line == 13
    assert child.process.poll() is not None, "the stale child was left running"


def test_a_module_put_next_to_the_script_since_makes_the_child_stale(tmp_path, torch_python):
    script = write(tmp_path, "carried.py", "import colorsys\n" + CARRIED)
    options = cpu_options(python=torch_python)
    ready(POOL.prestart(script, options))
    write(tmp_path, "colorsys.py", "")  # a cold run would import this one now
    _, events = run_recording(script, options)
    assert "warm-request" not in events


def test_other_environment_arguments_or_interpreter_start_cold(tmp_path, torch_python):
    script = write(tmp_path, "carried.py", CARRIED)
    options = cpu_options(python=torch_python)
    for other in (
        cpu_options(python=torch_python, env={"EXTRA": "1"}),
        cpu_options(python=torch_python, args=["--epochs", "1"]),
        cpu_options(python=sys.executable),
        cpu_options(python=torch_python, warm=False),
    ):
        child = POOL.prestart(script, options)
        assert POOL.take(script, other) is None
        child.discard()
        POOL.close()


def test_the_cli_starts_the_next_files_child_while_one_runs(tmp_path, torch_python):
    first = write(tmp_path, "first.py", CARRIED)
    second = write(tmp_path, "second.py", CARRIED)
    parser = argparse.ArgumentParser()
    add_cli_arguments(parser)
    common = ["--confirm=always", "--confirm-device", "cpu", "--confirm-python", torch_python]
    for flags, expect_warm in (([], [False, True]), (["--no-confirm-warm"], [False, False])):
        taken = []
        original = WarmPool.take

        def spy(self, script, options, cancelled=lambda: False, taken=taken, original=original):
            child = original(self, script, options, cancelled)
            taken.append((Path(script).name, child is not None))
            return child

        WarmPool.take = spy
        try:
            verdicts, found = confirm_check({}, [first, second], parser.parse_args(common + flags))
        finally:
            WarmPool.take = original
        assert taken == [("first.py", expect_warm[0]), ("second.py", expect_warm[1])]
        assert sorted((Path(f.path).name, f.span.start.line) for f in found) == [
            ("first.py", 12),
            ("second.py", 12),
        ]
        assert len(POOL) == 0


class _Server(SimpleNamespace):
    def client_settings(self, uri):
        return self.settings


@pytest.mark.parametrize(
    ("enabled", "trusted", "warm_setting", "starts"),
    [
        (False, True, True, False),
        (True, False, True, False),
        (False, False, True, False),
        (True, True, False, False),
        (True, True, True, True),
    ],
)
def test_the_editor_prestarts_only_where_a_run_is_allowed(
    tmp_path, torch_python, enabled, trusted, warm_setting, starts
):
    script = write(tmp_path, "carried.py", CARRIED)
    settings = ClientSettings(
        runtime=RuntimeSettings(enabled=enabled, python=torch_python, warm=warm_setting),
        workspace_trusted=trusted,
    )
    server = _Server(
        settings=settings, folder_settings={}, global_settings=settings, client_capabilities=None
    )
    confirmations = Confirmations(server)
    text = script.read_text()
    document = Document(uri=script.as_uri(), language_id="python", version=1, text=text)
    confirmations.prestart(document)
    assert len(POOL) == (1 if starts else 0)
    confirmations.settings_changed()  # trust or enabled may have changed: none survives
    assert len(POOL) == 0


# -- killing ----------------------------------------------------------------------------


def wait_gone(pids: list[int]) -> list[int]:
    for _ in range(100):
        alive = [pid for pid in pids if not process_gone(pid)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def pids_from(path: Path) -> list[int]:
    text = path.read_text() if path.exists() else ""
    return [int(pid) for pid in text.split()] if text.endswith("\n") else []


@pytest.mark.parametrize("stop", ["timeout", "cancel"])
def test_timeout_and_cancel_kill_a_warm_childs_tree(tmp_path, stop):
    # A real interpreter: the child is the group leader the runner kills.
    script = write(tmp_path, "spawns.py", SPAWNS)
    pid_file = tmp_path / "pids"
    options = cpu_options(env={"CHILD_PID_FILE": str(pid_file)}, timeout_seconds=TIMEOUT_S)
    child = POOL.prestart(script, options)
    assert ready(child)["ok"]
    seen = []
    cancel = threading.Event()

    def watch():
        while not seen:
            seen.extend(pids_from(pid_file))
            time.sleep(0.05)
        if stop == "cancel":
            cancel.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    if stop == "timeout":
        # The timeout counts from the request: a warm child is ready at once, so 8 s is
        # ample for it to start its grandchild even on a busy machine.
        options = cpu_options(env={"CHILD_PID_FILE": str(pid_file)}, timeout_seconds=8)
    verdict, events = run_recording(script, options, cancel)
    watcher.join(timeout=5)
    assert "warm-request" in events
    assert seen and seen[0] == child.process.pid
    expected = "timed out after 8 s" if stop == "timeout" else "cancelled"
    assert verdict.status == "error" and verdict.detail.startswith(expected)
    assert wait_gone(seen) == []


def test_the_editor_does_not_restart_a_child_that_died_until_a_run(tmp_path, torch_python):
    script = write(tmp_path, "carried.py", CARRIED)
    options = cpu_options(python=torch_python)
    child = POOL.prestart(script, options)
    ready(child)
    child.process.kill()
    child.process.wait()
    assert POOL.prestart(script, options, replace=False) is child  # no new interpreter
    fresh = POOL.prestart(script, options, replace=True)
    assert fresh is not child and ready(fresh)["ok"]


def test_an_unused_child_ends_with_the_pool(tmp_path, torch_python):
    script = write(tmp_path, "carried.py", CARRIED)
    child = POOL.prestart(script, cpu_options(python=torch_python))
    ready(child)
    POOL.close()
    assert wait_gone([child.process.pid]) == []
