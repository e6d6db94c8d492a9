"""Fixtures every test folder can use, and the order the suite runs in."""

from __future__ import annotations

import sys

import pytest
from warm_python import WarmPython


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "long_running: takes minutes on its own; run first, so that under -n (the README's "
        "command) it overlaps the rest of the suite instead of running alone at the end",
    )


def pytest_collection_modifyitems(config, items):
    # Every worker collects the same list and xdist hands out whole files in this order
    # (pyproject: --dist loadfile --no-loadscope-reorder); a stable sort keeps the rest as
    # collected.
    items.sort(key=lambda item: item.get_closest_marker("long_running") is None)


@pytest.fixture(scope="session")
def torch_python():
    """A stand-in for `sys.executable` whose runs start with torch already imported.

    Tests that run torch programs (`[torch_python, script]`, `-c CODE`, `-m MODULE`) use it
    instead of a fresh interpreter, which spends most of each run importing torch. One
    server for the whole session, started by the first test that asks for it.
    """
    with WarmPython() as warm:
        yield str(warm.shim)


@pytest.fixture(scope="session", autouse=True)
def _close_the_warm_language_server():
    """Ends the warm interpreter the language-server tests fork their servers from
    (tests/lsp/lsp_helpers.py), if a test of this session started it."""
    yield
    helpers = sys.modules.get("lsp_helpers")
    if helpers is not None:
        helpers.close_warm_interpreter()
