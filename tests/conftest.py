"""Fixtures every test folder can use."""

from __future__ import annotations

import pytest
from warm_python import WarmPython


@pytest.fixture(scope="session")
def torch_python():
    """A stand-in for `sys.executable` whose runs start with torch already imported.

    Tests that run torch programs (`[torch_python, script]`, `-c CODE`, `-m MODULE`) use it
    instead of a fresh interpreter, which spends most of each run importing torch. One
    server for the whole session, started by the first test that asks for it.
    """
    with WarmPython() as warm:
        yield str(warm.shim)
