"""`autograd-lint check` on Jupyter notebooks: cells as one program, findings by cell in
every format, fixes that change only the cells they touch, and AG000 for broken files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from autograd_lint.cli import main
from autograd_lint.notebook.program import build_program
from autograd_lint.notebook.reader import NotebookError, parse_notebook, with_sources

SETUP = "import torch\nfrom torch import nn\n\ncell = nn.RNNCell(4, 8)\n"
STATE = "%matplotlib inline\nhidden = torch.zeros(2, 8)\n!nvidia-smi\n"
LOOP = (
    "for step in range(3):\n"
    "    hidden = cell(torch.randn(2, 4), hidden)\n"
    "    loss = hidden.pow(2).mean()\n"
    "    loss.backward()\n"
)


def notebook(*cells, indent=1, **extra) -> str:
    """nbformat's own layout: indent 1, sorted keys, lists of lines, a final newline."""
    out = []
    for kind, source in cells:
        cell = {"cell_type": kind, "id": f"id{len(out)}", "metadata": {}}
        cell["source"] = source.splitlines(keepends=True)
        if kind == "code":
            cell.update(
                execution_count=len(out) + 7,
                outputs=[{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}],
            )
        out.append(cell)
    document = {"cells": out, "metadata": {"kernelspec": {"language": "python"}}, **extra}
    document.setdefault("nbformat", 4)
    document.setdefault("nbformat_minor", 5)
    return json.dumps(document, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


BUGGY = notebook(
    ("markdown", "# RNN\nA markdown cell counts in the numbering.\n"),
    ("code", SETUP),
    ("code", STATE),
    ("raw", "raw text"),
    ("code", LOOP),
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["check", "--no-color", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_text_output_names_the_cell_and_cell_relative_positions(project, capsys):
    (project / "nb.ipynb").write_text(BUGGY, encoding="utf-8")
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1
    first = out.splitlines()[0]
    # Cell 5 of all cells (markdown and raw included), line 4 of that cell, column 5.
    assert first.startswith("nb.ipynb:cell 5:4:5: AG001 ")
    # The cell's own steps need no cell number.
    assert "\n    4:5: `loss.backward()` frees" in out
    assert out.endswith("Found 1 finding in 1 file (1 file checked).\n")
    # Evidence in another cell names it, in the step and in the message.
    sample = (
        Path(__file__).resolve().parent.parent / "samples/notebooks/hoisted_forward_buggy.ipynb"
    )
    _, out, _ = run(capsys, str(sample))
    assert ":cell 5:5:5: AG001 error: backward through a graph built once before the loop: " in out
    assert "`features` (cell 4 line 1)" in out
    assert "\n    cell 4:1:12: graph built here, once, before the loop" in out


def test_json_sarif_and_github_locations(project, capsys):
    (project / "nb.ipynb").write_text(BUGGY, encoding="utf-8")
    _, out, _ = run(capsys, "--format", "json", "nb.ipynb")
    (finding,) = json.loads(out)["findings"]
    assert finding["cell"] == 5
    assert finding["range"]["start"] == {"line": 4, "column": 4}
    assert {step.get("cell") for step in finding["evidence"]} >= {5}
    # The file's own lines: where line 4 of cell 5's source is written in the JSON.
    file_lines = BUGGY.splitlines()
    line_of_backward = next(
        i for i, text in enumerate(file_lines, 1) if '"    loss.backward()\\n"' in text
    )
    _, out, _ = run(capsys, "--format", "sarif", "nb.ipynb")
    (result,) = json.loads(out)["runs"][0]["results"]
    location = result["locations"][0]
    assert location["physicalLocation"]["region"]["startLine"] == line_of_backward
    assert location["properties"]["cell"] == 5
    assert location["properties"]["cellRegion"]["startLine"] == 4
    assert result["properties"] == {"cell": 5, "cellRegion": location["properties"]["cellRegion"]}
    _, out, _ = run(capsys, "--format", "github", "nb.ipynb")
    assert out.startswith(f"::error file=nb.ipynb,line={line_of_backward},endLine=")
    assert "title=AG001 (cell 5%3A4%3A5)::cell 5:4:5: backward through" in out


def test_folders_are_searched_for_notebooks(project, capsys):
    (project / "a").mkdir()
    (project / "a" / "nb.ipynb").write_text(BUGGY, encoding="utf-8")
    (project / "a" / "train.py").write_text(
        SETUP + STATE.replace("%", "# ").replace("!", "# ") + LOOP, encoding="utf-8"
    )
    code, out, _ = run(capsys, ".")
    assert code == 1
    assert "a/nb.ipynb:cell 5:4:5: AG001" in out
    assert "a/train.py:" in out
    assert "(2 files checked)" in out


def test_magics_are_neutralised_without_moving_positions():
    source = "%load_ext autoreload\nfiles = !ls\nx = torch.zeros(1)  # 100% sure\n    \nmodel?\n"
    program = build_program([(0, source)])
    lines = program.text.split("\n")[1:6]
    assert lines[0].startswith("pass")
    assert lines[1].startswith("files = None")
    assert lines[2] == "x = torch.zeros(1)  # 100% sure"  # untouched
    assert lines[4].startswith("pass")
    # A cell that parses as it is keeps every line, even ones that look like magics.
    text = 'print("""\n%d items\n""")\n'
    assert build_program([(0, text)]).text.split("\n")[1:4] == text.split("\n")[:3]


def test_shell_cell_magics_are_skipped_and_broken_cells_reported(project, capsys):
    (project / "nb.ipynb").write_text(
        notebook(
            ("code", "%%bash\nfor x in 1 2; do echo $x; done\n"),
            ("code", "def f(:\n    pass\n"),
            ("code", "%%time\n" + SETUP),
        ),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--format", "json", "nb.ipynb")
    (finding,) = json.loads(out)["findings"]
    assert (finding["code"], finding["cell"], finding["range"]["start"]["line"]) == ("AG000", 2, 1)
    assert "the cell is not run" in finding["message"]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not valid JSON"),
        ('{"nbformat": 3, "worksheets": []}', "nbformat 3"),
        ("[1, 2]", "not an object"),
        ('{"nbformat": 4, "cells": [{"source": "x"}]}', "no `cell_type`"),
    ],
)
def test_invalid_notebooks_get_an_ag000_and_the_run_goes_on(project, capsys, text, why):
    (project / "bad.ipynb").write_text(text, encoding="utf-8")
    (project / "good.ipynb").write_text(BUGGY, encoding="utf-8")
    code, out, _ = run(capsys, "bad.ipynb", "good.ipynb")
    assert code == 1
    assert out.startswith("bad.ipynb:1:1: AG000 error: not checked: ")
    assert why in out.splitlines()[0]
    assert "good.ipynb:cell 5:4:5: AG001" in out


def test_fix_rewrites_only_the_touched_cell_sources(project, capsys):
    original = BUGGY
    path = project / "nb.ipynb"
    path.write_text(original, encoding="utf-8")
    code, out, err = run(capsys, "--diff", "nb.ipynb")
    assert "--- a/nb.ipynb:cell 5\n+++ b/nb.ipynb:cell 5\n" in out
    assert "+    hidden = hidden.detach()\n" in out
    assert "nb.ipynb:cell 5:2: AG001 would be fixed" in err
    assert path.read_text(encoding="utf-8") == original  # --diff changes nothing
    code, out, _ = run(capsys, "--fix", "nb.ipynb")
    assert code == 0 and "All checks passed" in out
    fixed = path.read_text(encoding="utf-8")
    # The only change: one line inserted into cell 5's source list, in the file's layout.
    old_lines, new_lines = original.splitlines(keepends=True), fixed.splitlines(keepends=True)
    inserted = [line for line in new_lines if line not in old_lines]
    assert inserted == ['    "    hidden = hidden.detach()\\n",\n']
    assert [line for line in new_lines if line != inserted[0]] == old_lines
    # Magics, outputs, execution counts and ids are as they were.
    cells = json.loads(fixed)["cells"]
    assert "".join(cells[2]["source"]) == STATE
    assert cells[4]["execution_count"] == json.loads(original)["cells"][4]["execution_count"]


def test_fix_keeps_a_compact_file_compact(project, capsys):
    original = notebook(("code", SETUP), ("code", STATE + LOOP), indent=None)
    path = project / "nb.ipynb"
    path.write_text(original, encoding="utf-8")
    run(capsys, "--fix", "nb.ipynb")
    fixed = path.read_text(encoding="utf-8")
    assert fixed.count("\n") == 1  # still one line
    assert fixed.replace(' "    hidden = hidden.detach()\\n",', "") == original
    # The magics came back exactly.
    assert "".join(json.loads(fixed)["cells"][1]["source"]).startswith("%matplotlib inline\n")


def test_reader_round_trip_keeps_every_byte():
    raw = parse_notebook(BUGGY)
    assert [c.kind for c in raw.cells] == ["markdown", "code", "code", "raw", "code"]
    assert with_sources(raw, {c.index: c.source for c in raw.cells}) == BUGGY
    changed = with_sources(raw, {1: "é = 1\n"})
    assert json.loads(changed)["cells"][1]["source"] == ["é = 1\n"]
    assert changed.replace('"é = 1\\n"', "").count("\n") < BUGGY.count("\n")
    with pytest.raises(NotebookError, match="nbformat 5"):
        parse_notebook('{"nbformat": 5, "cells": []}')


def test_rerun_hazard_in_every_output(project, capsys):
    path = Path(__file__).resolve().parent.parent / "samples/notebooks/rerun_hidden_buggy.ipynb"
    code, out, _ = run(capsys, str(path))
    assert code == 1
    assert ":cell 5:7:1: AG001 warning: fails when cell 5 is run again: it reads `hidden`" in out
    assert "    4:32: cell 5 reads `hidden` that its previous run left with a graph" in out
    assert "7:1: previous run: `loss.backward()` frees" in out
