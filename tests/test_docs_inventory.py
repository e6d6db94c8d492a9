"""Every fenced block of README.md and docs/*.md is accounted for: a command or configuration
is run by the test file named beside its kind below, and a block that is not run is listed
with the reason (a fragment of code shown for its shape, an output illustration, a command
too long for CI). A new block that fits no entry fails here until it is given a test or a
reason, so "every snippet runs in CI" cannot rot silently."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)

# (page, language, a pattern the block's text matches, the test file that runs it: that file's
# code must name the page, or glob docs/*.md, so an entry cannot point at a test that ignores it)
RUN = [
    ("*", "text", r"^\$ autograd-lint ", "test_docs_examples.py"),
    ("*", "sh", r"^autograd-lint check .*\n# ", "test_docs_examples.py"),
    ("*", "toml", r"^\[tool\.autograd-lint\]", "test_docs_examples.py"),
    ("*", "lua", r"", "test_nvim_docs.py"),
    ("*", "elisp", r"", "test_emacs_docs.py"),
    ("editors.md", "toml", r"^\[language-server\.autograd-lint\]", "test_helix_docs.py"),
    ("README.md", "yaml", r"", "test_ci_recipes.py"),
    ("README.md", "sh", r"^python3 -m pip install \. && autograd-lint check", "test_cli_docs.py"),
    ("README.md", "sh", r"^python3 -m pip install -e '\.\[dev\]'", "test_docs_inventory.py"),
    (
        "README.md",
        "sh",
        r"^autograd-lint check --diff .*\nautograd-lint check --fix",
        "test_cli_docs.py",
    ),
    ("README.md", "diff", r"", "test_cli_docs.py"),
    ("README.md", "sh", r"^autograd-lint check \[PATH", "test_cli_docs.py"),
    ("cli.md", "", r"^autograd-lint check \[PATH", "test_cli_docs.py"),
    ("cli.md", "python", r"autograd-lint: ignore", "test_cli_docs.py"),
    ("cli.md", "yaml", r"--format sarif", "test_cli_docs.py"),
    ("cli.md", "json", r'^\{"version": 1', "test_cli_docs.py"),
    ("fixes.md", "json", r"editor\.codeActionsOnSave", "test_cli_docs.py"),
    # Options and modules only: a mutation run takes hours.
    ("mutation.md", "sh", r"", "test_mutation_docs.py"),
]

# (page, language, pattern, why it is not run)
NOT_RUN = [
    (
        "README.md",
        "sh",
        r"^python bench/realworld\.py",
        "the yardstick itself: tests/test_realworld.py runs its cases and score",
    ),
    (
        "fixes.md",
        "python",
        r"",
        "a fix's before/after fragment; tests/fixes/ prove each rewrite on whole programs under torch",
    ),
    (
        "libraries.md",
        "python",
        r"",
        "API sketches over a user's paths (`root`, `path`); tests/test_environment.py, test_library_models.py and test_library_summaries.py run the calls",
    ),
    (
        "libraries.md",
        "toml",
        r"",
        "a model row's fields, shown alone; tests/test_library_models.py loads every shipped row",
    ),
    (
        "libraries.md",
        "text",
        r"^\S+\.py:\d+:\d+: AG00",
        "output of a case described in the prose, not a command",
    ),
    (
        "notebooks.md",
        "python",
        r"",
        "the shape of a notebook cell; samples/notebooks/ holds the runnable notebook",
    ),
    (
        "vscode.md",
        "sh",
        r"",
        "VS Code's own CLI and the extension's npm build, run by scripts/vscode-e2e.sh (tests/test_vscode_e2e.py)",
    ),
]


def blocks() -> list[tuple[str, int, str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text[: match.start()].count("\n") + 1
            found.append((page.name, line, match.group(1), match.group(2)))
    return found


def entry_for(page: str, language: str, body: str, entries):
    for entry in entries:
        if entry[0] in ("*", page) and entry[1] == language and re.search(entry[2], body, re.M):
            return entry
    return None


def code_strings(test_file: Path) -> set[str]:
    """The string constants of a test module's code; its docstrings (which may name a page the
    module never opens) do not count."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    }  # fmt: skip


def reads_page(test_file: Path, page: str) -> bool:
    """Whether the test module's code names the page's file, or globs docs/ for every page."""
    strings = code_strings(test_file)
    in_docs = (ROOT / "docs" / page).exists()
    return page in strings or (in_docs and {"docs", "*.md"} <= strings)


BLOCKS = blocks()


@pytest.mark.parametrize(
    ("page", "line", "language", "body"), BLOCKS, ids=[f"{p}:{n}" for p, n, _, _ in BLOCKS]
)
def test_every_block_is_run_or_says_why_not(page, line, language, body):
    run = entry_for(page, language, body, RUN)
    if run is not None:
        test_file = ROOT / "tests" / run[3]
        assert test_file.exists(), f"{page}:{line} is said to be run by the missing {run[3]}"
        assert reads_page(test_file, page), f"{page}:{line}: {run[3]} never reads {page}"
        return
    assert entry_for(page, language, body, NOT_RUN), (
        f"{page}:{line}: a new ```{language} block that no test runs: run it in a test (and add it"
        " to RUN here), or add it to NOT_RUN with the reason"
    )


def test_the_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (command,) = [
        body.strip()
        for lang, body in BLOCK.findall(readme)
        if body.startswith("python3 -m pip install -e")
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command in ci.splitlines()


def test_the_vsix_the_pages_name_is_the_one_the_build_makes():
    # `npm run package` names the file after package.json's name and version.
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    named = set()
    for page in PAGES:
        named |= set(
            re.findall(
                r"autograd-lint-(?:linux-x64-)?(\d+\.\d+\.\d+)\.vsix",
                page.read_text(encoding="utf-8"),
            )
        )
    assert named == {package["version"]}
