"""The CUDA-only parts of the harness, checked on a machine without a GPU.

What a GPU run adds is small: the device named by the index the user chose (not the one
CUDA_VISIBLE_DEVICES renumbers it to), the peak device memory per step (reset after each),
and the process's peak memory from torch.cuda instead of its RSS. Those are exercised here
with stand-ins for the CUDA device and torch.cuda; the device tests in
test_runtime_confirm.py run the real thing with AUTOGRAD_LINT_TEST_DEVICE=cuda:0 on a GPU.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from types import SimpleNamespace

import pytest
from autograd_lint.runtime.runner import HARNESS, confirm
from runtime_support import options


def load(name: str):
    path = HARNESS.with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"autograd_lint_test_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


CUDA_1 = SimpleNamespace(type="cuda", index=1)


class FakeCuda:
    """torch.cuda's memory counters: each step's peak, reset by the harness after it."""

    def __init__(self, peaks):
        self.peaks = list(peaks)
        self.resets = []

    def max_memory_allocated(self, device):
        return self.peaks[0]

    def reset_peak_memory_stats(self, device):
        self.resets.append(device)
        self.peaks.pop(0)


@pytest.mark.parametrize(
    "visible, expected",
    [("3,5", "cuda:5"), ("5", "cuda:1"), ("", "cuda:1"), ("GPU-uuid,7", "cuda:7")],
)
def test_a_cuda_device_is_named_by_the_index_the_user_chose(monkeypatch, visible, expected):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert load("_calls").physical_device(CUDA_1) == expected


def test_peak_memory_comes_from_torch_cuda_on_a_gpu_and_from_rss_on_the_cpu():
    calls = load("_calls")
    fake_torch = SimpleNamespace(cuda=FakeCuda([1234]))
    assert calls.peak_memory(fake_torch, CUDA_1) == 1234
    broken = SimpleNamespace(cuda=SimpleNamespace())  # no counters: unknown, not a crash
    assert calls.peak_memory(broken, CUDA_1) is None
    assert calls.peak_memory(fake_torch, None) > 1024 * 1024  # this process's RSS


def test_each_step_records_its_own_peak_device_memory(monkeypatch):
    instrumented = load("_instrumentation")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,4")
    cuda = FakeCuda([1000, 300])
    no_graph = SimpleNamespace(
        graph_roots_in=lambda torch, values: [],
        walk=lambda roots, inputs=None: [],
        inspect=lambda torch, nodes: (None, 0),
    )
    instrumentation = instrumented.Instrumentation(
        SimpleNamespace(cuda=cuda),
        no_graph,
        SimpleNamespace(),
        "script.py",
        None,
        None,
        load("_calls"),
    )
    instrumentation.note_device([SimpleNamespace(type="cpu", index=None), CUDA_1])
    assert instrumentation.device == "cuda:4"
    for _ in range(2):
        instrumentation.calls += 1
        instrumentation.measure(10, instrumentation.calls, [], 0, [])
    assert [step["deviceBytes"] for step in instrumentation.steps] == [1000, 300]
    assert cuda.resets == [CUDA_1, CUDA_1]


def test_pinning_a_device_hides_the_others_before_torch_is_imported(monkeypatch):
    harness = load("harness")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    monkeypatch.delenv("AUTOGRAD_LINT_DEVICE_PINNED", raising=False)
    harness.fix_device("cuda:2")
    assert harness.os.environ["CUDA_VISIBLE_DEVICES"] == "2"
    harness.fix_device("cpu")
    assert harness.os.environ["CUDA_VISIBLE_DEVICES"] == ""


def test_a_cuda_run_on_a_machine_without_one_sees_only_the_chosen_device(tmp_path):
    """`--confirm-device cuda:0` where no GPU exists: the script sees CUDA_VISIBLE_DEVICES=0,
    falls back to the CPU by its own choice, and the verdict says where it really ran."""
    script = tmp_path / "device_choice.py"
    report = tmp_path / "seen.json"
    script.write_text(
        "import json, os, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        f"json.dump({{'visible': os.environ.get('CUDA_VISIBLE_DEVICES'), 'device': device}}, "
        f"open({str(report)!r}, 'w'))\n"
        "w = torch.ones(3, requires_grad=True, device=device)\n"
        "out = torch.tanh(w * 2)\n"
        "for step in range(2):\n"
        "    out.sum().backward()\n"
    )
    # A fresh interpreter: the warm one has imported torch with the GPUs hidden.
    (verdict,) = confirm(script, [], options("cuda:0", discover=True))
    seen = json.loads(report.read_text())
    assert seen["visible"] == "0"
    assert verdict.status == "confirmed" and verdict.line == 7
    assert verdict.device == seen["device"]  # cpu here; cuda:0 on a GPU machine
