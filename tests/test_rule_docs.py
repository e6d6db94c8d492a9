"""Each rule has a docs page, generated from its module and kept in sync."""

import importlib.util
from pathlib import Path

import pytest
from autograd_lint.rules import RULE_MODULES, RULES

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location(
    "gen_rule_docs", ROOT / "scripts" / "gen_rule_docs.py"
)
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


@pytest.mark.parametrize("code", list(RULE_MODULES))
def test_rule_page_is_up_to_date(code):
    page = ROOT / "docs" / "rules" / f"{code}.md"
    assert page.exists(), f"run: python scripts/gen_rule_docs.py ({page} missing)"
    assert page.read_text(encoding="utf-8") == gen.render(code), (
        "run: python scripts/gen_rule_docs.py"
    )


@pytest.mark.parametrize("code", list(RULE_MODULES))
def test_rule_docs_url_points_at_its_page(code):
    assert RULES[code].docs_url.endswith(f"docs/rules/{code}.md")
