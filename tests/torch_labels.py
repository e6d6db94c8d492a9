"""Run a test's program under torch and hold it to its label.

The mutant tests (tests/test_mutants*.py) label each program they analyse with what torch
does with it, and check that label by running it: a label is None for a clean run, or
(an error text, the line of the raising statement). One copy of that check, so that each
sample's file holds only its programs and their labels.
"""

from __future__ import annotations

import re
import subprocess

IN_PLACE_ERROR = "modified by an inplace operation"
FREED_ERROR = "Trying to backward through the graph a second time"

Label = tuple[str, int] | None


def run_torch(torch_python: str, source: str, tmp_path) -> subprocess.CompletedProcess:
    script = tmp_path / "program.py"
    script.write_text(source)
    return subprocess.run(
        [torch_python, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )


def raising_line(stderr: str, tmp_path) -> int | None:
    """The program's innermost frame in the traceback: the statement that raised."""
    lines = re.findall(rf'File "{re.escape(str(tmp_path))}/program.py", line (\d+)', stderr)
    return int(lines[-1]) if lines else None


def assert_behaves_as_labelled(torch_python: str, source: str, label: Label, tmp_path) -> None:
    result = run_torch(torch_python, source, tmp_path)
    if label is None:
        assert result.returncode == 0, result.stderr
        return
    error, line = label
    assert result.returncode != 0 and error in result.stderr, result.stderr
    assert raising_line(result.stderr, tmp_path) == line, result.stderr
