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


# One local name imported in every kind of statement body: the first in walk's order wins.
NESTED_IMPORTS = """
class Holder:
    def load(self, x, paths):
        try:
            import numpy as np
        except ImportError:
            import jax.numpy as np
        else:
            from torch import nn
        finally:
            import torch.nn as nn
        with open(paths[0]) as handle:
            from array import array as np
        match x:
            case 1:
                import cupy as np
        for path in paths:
            if path:
                import a.b as np
            else:
                from c import d as nn
        return handle
"""


def test_the_statements_under_a_statement_are_walks_statements_in_its_order():
    for name, tree in [("nested imports", ast.parse(NESTED_IMPORTS)), *trees()]:
        for statement in tree.body:
            expected = [n for n in walk(statement) if isinstance(n, roles.STATEMENT_HOLDERS)]
            assert roles._statements_under(statement) == expected, name


def test_nested_imports_give_the_aliases_a_walk_of_every_node_gives():
    statements = ast.parse(NESTED_IMPORTS).body
    walked: dict[str, str] = {}
    for node in walk(statements[0]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                walked.setdefault(local, alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                walked.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")
    assert roles._block_aliases(statements) == walked
    assert list(walked.items())[:2] == [("np", "numpy"), ("nn", "torch.nn")]


def test_the_aliases_of_the_shapes_are_found():
    blocks = build_blocks(SHAPES, split_lines(SHAPES))
    aliases = roles.import_aliases(blocks)
    assert aliases["nn"] == "torch.nn" and aliases["opt"] == "torch.optim"
    assert aliases["np"] == "numpy" and aliases["functional"] == "torch.nn.functional"


def evidence_fields(evidence: roles.ScopeEvidence) -> dict:
    fields = {name: getattr(evidence, name) for name in roles.ScopeEvidence.__slots__}
    # What each recorded call's arguments may hold, worked out from the final sources.
    fields["call_args"] = [
        (callee, method, ast.dump(call), {path: set(found) for path, found in tainted.items()})
        for callee, method, call, tainted in evidence.call_args
    ]
    return fields


def scopes_of(tree: ast.Module) -> list[tuple[list, tuple]]:
    """Every function body (with its parameters), every class's methods together, and
    the module's code: the scopes evidence is computed over."""
    found = [([s for s in tree.body if not isinstance(s, ast.ClassDef)], ())]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node.body, tuple(a.arg for a in node.args.args)))
        elif isinstance(node, ast.ClassDef):
            found.append(([s for s in node.body if isinstance(s, ast.FunctionDef)], ()))
    return found


def test_scope_evidence_skips_only_flows_a_second_round_would_not_change(monkeypatch):
    """The second round of flows works out again only those that read a path whose
    sources grew after they read it; the long way works out every flow twice."""
    short = [
        evidence_fields(roles.ScopeEvidence(statements, params))
        for _, tree in trees()
        for statements, params in scopes_of(tree)
    ]
    real_flow = roles.ScopeEvidence._flow

    def always_again(self, node, tainted, versions):
        read = real_flow(self, node, tainted, versions)
        return None if read is None else [("", -1)]  # never up to date: always redone

    monkeypatch.setattr(roles.ScopeEvidence, "_flow", always_again)
    long = [
        evidence_fields(roles.ScopeEvidence(statements, params))
        for _, tree in trees()
        for statements, params in scopes_of(tree)
    ]
    assert len(short) > 300
    assert short == long
    # A flow that reads what a later one assigns (a loop): the second round is still
    # done for it, and a backward of `y` back-propagates `model` through `x`.
    loop = "for batch in data:\n    y = h(x)\n    x = model(batch)\n    y.backward()\n"
    monkeypatch.undo()
    assert "model" in roles.ScopeEvidence(ast.parse(loop).body).backpropagated
