"""What opening a file costs when the analysis reads the libraries it uses, beside a file
that uses none, and what a keystroke costs afterwards.

    python bench/library_open.py              # best of 3 fresh processes per case
    python bench/library_open.py --repeat 5 --json

Each case is a small training file that builds a library's objects in a loop (the
analysis asks the library summaries what each class keeps: library_layers.py). "Open" is
`check_source` through a project `Workspace` in a fresh process, as the CLI and the
language server run it, timed in CPU seconds of that process (`time.process_time`; the
one `python -c` sys.path probe is a child and counted in wall `query ms` only):

- `first ms`: with empty caches (interpreter answer and library summaries);
- `cached ms`: a new process with the caches the first left (the second open);
- `asked`: how many classes the analysis asked the summaries about;
- `parse ms`: `ast.parse` of the same file, the yardstick of "costs nothing";
- `key ms`: the median re-analysis after a one-character edit in the open file (the
  language server's incremental path, `AnalysisCache`), in the warm process;
- `key asked`: classes asked about during those keystrokes that were not answered from
  memory: 0 means an edit costs no library reading.

The `none` row imports nothing but torch: it asks about no class, first or cached.
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

LOOP = """
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    optimizer.zero_grad()
    loss = model(torch.randn(4, 8)).sum()
    loss.backward()
    optimizer.step()
"""
CASES = {
    "none": "import torch\n\nmodel = torch.nn.Linear(8, 8)\n",
    "snntorch": (
        "import torch\nimport snntorch as snn\n\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(8, 8)\n        self.lif = snn.Leaky(beta=0.9)\n"
        "    def forward(self, x):\n        spk, mem = self.lif(self.fc(x))\n        return spk\n\n"
        "model = Net()\n"
    ),
    "lightning": (
        "import torch\nimport lightning as L\nfrom lightning.pytorch.callbacks import EarlyStopping\n\n"
        "class Net(L.LightningModule):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = torch.nn.Linear(8, 8)\n"
        "    def forward(self, x):\n        return self.fc(x)\n\n"
        "model = Net()\nstop = EarlyStopping(monitor='loss')\n"
    ),
    "transformers": (
        "import torch\nfrom transformers import BertConfig, BertModel\n\n"
        "model = BertModel(BertConfig(hidden_size=8, num_hidden_layers=1, num_attention_heads=1, intermediate_size=8))\n"
    ),
    "torch_geometric_temporal": (
        "import torch\nfrom torch_geometric_temporal.nn.recurrent import EvolveGCNO, GConvGRU\n\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.evolve = EvolveGCNO(8)\n        self.cell = GConvGRU(8, 8, 2)\n"
        "    def forward(self, x):\n        edges = torch.tensor([[0, 1], [1, 2]])\n"
        "        self.evolve.reinitialize_weight()\n"
        "        return self.cell(self.evolve(x, edges), edges)\n\n"
        "model = Net()\n"
    ),
}  # fmt: skip

WORKER = r"""
import ast, json, statistics, sys, time
from pathlib import Path

root, name, keystrokes = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
from autograd_lint.analysis import AnalysisCache
from autograd_lint.checker import check_source
from autograd_lint.library_summaries import LibrarySummaries
from autograd_lint.workspace import Workspace

asked = []
original = LibrarySummaries.class_state
def counting(self, qualified):
    if qualified not in self._entries:
        asked.append(qualified)
    return original(self, qualified)
LibrarySummaries.class_state = counting

path = root / f"uses_{name}.py"
text = path.read_text()
started = time.process_time()
tree = ast.parse(text)
parse = time.process_time() - started

workspace = Workspace(root)
wall = time.perf_counter()
workspace.environment.info  # the sys.path probe (a child process, or the cached answer)
query = time.perf_counter() - wall
cache = AnalysisCache()
started = time.process_time()
findings = check_source(text, str(path), cache=cache, resolver=workspace.resolve)
opened = time.process_time() - started
asked_open = len(asked)

asked.clear()
times = []
lines = text.split("\n")
for number in range(keystrokes):  # type a comment character at the end, then undo it
    edited = "\n".join(lines) + ("#" if number % 2 == 0 else "")
    started = time.process_time()
    check_source(edited, str(path), cache=cache, resolver=workspace.resolve)
    times.append(time.process_time() - started)
print(json.dumps({
    "parse": parse, "query": query, "open": opened, "asked": asked_open,
    "key": statistics.median(times) if times else 0.0, "key_asked": len(asked),
    "findings": sorted(f.code for f in findings),
}))
"""


def run(root: Path, name: str, cache_home: Path, keystrokes: int) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(root), name, str(keystrokes)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def measure(repeat: int, keystrokes: int) -> dict[str, dict]:
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder, "project")
        root.mkdir()
        (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
        for name, head in CASES.items():
            (root / f"uses_{name}.py").write_text(
                head + LOOP
            )  # not named like the library: it would shadow it
        for name in CASES:
            first, cached = [], []
            for attempt in range(repeat):
                home = Path(folder, f"cache-{name}-{attempt}")
                first.append(run(root, name, home, 0))
                cached.append(run(root, name, home, keystrokes))
            best_first = min(first, key=lambda r: r["open"])
            best_cached = min(cached, key=lambda r: r["open"])
            results[name] = {
                "query_ms": 1000 * best_first["query"],
                "cached_query_ms": 1000 * best_cached["query"],
                "first_ms": 1000 * best_first["open"],
                "cached_ms": 1000 * best_cached["open"],
                "asked": best_first["asked"],
                "cached_asked": best_cached["asked"],
                "parse_ms": 1000 * min(r["parse"] for r in first + cached),
                "key_ms": 1000 * min(r["key"] for r in cached),
                "key_asked": max(r["key_asked"] for r in cached),
                "findings": best_first["findings"],
            }
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keystrokes", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure(args.repeat, args.keystrokes)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    header = (
        f"{'file imports':26} {'query ms':>9} {'first ms':>9} {'cached ms':>10} {'asked':>6} "
        f"{'parse ms':>9} {'key ms':>7} {'key asked':>10}  findings"
    )
    print(header)
    print("-" * len(header))
    for name, r in results.items():
        print(
            f"{name:26} {r['query_ms']:9.1f} {r['first_ms']:9.1f} {r['cached_ms']:10.1f} "
            f"{r['asked']:6d} {r['parse_ms']:9.2f} {r['key_ms']:7.2f} {r['key_asked']:10d}  "
            f"{' '.join(r['findings']) or '-'}"
        )
    print(
        "first/cached: check_source in a fresh process (CPU ms), empty caches / the caches "
        "the first left; query: the sys.path probe (wall ms); key: median re-check after a "
        "one-character edit, warm"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
