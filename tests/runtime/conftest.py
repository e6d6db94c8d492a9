"""Runtime confirmation tests: fixture scripts run under the harness.

Tests marked `device` run their scripts on AUTOGRAD_LINT_TEST_DEVICE (default `cpu`;
set `cuda:0` on a machine with a GPU to run the same tests on CUDA).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# `expectations` (the shared `# expect:` mark reader) lives one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "device: runs its scripts on AUTOGRAD_LINT_TEST_DEVICE (default cpu, e.g. cuda:0)",
    )


@pytest.fixture(scope="session")
def test_device() -> str:
    return os.environ.get("AUTOGRAD_LINT_TEST_DEVICE", "cpu")


@pytest.fixture
def harness_python(torch_python, test_device) -> str:
    """The interpreter confirmation runs start: the warm one (torch imported once) on the CPU.

    A run on another device starts a fresh interpreter: the warm server hides the GPUs.
    """
    return torch_python if test_device == "cpu" else sys.executable
