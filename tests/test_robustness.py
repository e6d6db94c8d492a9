"""Whatever the input, checking never raises and never reports nonsense positions.

Real-looking sources (the samples plus a few below) are mutated the way half-typed
or damaged files look: lines deleted, text cut off, indentation changed, junk and
invalid UTF-8 inserted, brackets left open; plus pathological files (2000 nested
parentheses, deeply nested blocks, 20k lines). The seed is fixed, so every run
checks the same few hundred inputs.
"""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest
from autograd_lint.checker import check_source
from autograd_lint.cli import main

SEED = 20261129
SAMPLES = sorted((Path(__file__).resolve().parent.parent / "samples").glob("*.py"))

GAN = """\
import torch
from torch import nn

generator = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
discriminator = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()

for real in torch.randn(10, 32, 4).unbind(0):
    noise = torch.randn(32, 8)
    fake = generator(noise)
    d_loss = bce(discriminator(real), torch.ones(32, 1)) + bce(
        discriminator(fake.detach()), torch.zeros(32, 1)
    )
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(discriminator(fake), torch.ones(32, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
"""

TBPTT_CLASS = '''\
"""Truncated back-propagation through time, with the state kept on the module."""
from __future__ import annotations

import torch
from torch import nn


class Stateful(nn.Module):
    def __init__(self, size: int = 8) -> None:
        super().__init__()
        self.cell = nn.GRUCell(size, size)
        self.state: torch.Tensor | None = None

    def forward(self, x):
        if self.state is None:
            self.state = torch.zeros_like(x)
        self.state = self.cell(x, self.state)
        return self.state

    def reset(self):
        self.state = None


def train(model: Stateful, batches, *, epochs: int = 2) -> float:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    total = 0.0
    for epoch in range(epochs):
        model.reset()
        for i, batch in enumerate(batches):
            out = model(batch)
            loss = (out ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            total += loss.item()
            if i % 10 == 0:
                print(f"{epoch=} {i=} {loss.item():.3f} {'#' * 3}")
    return total
'''

SYNTAX_TOUR = '''\
import asyncio
import contextlib
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Config:
    lr: float = 1e-3
    steps: int = 3


def accumulate(model, loader, config: Config = Config()):
    total_loss = 0
    with contextlib.suppress(StopIteration), torch.enable_grad():
        for step, (x, y) in zip(range(config.steps), loader):
            if (out := model(x)) is not None:
                loss = torch.nn.functional.mse_loss(out, y)
                total_loss += loss
            match step:
                case 0 | 1:
                    continue
                case _:
                    break
    total_loss.backward()
    return [p.grad for p in model.parameters() if p.grad is not None]


async def serve(queue: asyncio.Queue[torch.Tensor]) -> None:
    async for item in aiter_items(queue):
        lambda t=item: t.sum()
    s = "not # a comment", r"raw \\ string", b"bytes", """triple
    # still a string"""
    try:
        pass
    except* ValueError:
        pass
    finally:
        del s


async def aiter_items(queue):
    while not queue.empty():
        yield await queue.get()
'''

SOURCES = [GAN, TBPTT_CLASS, SYNTAX_TOUR] + [p.read_text(encoding="utf-8") for p in SAMPLES]
JUNK = [
    "\x00",
    "\t",
    "\x0c",
    "\\",
    "'",
    '"',
    '"""',
    "#",
    ":",
    "(",
    "]",
    "}",
    "é",
    "\u200b",
    "\ufeff",
    "lambda",
]


def delete_lines(rng: random.Random, source: str) -> str:
    lines = source.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        if lines:
            del lines[rng.randrange(len(lines))]
    return "".join(lines)


def truncate(rng: random.Random, source: str) -> str:
    return source[: rng.randrange(len(source) + 1)]


def reindent(rng: random.Random, source: str) -> str:
    lines = source.splitlines(keepends=True)
    if not lines:
        return source
    i = rng.randrange(len(lines))
    lines[i] = rng.choice(["", " ", "   ", "\t", "        "]) + lines[i].lstrip(" ")
    return "".join(lines)


def insert_junk(rng: random.Random, source: str) -> str:
    at = rng.randrange(len(source) + 1)
    return source[:at] + "".join(rng.choices(JUNK, k=rng.randint(1, 4))) + source[at:]


def unbalance(rng: random.Random, source: str) -> str:
    at = rng.randrange(len(source) + 1)
    return source[:at] + rng.choice("([{)]}") + source[at:]


def swap_lines(rng: random.Random, source: str) -> str:
    lines = source.splitlines(keepends=True)
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


MUTATIONS = [delete_lines, truncate, reindent, insert_junk, unbalance, swap_lines]


def mutants(count: int, seed: int = SEED):
    rng = random.Random(seed)
    for index in range(count):
        source = rng.choice(SOURCES)
        applied = rng.choices(MUTATIONS, k=rng.randint(1, 3))
        for mutation in applied:
            source = mutation(rng, source)
        yield f"#{index} {'+'.join(m.__name__ for m in applied)}", source


def pathological():
    yield "2000 nested parentheses", "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n"
    yield "2000 open parentheses", "x = " + "(" * 2000 + "\n"
    nested = "".join("    " * depth + f"for i{depth} in range(2):\n" for depth in range(60))
    yield "60 nested loops", nested + "    " * 60 + "loss.backward()\n"
    yield "deep attribute chain", "y = x" + ".a" * 5000 + "\n"
    yield "long expression", "loss = " + " + ".join(f"f(x{i})" for i in range(5000)) + "\n"
    lines = []
    while len(lines) < 20_000:
        lines.extend(TBPTT_CLASS.splitlines())
    yield "20k lines", "\n".join(lines) + "\n"


def assert_sane(findings, source: str, path: str, label: str) -> None:
    last_line = source.count("\n") + 1
    for finding in findings:
        start, end = finding.span.start, finding.span.end
        assert finding.path == path, label
        assert 1 <= start.line <= last_line and start.column >= 0, (label, finding)
        assert (start.line, start.column) <= (end.line, end.column), (label, finding)


@pytest.fixture
def internal_errors(caplog):
    caplog.set_level(logging.ERROR, logger="autograd_lint")
    return lambda: [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def test_material_is_there():
    assert len(SOURCES) >= 3
    for source in SOURCES[:3]:
        compile(source, "<inline>", "exec")  # the unmutated inline sources are valid Python


def test_mutated_sources_never_break_check_source(internal_errors):
    for label, source in mutants(300):
        findings = check_source(source, "mutant.py")
        assert_sane(findings, source, "mutant.py", label)
    assert internal_errors() == []


@pytest.mark.parametrize(
    ("label", "source"), [pytest.param(*case, id=case[0]) for case in pathological()]
)
def test_pathological_sources(label, source, internal_errors):
    findings = check_source(source, "big.py")
    assert_sane(findings, source, "big.py", label)
    assert internal_errors() == []


def test_cli_on_a_directory_of_damaged_files(tmp_path, monkeypatch, capsys):
    rng = random.Random(SEED + 1)
    damaged = list(mutants(60, seed=SEED + 2))
    (tmp_path / "damaged").mkdir()
    (tmp_path / "extreme").mkdir()
    for index, (_, source) in enumerate(damaged):
        data = source.encode("utf-8", "surrogatepass")
        if rng.random() < 0.2:  # invalid UTF-8 in the middle
            at = rng.randrange(len(data) + 1)
            junk = rng.choice([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80\x80"])
            data = data[:at] + junk + data[at:]
        (tmp_path / "damaged" / f"m{index:03d}.py").write_bytes(data)
    extreme = list(pathological())
    for index, (_, source) in enumerate(extreme):
        (tmp_path / "extreme" / f"p{index:03d}.py").write_text(source, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)

    # Every format over the damaged files; the slow extreme ones once.
    for fmt in ("text", "json", "sarif", "github"):
        code = main(["check", "--format", fmt, "--no-color", "damaged"])
        out = capsys.readouterr().out
        assert code in (0, 1), fmt
        if fmt == "json":
            assert json.loads(out)["files"] == len(damaged)
        if fmt == "sarif":
            assert json.loads(out)["version"] == "2.1.0"
    code = main(["check", "--format", "json", "."])
    assert code in (0, 1)
    assert json.loads(capsys.readouterr().out)["files"] == len(damaged) + len(extreme)


def test_cli_on_single_damaged_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for index, (label, source) in enumerate(mutants(15, seed=SEED + 3)):
        path = tmp_path / f"one{index}.py"
        path.write_bytes(source.encode("utf-8", "surrogatepass")[:10_000])
        assert main(["check", path.name]) in (0, 1), label
        capsys.readouterr()
