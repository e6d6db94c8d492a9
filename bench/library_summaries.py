"""First and cached cost of reading the libraries a file imports (environment.py,
library_summaries.py), beside `ast.parse` of the same file.

    python bench/library_summaries.py            # best of 3 fresh processes per case
    python bench/library_summaries.py --repeat 5 --json

Each case is a small training file importing a library and reaching its classes. Each
measurement runs in a fresh process (nothing kept in memory), timing in CPU seconds of
that process (`time.process_time`, children excluded):

- `query ms`: asking the interpreter for its sys.path (wall clock: it is a child);
  `cached query`: the same in a later process, read from the user's cache folder;
- `resolve ms`: resolving every import of the file to a source file;
- `first ms`: summarising the classes the file reaches with an empty disk cache;
- `cached ms`: the same in a new process with the cache the first run left;
- `parse ms`: `ast.parse` of the file itself, the yardstick of "costs nothing";
- `no-lib ms`: a file that imports only torch's own modules: resolve only, nothing
  summarised (what every keystroke in such a file would pay, were it wired per edit).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "snntorch": (
        "import torch\nimport snntorch as snn\nfrom snntorch import utils\n"
        "lif = snn.Leaky(beta=0.9, init_hidden=True)\nsyn = snn.Synaptic(0.8, 0.9)\n",
        ["snntorch.Leaky", "snntorch.Synaptic"],
    ),
    "spikingjelly": (
        "import torch\nfrom spikingjelly.activation_based import neuron, functional\n"
        "node = neuron.LIFNode()\n",
        ["spikingjelly.activation_based.neuron.LIFNode"],
    ),
    "lightning": (
        "import torch\nimport lightning as L\n\nclass M(L.LightningModule):\n    pass\n",
        ["lightning.pytorch.LightningModule"],
    ),
    "torch_geometric_temporal": (
        "import torch\nfrom torch_geometric_temporal.nn.recurrent import EvolveGCNO\n",
        ["torch_geometric_temporal.nn.recurrent.EvolveGCNO"],
    ),
    "transformers": (
        "import torch\nfrom transformers import BertModel\n",
        ["transformers.BertModel"],
    ),
}
NO_LIBRARY = "import torch\nimport torch.nn as nn\nfrom torch.optim import SGD\n"

WORKER = r"""
import ast, json, sys, time
sys.path.insert(0, sys.argv[1])
from autograd_lint.environment import Environment
from autograd_lint.library_summaries import LibrarySummaries
source, classes, cache = sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
wall = time.perf_counter()
env = Environment()
info = env.info
query = (time.perf_counter() - wall) * 1000
start = time.process_time()
tree = ast.parse(source)
parse = (time.process_time() - start) * 1000
start = time.process_time()
modules = set()
for node in ast.walk(tree):
    if isinstance(node, ast.Import):
        modules.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module:
        modules.add(node.module)
        modules.update(f"{node.module}.{alias.name}" for alias in node.names)
found = {m: env.resolve_module_file(m) for m in sorted(modules)}
resolve = (time.process_time() - start) * 1000
start = time.process_time()
summaries = LibrarySummaries(env, cache)
states = {c: summaries.class_state(c) for c in classes}
summarise = (time.process_time() - start) * 1000
print(json.dumps({"query": query, "parse": parse, "resolve": resolve, "summarise": summarise,
    "installed": found[sorted(modules)[-1]] is not None if modules else True,
    "kept": {c: [k.name for k in s.kept] if s else None for c, s in states.items()}}))
"""


def run(source: str, classes: list[str], cache: str) -> dict:
    # The interpreter's answer is cached in the user's cache folder: a fresh one per pair.
    environ = {**os.environ, "XDG_CACHE_HOME": cache}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(ROOT / "server"), source, json.dumps(classes), cache],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(source: str, classes: list[str], repeat: int) -> dict:
    firsts, cached = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            firsts.append(run(source, classes, cache))
            cached.append(run(source, classes, cache))
    best = min(firsts, key=lambda r: r["summarise"])
    return {
        "query ms": min(r["query"] for r in firsts),
        "cached query": min(r["query"] for r in cached),
        "resolve ms": min(r["resolve"] for r in firsts + cached),
        "first ms": best["summarise"],
        "cached ms": min(r["summarise"] for r in cached),
        "parse ms": min(r["parse"] for r in firsts),
        "kept": best["kept"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {
        name: measure(source, classes, args.repeat) for name, (source, classes) in CASES.items()
    }
    results["(no library)"] = measure(NO_LIBRARY, [], args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    columns = ["query ms", "cached query", "resolve ms", "first ms", "cached ms", "parse ms"]
    print(f"{'case':<26}" + "".join(f"{c:>13}" for c in columns) + "  kept state")
    for name, row in results.items():
        kept = "; ".join(
            f"{c.rsplit('.', 1)[-1]}: {', '.join(k) if k is not None else 'not installed'}"
            for c, k in row["kept"].items()
        )
        print(f"{name:<26}" + "".join(f"{row[c]:>13.2f}" for c in columns) + f"  {kept}")


if __name__ == "__main__":
    main()
