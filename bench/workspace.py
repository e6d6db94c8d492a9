"""Workspace index: cold build over a 1,000-file project, then one file's update.

Generates a project (packages of models, losses and training scripts that import each
other, ~60 lines a file) in a temporary folder, then measures
  * cold: `Workspace.index()` — every file summarised, imports resolved;
  * update: one models file edited → `changed()` + the summaries that depend on it rebuilt
    + the importing training script re-analysed;
  * check: `analyze()` of every training script with the index warm.
Targets: cold <= 30 s for 1,000 files; one-file update <= 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from autograd_lint.analysis import analyze
from autograd_lint.workspace import Workspace

MODELS = '''"""Models of package {pkg}, file {index}."""

import torch
from torch import nn


class Encoder{index}(nn.Module):
    def __init__(self, features=8, hidden=16):
        super().__init__()
        self.rnn = nn.GRU(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        return self.head(out[:, -1])


class Detached{index}(Encoder{index}):
    def forward(self, x):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()
        out, self.hidden = self.rnn(x, self.hidden)
        return self.head(out[:, -1])


def make_batches(count, batch=4, steps=6, features=8):
    return [(torch.randn(batch, steps, features), torch.randn(batch, 1)) for _ in range(count)]
'''

LOSSES = '''"""Losses of package {pkg}, file {index}."""

import torch


def weighted_mse(prediction, target, weight=1.0):
    return weight * (prediction - target).pow(2).mean()


def smooth(prediction, target):
    return torch.nn.functional.smooth_l1_loss(prediction, target)
'''

TRAIN = '''"""Training script {index} of package {pkg}."""

import torch

from .losses_{index} import weighted_mse
from .models_{index} import {model}, make_batches


def train(epochs=2):
    model = {model}()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        total = 0.0
        for x, y in make_batches(8):
            loss = weighted_mse(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
    return total
'''


def generate(root: Path, files: int) -> list[Path]:
    trainers = []
    per_package = 30  # 10 triples of models / losses / train
    packages = max(1, files // per_package)
    for pkg in range(packages):
        folder = root / f"pkg{pkg}"
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        for index in range(per_package // 3):
            model = f"Encoder{index}" if index % 2 else f"Detached{index}"
            (folder / f"models_{index}.py").write_text(MODELS.format(pkg=pkg, index=index))
            (folder / f"losses_{index}.py").write_text(LOSSES.format(pkg=pkg, index=index))
            train = folder / f"train_{index}.py"
            train.write_text(TRAIN.format(pkg=pkg, index=index, model=model))
            trainers.append(train)
    (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    return trainers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        trainers = generate(root, args.files)
        count = sum(1 for _ in root.rglob("*.py"))
        lines = sum(p.read_text().count("\n") for p in root.rglob("*.py"))

        workspace = Workspace(root)
        started = time.perf_counter()
        indexed = workspace.index()
        cold = time.perf_counter() - started

        started = time.perf_counter()
        findings = 0
        for train in trainers:
            findings += len(analyze(train.read_text(), str(train), resolver=workspace.resolve))
        check_all = time.perf_counter() - started

        timings = []
        for attempt in range(args.updates):
            train = trainers[attempt % len(trainers)]
            models = train.with_name(train.name.replace("train_", "models_"))
            text = models.read_text() + f"\n# edit {attempt}\n"
            started = time.perf_counter()
            affected = workspace.changed(models, text)
            workspace.resolve(f".{models.stem}", 1, str(train))
            for path in affected:
                analyze(Path(path).read_text(), path, resolver=workspace.resolve)
            timings.append((time.perf_counter() - started) * 1000)
        timings.sort()
        p95 = timings[min(len(timings) - 1, int(0.95 * len(timings)))]
        print(f"project: {count} files, {lines:,} lines, {len(trainers)} training scripts")
        print(f"cold index: {indexed} files in {cold:.2f} s ({count / cold:,.0f} files/s)")
        print(
            f"analyse every training script with the index warm: {check_all:.2f} s, {findings} findings"
        )
        print(
            f"one-file update (summary + importers re-analysed): p50 {statistics.median(timings):.1f} ms,"
            f" p95 {p95:.1f} ms, max {timings[-1]:.1f} ms over {len(timings)} edits"
        )
        print(
            f"targets: cold <= 30 s -> {'met' if cold <= 30 else 'MISSED'};"
            f" update <= 50 ms -> {'met' if p95 <= 50 else 'MISSED'} (p95)"
        )


if __name__ == "__main__":
    main()
