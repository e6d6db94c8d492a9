"""Runtime confirmation of a notebook's findings (`check --confirm`).

The harness runs scripts, so the notebook's program (its code cells in order, magics
turned into `pass`) is written to a hidden script next to the notebook (the cells' relative
paths must resolve as they do in Jupyter, whose working directory is the notebook's folder)
and removed afterwards. A re-run hazard is confirmed by running the cells up to it and
that cell once more. The verdicts' lines are mapped back to cells, and a failing backward
no finding names becomes a finding by cell (runtime discovery, `--confirm=always`).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

from ..analysis.model import Finding, Span
from .program import Program
from .rerun import RERUN_KIND, rerun_text


def confirm_notebook(path: Path, findings: list[Finding], options) -> list:
    """A RuntimeVerdict per finding (localized ones, as check_notebook returns them)."""
    return discover_notebook(path, findings, options, always=False)[0]


def discover_notebook(path: Path, findings: list[Finding], options, always: bool = True):
    """One run of the cells in order: a RuntimeVerdict per finding (localized ones, as
    check_notebook returns them), and the failing backwards no finding names, each as a
    finding by cell with its verdict. Without findings the cells run only when `always`."""
    from ..runtime.discovery import runtime_findings
    from ..runtime.matching import verdict_for
    from ..runtime.runner import confirm, run_harness
    from .check import load, localize, program_of

    if findings:
        program: Program = findings[0].extra["program"]
        raw = findings[0].extra.get("notebook")
    elif always:
        raw = load(path.read_bytes())
        program = program_of(raw)
    else:
        return [], []
    verdicts: dict[int, object] = {}
    found = []
    plain = [i for i, f in enumerate(findings) if f.kind != RERUN_KIND]
    if plain or always:
        static = [f.extra["program_finding"] for f in findings]
        wanted = [static[i] for i in plain]
        run = _run(path, program.text, lambda script: run_harness(script, wanted, options))
        for i in plain:
            verdicts[i] = _to_cells(verdict_for(static[i], run), program, 0, None)
        for finding, verdict in runtime_findings(str(path), program.text, run, static):
            found.append((localize(program, finding, raw), _to_cells(verdict, program, 0, None)))
    for i, finding in enumerate(findings):
        if finding.kind != RERUN_KIND:
            continue
        original = finding.extra["program_finding"]
        cell = program.cell_numbered(original.extra["rerun_cell"])
        text, offset = rerun_text(program, cell)
        moved = dataclasses.replace(original, span=_down(original.span, offset), evidence=())
        (verdict,) = _run(path, text, lambda script, moved=moved: confirm(script, [moved], options))
        verdicts[i] = _to_cells(verdict, program, offset, cell)
    return [verdicts[i] for i in range(len(findings))], found


def _run(path: Path, text: str, run):
    """`run(script)` with `text` written to a hidden script beside the notebook."""
    fd, name = tempfile.mkstemp(prefix=".autograd-lint-", suffix=".py", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return run(Path(name))
    finally:
        os.unlink(name)


def _down(span: Span, offset: int) -> Span:
    return Span.of(
        span.start.line + offset, span.start.column, span.end.line + offset, span.end.column
    )


def _to_cells(verdict, program: Program, offset: int, rerun_cell):
    """The verdict with its program lines as cell lines (`cell`, `built_cell`)."""

    def where(line):
        if line is None:
            return None, None
        if rerun_cell is not None and line >= rerun_cell.first_line + offset:
            return rerun_cell.number, line - offset - rerun_cell.first_line + 1
        cell = program.cell_at(line)
        return (cell.number, line - cell.first_line + 1) if cell else (None, line)

    cell, line = where(verdict.line)
    built_cell, built_line = where(verdict.built_line)
    freed_cell, freed_line = where(verdict.freed_line)
    frames = [
        dict(zip(("cell", "line"), where(frame.get("line")), strict=True), **_but_line(frame))
        for frame in verdict.frames or ()
    ]
    return dataclasses.replace(
        verdict,
        line=line,
        cell=cell,
        built_line=built_line,
        built_cell=built_cell,
        freed_line=freed_line,
        freed_cell=freed_cell,
        frames=frames,
    )


def _but_line(frame: dict) -> dict:
    return {key: value for key, value in frame.items() if key not in ("cell", "line")}
