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
