"""Jupyter notebooks (`.ipynb`, nbformat 4): their code cells checked as one program.

`reader` parses the JSON and remembers where each cell's source lies in the text, so a
fix rewrites only the sources it changes; `program` joins the code cells (magics made
harmless without moving anything) and maps positions back to cells; `rerun` finds the
cells that fail when run a second time; `check` is what the CLI calls.
"""

NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(path) -> bool:
    return str(path).endswith(NOTEBOOK_SUFFIX)
