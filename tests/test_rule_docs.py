"""Each rule has a docs page, a README row and a settings entry, generated from its module."""

import importlib.util
import json
from pathlib import Path

import pytest
from autograd_lint.rules import RULE_MODULES, RULES

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location(
    "gen_rule_docs", ROOT / "scripts" / "gen_rule_docs.py"
)
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
STALE = "out of date: run python scripts/gen_rule_docs.py"


@pytest.mark.parametrize("code", list(RULE_MODULES))
def test_rule_page_is_up_to_date(code):
    page = ROOT / "docs" / "rules" / f"{code}.md"
    assert page.exists(), f"run: python scripts/gen_rule_docs.py ({page} missing)"
    assert page.read_text(encoding="utf-8") == gen.render(code), STALE


@pytest.mark.parametrize("name", ["README.md", "package.json"])
def test_readme_table_and_settings_schema_are_up_to_date(name):
    path = ROOT / name
    assert path.read_text(encoding="utf-8") == gen.generated()[path], f"{name} {STALE}"


def test_readme_has_one_row_per_rule():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split(gen.TABLE_START)[1].split(gen.TABLE_END)[0]
    codes = [row.split("](")[0].lstrip("| [") for row in table.strip().splitlines()[2:]]
    assert codes == list(RULES)


def test_settings_schema_names_every_rule_and_nothing_else():
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    setting = manifest["contributes"]["configuration"]["properties"][gen.SEVERITY_SETTING]
    assert list(setting["properties"]) == list(RULES)
    for code, entry in setting["properties"].items():
        assert RULES[code].title in entry["description"]


def test_a_stale_table_is_rewritten():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stale = readme.replace("| data-attribute |", "| data-attr |")
    assert stale != readme and gen.readme_text(stale) == readme


@pytest.mark.parametrize("code", list(RULE_MODULES))
def test_rule_docs_url_points_at_its_page(code):
    assert RULES[code].docs_url.endswith(f"docs/rules/{code}.md")
