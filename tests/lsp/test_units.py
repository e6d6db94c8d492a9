"""In-process checks of the pieces: the document store against a reference, position
conversion, and an analysis that fails inside the server."""

from __future__ import annotations

import logging
import random

import pytest
from autograd_lint.analysis import Position, Span
from autograd_lint.lsp import server as server_module
from autograd_lint.lsp.convert import LineIndex, choose_position_encoding, code_units
from autograd_lint.lsp.documents import Document, split_lines
from lsprotocol import types

ENCODINGS = ["utf-8", "utf-16", "utf-32"]


def _reference_offset(lines: list[str], line: int, units: int, encoding: str) -> int:
    if line >= len(lines):
        return sum(map(len, lines))
    content = lines[line].rstrip("\r\n")
    column, seen = len(content), 0
    for index, char in enumerate(content):
        if seen >= units:
            column = index
            break
        seen += code_units(char, encoding)
    return sum(map(len, lines[:line])) + column


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_incremental_edits_match_a_reference(encoding):
    pieces = ["a", "b", " ", "\n", "\r", "\r\n", "😀", "é", "日", "\x0c", "\u2028"]
    rng = random.Random(7)
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        document = Document("file:///x.py", "python", 1, text)
        for _ in range(6):
            lines = list(document.lines)
            start = types.Position(rng.randint(0, len(lines)), rng.randint(0, 8))
            end = types.Position(rng.randint(0, len(lines)), rng.randint(0, 8))
            if (end.line, end.character) < (start.line, start.character):
                start, end = end, start
            new_text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
            source = "".join(lines)
            begin = _reference_offset(lines, start.line, start.character, encoding)
            stop = _reference_offset(lines, end.line, end.character, encoding)
            expected = source[:begin] + new_text + source[stop:]
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=start, end=end), text=new_text
            )
            document.apply_change(change, encoding)
            assert document.source == expected
            assert document.lines == split_lines(expected)


def test_lines_break_only_where_lsp_and_python_do():
    assert split_lines("a\x0cb\u2028c\r\nd\re\n") == ["a\x0cb\u2028c\r\n", "d\r", "e\n", ""]


# `x = "` + 日本 (3 UTF-8 bytes, 1 UTF-16 unit each) + 😀 (4 bytes, 2 units) + `"; `
@pytest.mark.parametrize("encoding, units", [("utf-8", 18), ("utf-16", 12), ("utf-32", 11)])
def test_columns_after_wide_characters(encoding, units):
    line = 'x = "日本😀"; loss.backward()\n'
    column = line.index("loss")  # in code points
    index = LineIndex([line], encoding)
    converted = index.to_client(Position(1, column))
    assert converted == types.Position(line=0, character=units)
    assert index.from_client(converted) == Position(1, column)


def test_positions_outside_the_document_are_clamped():
    index = LineIndex(["ab\n", "c"], "utf-16")
    assert index.to_client(Position(1, 99)) == types.Position(line=0, character=2)
    assert index.to_client(Position(9, 0)) == types.Position(line=2, character=0)
    assert index.range(Span.of(0, 0, 1, 1)).start == types.Position(line=0, character=0)


def test_encoding_preference():
    assert choose_position_encoding(None) == "utf-16"
    assert choose_position_encoding(["utf-32", "utf-8", "utf-16"]) == "utf-16"
    assert choose_position_encoding(["utf-32", "utf-8"]) == "utf-32"
    assert choose_position_encoding(["utf-8"]) == "utf-8"


def test_an_internal_analysis_error_is_logged_and_keeps_the_diagnostics(monkeypatch):
    server = server_module.AutogradLintServer()
    logged: list[tuple[str, str]] = []
    monkeypatch.setattr(
        server, "log", lambda message, level="messages": logged.append((level, message))
    )
    handler = server_module._ForwardErrors(server)
    logging.getLogger("autograd_lint").addHandler(handler)
    try:
        document = Document("file:///w/a.py", "python", 1, "def f(:\n    pass\n")
        server.analyse(document)
        assert [d.code for d in document.diagnostics] == ["AG000"]
        good_result = document.result_id

        def broken(*args, **kwargs):
            raise RuntimeError("engine bug")

        monkeypatch.setattr("autograd_lint.analysis.engine.analyze", broken)
        document.set_text("def g(:\n    pass\n")
        document.version = 2
        server.analyse(document)
    finally:
        logging.getLogger("autograd_lint").removeHandler(handler)
    assert [d.code for d in document.diagnostics] == ["AG000"]  # kept
    assert document.result_id == good_result
    errors = [message for level, message in logged if level == "error"]
    assert any("engine bug" in message for message in errors)


def test_only_the_recently_analysed_documents_keep_the_engine_cache(monkeypatch):
    monkeypatch.setattr(server_module, "CACHED_LINES", 9)  # three documents of three lines
    server = server_module.AutogradLintServer()
    documents = [
        Document(f"file:///w/{n}.py", "python", 1, f"def f{n}(:\n    pass\n") for n in range(5)
    ]
    for document in documents:
        server.analyse(document)
    kept = [d.cache is not None for d in documents]
    assert kept == [False, False, True, True, True]
    # The others keep their text as one string, and their findings.
    assert [d._lines is None for d in documents] == [True, True, False, False, False]
    assert [d.diagnostics is None for d in documents] == [True, True, False, False, False]
    assert [server.diagnostics_of(d)[0].code for d in documents] == ["AG000"] * 5
    # A document whose cache was dropped is analysed from scratch on its next change.
    oldest = documents[0]
    oldest.set_text("def f0():\n    pass\n")
    oldest.version = 2
    server.analyse(oldest)
    assert oldest.diagnostics == [] and oldest.cache is not None
    assert documents[2].cache is None  # now the least recently analysed


def test_the_latest_document_keeps_its_cache_whatever_its_size(monkeypatch):
    monkeypatch.setattr(server_module, "CACHED_LINES", 1)
    server = server_module.AutogradLintServer()
    document = Document("file:///w/big.py", "python", 1, "x = 1\n" * 50)
    server.analyse(document)
    assert document.cache is not None


def test_a_cold_document_gets_back_the_same_diagnostics_and_text(monkeypatch):
    from pathlib import Path

    samples = Path(__file__).resolve().parents[2] / "samples"
    texts = [p.read_text(encoding="utf-8") for p in sorted(samples.glob("*_buggy.py"))[:3]]
    monkeypatch.setattr(server_module, "CACHED_LINES", 1)  # only the latest stays hot
    server = server_module.AutogradLintServer()
    server.related_information = True
    documents = [Document(f"file:///w/{n}.py", "python", 1, text) for n, text in enumerate(texts)]
    hot = []
    for document in documents:
        server.analyse(document)
        hot.append((list(document.diagnostics), document.result_id))
    for document, (diagnostics, result_id), text in zip(documents[:-1], hot, texts, strict=False):
        assert document.cache is None and document.diagnostics is None  # cold
        assert document.source == text and document._lines is None
        assert server.diagnostics_of(document) == diagnostics
        assert document.result_id == result_id  # pull clients see "unchanged"
    assert all(diagnostics for diagnostics, _ in hot)
