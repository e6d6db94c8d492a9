"""The server describes its rules in `initialize`, so that a client need not copy them."""

from __future__ import annotations

from autograd_lint.rules import RULES
from lsp_helpers import CLIENTS, start
from pytest_lsp import client_capabilities


async def test_initialize_result_lists_the_rule_registry(bare_client):
    result = await start(bare_client, client_capabilities(CLIENTS["vscode"]), bare_client.workspace)
    described = result.capabilities.experimental["autogradLint"]["rules"]
    assert [r["code"] for r in described] == list(RULES)
    for entry in described:
        rule = RULES[entry["code"]]
        assert (entry["title"], entry["confirmable"], entry["docs"]) == (
            rule.title,
            rule.confirmable,
            rule.docs_url,
        )
    assert {r["code"] for r in described if r["confirmable"]} == {"AG001", "AG002", "AG007"}
