"""Notebooks: keystroke-to-diagnostics in a cell of a big notebook, and CLI throughput on
a folder of notebooks beside the same code as .py files.

    python bench/notebooks.py                # 200-cell notebook, 200 edits; 60 notebooks
    python bench/notebooks.py --cells 50 --edits 20 --notebooks 10 --json

- latency: the language server over real stdio (latency.py's raw client) opens a notebook
  whose --cells code cells hold latency.py's generated training file (its top-level
  definitions dealt out over the cells), then --edits single-character edits are typed
  into a cell in the middle (a statement typed, then deleted), each timed from
  notebookDocument/didChange to the publishDiagnostics of that cell, with the server's
  CPU time beside it; and the first open, to the first publish.
- throughput: `autograd-lint check` in this process (CPU seconds, best of --repeat) on
  --notebooks notebooks made from the samples (one cell per top-level statement, a
  markdown cell and a magic before them), and on the same code as .py files.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import io
import json
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import (  # noqa: E402 - the bench folder is not a package
    SAMPLES,
    cpu_seconds,
    initialized_client,
    percentile,
    training_file,
)


def top_level_chunks(text: str) -> list[str]:
    """The text cut before each top-level statement (decorators stay with theirs)."""
    tree = ast.parse(text)
    lines = text.split("\n")
    starts = [
        min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        for node in tree.body
    ]
    bounds = starts[1:] + [len(lines)]
    return ["\n".join(lines[a:b]).strip("\n") for a, b in zip(starts, bounds, strict=True)]


def deal(chunks: list[str], cells: int) -> list[str]:
    """`cells` cell sources holding the chunks in order, as evenly as they go."""
    out = []
    for index in range(cells):
        part = chunks[index * len(chunks) // cells : (index + 1) * len(chunks) // cells]
        out.append("\n\n\n".join(part) or "pass")
    return out


def notebook_json(sources: list[str]) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# generated\n"]}]
    for source in sources:
        lines = source.split("\n")
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": [line + "\n" for line in lines[:-1]] + [lines[-1]],
            }
        )
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1) + "\n"


# -- latency ------------------------------------------------------------------------------


async def measure_latency(args) -> dict:
    text = training_file(args.lines)
    chunks = top_level_chunks(text)
    sources = deal(chunks, args.cells)
    client, _ = await initialized_client()
    uri = "file:///bench/train.ipynb"
    cell_uris = [f"vscode-notebook-cell:/bench/train.ipynb#c{i}" for i in range(len(sources))]
    published: dict[str, float] = {}
    seen = asyncio.Event()

    def record(message):
        if message.get("method") == "textDocument/publishDiagnostics":
            published[message["params"]["uri"]] = time.perf_counter()
            seen.set()

    # Our own reader: latency.Client keys publishes by (uri, version), and cells have none.
    client.reader.cancel()
    client.reader = asyncio.ensure_future(_read(client, record))

    async def publish_after(cell_uri: str, sent: float) -> float:
        while published.get(cell_uri, 0) < sent:
            seen.clear()
            await asyncio.wait_for(seen.wait(), 120)
        return published[cell_uri] - sent

    cpu = cpu_seconds(client.process.pid)
    sent = time.perf_counter()
    client.notify(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": uri,
                "notebookType": "jupyter-notebook",
                "version": 1,
                "cells": [{"kind": 2, "document": cell} for cell in cell_uris],
            },
            "cellTextDocuments": [
                {"uri": cell, "languageId": "python", "version": 1, "text": source}
                for cell, source in zip(cell_uris, sources, strict=True)
            ],
        },
    )
    first_open = await publish_after(cell_uris[-1], sent)
    first_open_cpu = cpu_seconds(client.process.pid) - cpu

    middle = len(sources) // 2
    target = next(i for i in range(middle, len(sources)) if "loss" in sources[i])
    lines = sources[target].split("\n")
    anchor = next(i for i, line in enumerate(lines) if line.strip().startswith("loss"))
    indent = lines[anchor][: len(lines[anchor]) - len(lines[anchor].lstrip())]
    statement = "probe = loss.detach().mean()"
    edits = [(0, indent + "\n")]
    typed = len(indent)
    while len(edits) < args.edits:
        for char in statement:
            edits.append((typed, char))
            typed += 1
        for _ in statement:
            edits.append((-typed, ""))
            typed -= 1
    latencies, cpu_times = [], []
    for version, (column, new_text) in enumerate(edits[: args.edits], start=2):
        start = abs(column) - 1 if column < 0 else column
        end = abs(column) if column < 0 else column
        change = {
            "range": {
                "start": {"line": anchor, "character": start},
                "end": {"line": anchor, "character": end},
            },
            "text": new_text,
        }
        cpu = cpu_seconds(client.process.pid)
        sent = time.perf_counter()
        client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": uri, "version": version},
                "change": {
                    "cells": {
                        "textContent": [
                            {
                                "document": {"uri": cell_uris[target], "version": version},
                                "changes": [change],
                            }
                        ]
                    }
                },
            },
        )
        latencies.append(await publish_after(cell_uris[target], sent))
        cpu_times.append(cpu_seconds(client.process.pid) - cpu)
        await asyncio.sleep(args.gap)
    await client.stop()
    ms = [value * 1000 for value in latencies]
    cpu_ms = [value * 1000 for value in cpu_times]
    return {
        "cells": len(sources),
        "notebook_lines": sum(source.count("\n") + 1 for source in sources),
        "first_open_ms": first_open * 1000,
        "first_open_cpu_ms": first_open_cpu * 1000,
        "keystroke_ms": {
            "count": len(ms),
            "p50": percentile(ms, 0.50),
            "p95": percentile(ms, 0.95),
            "max": max(ms),
            "cpu_p50": percentile(cpu_ms, 0.50),
            "cpu_p95": percentile(cpu_ms, 0.95),
        },
    }


async def _read(client, record) -> None:
    """latency.Client's reader, with every notification also given to `record`."""
    stdout = client.process.stdout
    while True:
        length = None
        while (header := await stdout.readline()) not in (b"\r\n", b""):
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        if header == b"" or length is None:
            return
        message = json.loads(await stdout.readexactly(length))
        if "id" in message and "method" not in message:
            client.pending.pop(message["id"]).set_result(message)
        elif "id" in message:
            client.send({"id": message["id"], "result": None})
        else:
            record(message)


# -- throughput ---------------------------------------------------------------------------


def sample_notebooks(folder: Path, count: int) -> tuple[Path, Path, int]:
    """`count` notebooks from the samples, and the same code as .py files; their lines."""
    samples = sorted(SAMPLES.glob("*.py"))
    as_notebooks, as_scripts = folder / "notebooks", folder / "scripts"
    as_notebooks.mkdir()
    as_scripts.mkdir()
    lines = 0
    for index in range(count):
        text = samples[index % len(samples)].read_text(encoding="utf-8")
        chunks = top_level_chunks(text)
        sources = ["%matplotlib inline"] + chunks
        (as_notebooks / f"nb_{index}.ipynb").write_text(notebook_json(sources), encoding="utf-8")
        (as_scripts / f"nb_{index}.py").write_text(
            "\n\n".join(["# %matplotlib inline"] + chunks) + "\n", encoding="utf-8"
        )
        lines += sum(chunk.count("\n") + 1 for chunk in sources)
    return as_notebooks, as_scripts, lines


def check_seconds(folder: Path, repeat: int) -> float:
    from autograd_lint.cli import main as cli

    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        with redirect_stdout(io.StringIO()):
            cli(["check", "--exit-zero", "--format", "json", str(folder)])
        best = min(best, time.process_time() - started)
    return best


def measure_throughput(args) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        notebooks, scripts, lines = sample_notebooks(Path(scratch), args.notebooks)
        check_seconds(scripts, 1)  # imports, and the analysis's first-use costs
        py = check_seconds(scripts, args.repeat)
        ipynb = check_seconds(notebooks, args.repeat)
    return {
        "notebooks": args.notebooks,
        "code_lines": lines,
        "py_cpu_s": py,
        "ipynb_cpu_s": ipynb,
        "py_lines_per_s": lines / py,
        "ipynb_lines_per_s": lines / ipynb,
        "ipynb_over_py": ipynb / py,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", type=int, default=200, help="code cells of the notebook")
    parser.add_argument("--lines", type=int, default=5000, help="lines of code in them")
    parser.add_argument("--edits", type=int, default=200, help="single-character edits")
    parser.add_argument("--gap", type=float, default=0.08, help="seconds between keystrokes")
    parser.add_argument("--notebooks", type=int, default=60, help="notebooks for throughput")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many CLI runs")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    numbers = {
        "latency": asyncio.run(measure_latency(args)),
        "throughput": measure_throughput(args),
    }
    if args.json:
        print(json.dumps(numbers, indent=2))
        return 0
    lat, thr = numbers["latency"], numbers["throughput"]
    keys = lat["keystroke_ms"]
    print(f"notebook               {lat['cells']} code cells, {lat['notebook_lines']} lines")
    print(
        f"first open → publish   {lat['first_open_ms']:.0f} ms; "
        f"server CPU {lat['first_open_cpu_ms']:.0f} ms"
    )
    print(
        f"keystroke in a cell    p50 {keys['p50']:.1f} ms, p95 {keys['p95']:.1f} ms, "
        f"max {keys['max']:.1f} ms ({keys['count']} edits); server CPU p50 "
        f"{keys['cpu_p50']:.1f} ms, p95 {keys['cpu_p95']:.1f} ms"
    )
    print(
        f"CLI, {thr['notebooks']} notebooks   {thr['ipynb_lines_per_s']:,.0f} lines/s "
        f"({thr['ipynb_cpu_s']:.2f} CPU s; {thr['code_lines']} lines)"
    )
    print(
        f"CLI, same code as .py  {thr['py_lines_per_s']:,.0f} lines/s "
        f"({thr['py_cpu_s']:.2f} CPU s): notebooks take {thr['ipynb_over_py']:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
