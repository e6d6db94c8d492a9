"""End-to-end fixtures: the real server over stdio (see lsp_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsp_helpers import CLIENTS, CONFIG, RecordingClient, start
from pytest_lsp import client_capabilities


@pytest_lsp.fixture(config=CONFIG, params=sorted(CLIENTS))
async def client(lsp_client: RecordingClient, request, tmp_path: Path):
    """An initialized server in an empty workspace folder (`client.workspace`)."""
    lsp_client.workspace = tmp_path
    lsp_client.editor = request.param
    await start(lsp_client, client_capabilities(CLIENTS[request.param]), tmp_path)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def bare_client(lsp_client: RecordingClient, tmp_path: Path):
    """A started but not yet initialized server: the test initializes it."""
    lsp_client.workspace = tmp_path
    yield
    await lsp_client.shutdown_session()
