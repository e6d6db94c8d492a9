"""The documented module aliases of analysis/name_fallback.py, row by row.

A pasted snippet calls `nn.Linear`, `F.tanh`, `optim.SGD` without importing them: the
rows spell those names out as torch's modules, and the snippet is analysed as its twin that
imports them (which torch runs, and which raises). Any import of the name outranks a row.
"""

from __future__ import annotations

import subprocess

from autograd_lint.analysis import analyze
from autograd_lint.analysis.name_fallback import CONVENTIONAL_MODULES, conventional_module

IMPORTS = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport torch.optim as optim\n"
SNIPPET = """\
model = nn.Linear(4, 4)
opt = optim.SGD(model.parameters(), lr=0.1)
h = torch.zeros(1, 4)
for step in range(3):
    h = F.tanh(model(h))
    loss = h.pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def errors(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in analyze(source, "snippet.py") if f.code == "AG001"]


def test_every_row_names_an_importable_module():
    import importlib

    for alias, module in CONVENTIONAL_MODULES.items():
        assert importlib.import_module(module), alias
        assert conventional_module(f"{alias}.thing") == f"{module}.thing"
        assert conventional_module(alias) == alias  # a bare name is no module path


def test_an_unimported_alias_reads_as_its_twin_that_imports_it(torch_python):
    twin = IMPORTS + SNIPPET
    ran = subprocess.run([torch_python, "-c", twin], capture_output=True, text=True, timeout=300)
    assert "backward through the graph a second time" in ran.stderr  # torch's verdict
    lines = len(IMPORTS.splitlines())
    assert errors(twin) == [("AG001", lines + 8)]
    assert errors("import torch\n" + SNIPPET) == [("AG001", 9)]


PARAMETER_SNIPPET = """\
w = nn.Parameter(torch.ones(4))
h = torch.zeros(4)
for step in range(3):
    h = (h + 1) * w
    h.sum().backward()
"""


def test_an_import_outranks_the_row(torch_python):
    # With torch's nn, `w` is a parameter and `h` carries its graph (torch raises at step 2);
    # `import mylib as nn` makes `nn.Parameter` mylib's: nothing known, no error rests on it.
    ran = subprocess.run(
        [torch_python, "-c", IMPORTS + PARAMETER_SNIPPET],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "backward through the graph a second time" in ran.stderr
    assert errors("import torch\n" + PARAMETER_SNIPPET) == [("AG001", 6)]
    assert errors("import torch\nimport mylib as nn\n" + PARAMETER_SNIPPET) == []
