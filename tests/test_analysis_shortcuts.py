"""The analysis's shortcuts for speed (bench/throughput.py) give what the long way gives.

Each shortcut skips or shares work; here the work is done the long way too, over every
sample and corpus file, and the results are compared.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from autograd_lint.analysis import roles
from autograd_lint.analysis.blocks import build_blocks, split_lines
from autograd_lint.analysis.exprs import walk

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "samples").rglob("*.py"), *(ROOT / "tests" / "corpus").rglob("*.py")])

# Shapes the files may lack: names that are strings in a list (global), a dict's `None`
# key (`**rest`), empty lists, nested functions with imports, imports in every form.
SHAPES = """
import torch.nn as nn, os
from torch import optim as opt
from . import sibling
def f(x, *args, **kw):
    global counter
    import numpy as np
    from torch.nn import functional
    d = {**kw, "a": [i for i in range(3) if i], "b": {}}
    class Inner:
        pass
    return lambda: d
"""


def trees() -> list[tuple[str, ast.Module]]:
    found = [("shapes", ast.parse(SHAPES))]
    for path in SOURCES:
        try:
            found.append((path.name, ast.parse(path.read_text(encoding="utf-8"))))
        except SyntaxError:
            continue
    return found


def test_there_are_files_to_compare():
    assert len(SOURCES) > 100


def test_walk_lists_the_nodes_of_ast_walk_in_its_order():
    for name, tree in trees():
        assert walk(tree) == list(ast.walk(tree)), name
        for statement in tree.body:
            assert walk(statement) == list(ast.walk(statement)), name


@pytest.mark.parametrize("source", [SHAPES, *(p.read_text(encoding="utf-8") for p in SOURCES)])
def test_import_aliases_skip_only_blocks_without_an_import(source):
    blocks = [b for b in build_blocks(source, split_lines(source)) if b.error is None]
    walked = {}
    for block in blocks:
        walked.update(roles._block_aliases(block.statements))  # every block walked
    assert roles.import_aliases(blocks) == walked


def test_the_aliases_of_the_shapes_are_found():
    blocks = build_blocks(SHAPES, split_lines(SHAPES))
    aliases = roles.import_aliases(blocks)
    assert aliases["nn"] == "torch.nn" and aliases["opt"] == "torch.optim"
    assert aliases["np"] == "numpy" and aliases["functional"] == "torch.nn.functional"
