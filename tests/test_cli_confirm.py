"""`autograd-lint check --confirm`: the runtime verdict joins the static finding."""

import json
from pathlib import Path

from autograd_lint.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_confirm_adds_the_runtime_verdict_to_json_and_text(capsys, monkeypatch, torch_python):
    monkeypatch.chdir(SAMPLES)
    assert (
        main(
            [
                "check",
                "ag001_rnn_hidden_buggy.py",
                "--confirm",
                "--confirm-device",
                "cpu",
                "--format",
                "json",
            ]
        )
        == 1
    )
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    runtime = finding["runtime"]
    assert runtime["status"] == "confirmed" and runtime["device"] == "cpu"
    assert runtime["iteration"] == 2
    # The default interpreter ran the first; the warm one (tests/conftest.py) runs this.
    command = ["check", "ag002_gan_fake_buggy.py", "--confirm", "--confirm-python", torch_python]
    assert main(command) == 1
    assert "runtime: confirmed at runtime" in capsys.readouterr().out


def test_without_confirm_nothing_runs(capsys, monkeypatch, tmp_path):
    marker = tmp_path / "ran"
    script = tmp_path / "loop.py"
    script.write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "import torch\nrnn = torch.nn.GRUCell(2, 2)\nh = torch.zeros(1, 2)\n"
        "for _ in range(3):\n    h = rnn(torch.randn(1, 2), h)\n    h.sum().backward()\n"
    )
    assert main(["check", str(script), "--format", "json"]) == 1
    assert "runtime" not in json.loads(capsys.readouterr().out)["findings"][0]
    assert not marker.exists()


def test_a_bad_device_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.chdir(SAMPLES)
    assert main(["check", "ag001_rnn_hidden_buggy.py", "--confirm", "--confirm-device", "gpu"]) == 2
