"""The VS Code extension in a real VS Code (code-server + headless chromium).

`scripts/vscode-e2e.sh install` provides the tools (CI runs it from .ci/run); this test runs
`scripts/vscode-e2e.sh test`: the mocha suites inside the extension host, then the UI checks
of the installed VSIX, the last one a first run with no network and a bare python3. Outside CI, a machine without the tools skips it; in CI a missing tool
is a failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "vscode-e2e.sh"
PREFIX = Path(os.environ.get("PREFIX", "/tmp/agl-e2e"))


@pytest.mark.long_running  # about 2.5 minutes: under -n it runs beside the rest
def test_extension_in_real_vscode():
    if not os.environ.get("CI") and not (PREFIX / "cs" / ".complete").exists():
        pytest.skip(f"code-server is not installed in {PREFIX}: run {SCRIPT} install")
    env = {**os.environ, "PREFIX": str(PREFIX), "PYTHON": sys.executable}
    env.pop("SESSIONS", None)  # every session
    result = subprocess.run(
        ["bash", str(SCRIPT), "test"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    summary = re.search(r"^(\d+) passed, (\d+) failed$", result.stdout, re.MULTILINE)
    # the client's checks (types, lint, unit tests), the extension-host session, the UI
    # session, the notebook UI session, the offline first run (no network, a bare Python)
    assert summary and summary.groups() == ("5", "0"), output[-3000:]
    # the mocha suites inside the extension host ran and passed
    mocha = re.search(r"(\d+) passing", output)
    assert mocha and int(mocha.group(1)) >= 10, output[-3000:]
    assert "failing" not in output
