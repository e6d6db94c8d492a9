"""The pieces the CLI (`check --fix` / `--diff`) and the language server (code actions)
are built from, driven directly."""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.fixes import apply_fixes, fixes_for
from autograd_lint.fixes.cli_support import (
    describe_applied,
    fix_file,
    read_source,
    unified_diff,
    write,
)
from autograd_lint.fixes.lsp_actions import (
    FIX_ALL_KIND,
    DocumentState,
    EditorSupport,
    code_actions,
    resolve,
)
from autograd_lint.lsp.convert import LineIndex
from autograd_lint.lsp.documents import split_lines
from lsprotocol import types

SOURCE = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "rnn = nn.GRU(4, 8)  # ünïcode\n"
    "optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)\n"
    "h = torch.zeros(1, 2, 8)\n"
    "for x in torch.randn(3, 5, 2, 4):\n"
    "    out, h = rnn(x, h)\n"
    "    optimizer.zero_grad()\n"
    "    out.sum().backward()\n"
    "    optimizer.step()\n"
)


def analyzer(source, path):
    return analyze(source, path)


def state_of(source: str, version: int = 3) -> DocumentState:
    return DocumentState(
        uri="file:///w/train.py",
        version=version,
        source=source,
        findings=analyze(source),
        lines=LineIndex(split_lines(source), types.PositionEncodingKind.Utf16),
        analyzer=analyzer,
    )


def params(line: int, only=None) -> types.CodeActionParams:
    where = types.Position(line=line, character=4)
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri="file:///w/train.py"),
        range=types.Range(start=where, end=where),
        context=types.CodeActionContext(diagnostics=[], only=only),
    )


def apply_workspace_edit(source: str, edit: types.WorkspaceEdit) -> str:
    if edit.document_changes:
        (change,) = edit.document_changes
        edits = change.edits
    else:
        (edits,) = edit.changes.values()
    lines = split_lines(source)

    def offset(position):
        return sum(len(line) for line in lines[: position.line]) + position.character

    for text_edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        start, end = offset(text_edit.range.start), offset(text_edit.range.end)
        source = source[:start] + text_edit.new_text + source[end:]
    return source


def test_lazy_actions_for_a_client_that_resolves():
    state = state_of(SOURCE)
    support = EditorSupport(resolve_edits=True, document_changes=True)
    actions = code_actions(state, params(9), support)
    titles = [a.title for a in actions]
    assert titles == [
        "Detach `h` at the start of each iteration",
        "Ignore AG001 on this line",
        "Fix all autograd-lint problems",
    ]
    assert actions[0].is_preferred and not actions[1].is_preferred
    assert all(a.edit is None for a in actions)
    resolved = resolve(actions[0], state, support)
    (change,) = resolved.edit.document_changes
    assert change.text_document.version == 3
    finding = state.findings[0]
    expected = apply_fixes(SOURCE, fixes_for(SOURCE, finding)[:1])
    assert apply_workspace_edit(SOURCE, resolved.edit) == expected
    fix_all = resolve(actions[2], state, support)
    assert apply_workspace_edit(SOURCE, fix_all.edit) == expected


def test_inline_edits_as_changes_for_a_client_without_resolve():
    state = state_of(SOURCE)
    actions = code_actions(state, params(9), EditorSupport())
    assert all(a.edit is not None and a.edit.changes for a in actions)
    assert [a.kind for a in actions] == ["quickfix", "quickfix"]  # fix-all only on request
    ignored = apply_workspace_edit(SOURCE, actions[1].edit)
    assert "    out.sum().backward()  # autograd-lint: ignore[AG001]\n" in ignored


def test_only_fix_all_when_asked_for_source_actions():
    actions = code_actions(state_of(SOURCE), params(9, only=["source.fixAll"]), EditorSupport())
    assert [a.kind for a in actions] == [FIX_ALL_KIND]


def test_no_quick_fix_away_from_the_finding():
    actions = code_actions(state_of(SOURCE), params(0), EditorSupport(resolve_edits=True))
    assert [a.kind for a in actions] == [FIX_ALL_KIND]


def test_resolving_an_action_for_an_older_version_gives_no_edit():
    support = EditorSupport(resolve_edits=True)
    action = code_actions(state_of(SOURCE, version=3), params(9), support)[0]
    assert resolve(action, state_of(SOURCE, version=4), support).edit is None


# -- the command line ------------------------------------------------------------------------
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fix_file_keeps_line_endings_and_encoding(tmp_path, newline):
    path = tmp_path / "train.py"
    path.write_bytes(SOURCE.replace("\n", newline).encode("utf-8"))
    text, _ = read_source(path)
    result = fix_file(path, analyze(text, str(path)), analyzer)
    assert result.changed and result.remaining == []
    assert describe_applied(result) == [
        f"{path}:8: AG001 fixed: Detach `h` at the start of each iteration"
    ]
    diff = unified_diff(result)
    assert f"+    h = h.detach(){newline}" in diff and diff.startswith("--- a/")
    write(result)
    written = path.read_bytes().decode("utf-8")
    assert written == SOURCE.replace("\n", newline).replace(
        f"    out, h = rnn(x, h){newline}",
        f"    h = h.detach(){newline}    out, h = rnn(x, h){newline}",
    )
