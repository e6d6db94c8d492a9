"""Run a notebook's code cells in order in one namespace, as Jupyter's kernel would, and
print what happened as JSON: {"error": null} or {"error", "cell", "line", "run"}.

Ground truth for the notebook samples, independent of autograd-lint: IPython lines
(`%...`, `!...`) are simply not run. With the notebook's metadata
`autograd_lint_test.rerun_cell = N`, cell N is run a second time after the others, as a
user re-running the training cell does (`"run": 2` says the failure came then).
"""

import json
import sys
import traceback


def code_cells(notebook: dict) -> list[tuple[int, str]]:
    out = []
    for index, cell in enumerate(notebook["cells"], start=1):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        source = "".join(source) if isinstance(source, list) else source
        lines = [
            "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
        ]
        out.append((index, "\n".join(lines)))
    return out


def main(path: str) -> None:
    with open(path, encoding="utf-8") as file:
        notebook = json.load(file)
    cells = code_cells(notebook)
    rerun = notebook["metadata"].get("autograd_lint_test", {}).get("rerun_cell")
    order = [(number, text, 1) for number, text in cells]
    order += [(number, text, 2) for number, text in cells if number == rerun]
    namespace = {"__name__": "__main__"}
    for number, text, run in order:
        try:
            exec(compile(text, f"<cell {number}>", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 - the failure is the result
            frames = [
                f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<cell")
            ]
            last = frames[-1]
            result = {
                "error": f"{type(exc).__name__}: {exc}",
                "cell": int(last.filename[6:-1]),
                "line": last.lineno,
                "run": run,
            }
            print(json.dumps(result))
            return
    print(json.dumps({"error": None}))


if __name__ == "__main__":
    main(sys.argv[1])
