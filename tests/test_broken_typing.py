"""Typing into code that does not parse: the editor's cache re-cuts and re-parses only the
block being typed in, and its findings are those of a fresh analysis after every keystroke."""

import random

import pytest
from autograd_lint.analysis import analyze, blocks
from autograd_lint.analysis.engine import AnalysisCache

TRAIN = '''import torch


def train_{n}(model, batches, optimizer):
    """Trains; the docstring holds a line at column 0:
like this one.
"""
    hidden = None
    for x, y in batches:
        out, hidden = model(x, hidden)
        loss = (out - y).pow(2).mean()
        loss.backward()
        optimizer.step()
# a comment between functions


@torch.no_grad()
def evaluate_{n}(model, batches):
    total = 0.0
    for x, y in batches:
        total += (model(x) - y).abs().sum().item()
    return total


TABLE_{n} = {{
    "lr": 0.1,
}}
'''

STATEMENT = "probe = torch.stack([loss.detach().mean(), (loss * 2).sum(dim=0)], dim=0)"


def as_tuples(findings):
    return [
        (f.code, f.span, f.message, [(s.span, s.message) for s in f.evidence]) for f in findings
    ]


def project(count: int, template: str = TRAIN) -> list[str]:
    return "".join(template.format(n=n) for n in range(count)).split("\n")


# Without the docstring's column-0 lines: a broken block above such a function is tried
# merged with its pieces (the string they open might close the bracket left open).
PLAIN = TRAIN.replace("column 0:\nlike this one.\n", "column 4:\n    like this one.\n    ")


def typed_versions(lines: list[str], header: str, before: str):
    """Versions of the file while STATEMENT is typed (and deleted) on a new line above the
    first line starting with `before` after the line `header`."""
    start = lines.index(header)
    anchor = next(i for i in range(start, len(lines)) if lines[i].strip().startswith(before))
    current = [*lines[:anchor], "        ", *lines[anchor:]]
    steps = list(range(len(STATEMENT) + 1)) + list(range(len(STATEMENT), -1, -1))
    for typed in steps:
        current[anchor] = "        " + STATEMENT[:typed]
        yield anchor, "\n".join(current)


def test_typing_a_statement_char_by_char_equals_a_fresh_analysis():
    cache = AnalysisCache()
    lines = project(6)
    analyze("\n".join(lines), "train.py", cache=cache)
    broken = 0
    header = "def train_3(model, batches, optimizer):"
    for _anchor, text in typed_versions(lines, header, "loss ="):
        incremental = analyze(text, "train.py", cache=cache)
        assert as_tuples(incremental) == as_tuples(analyze(text, "train.py"))
        broken += any(f.code == "AG000" for f in incremental)
    assert broken > len(STATEMENT)  # most versions do not parse
    # the other five training loops keep their AG001 in every version
    assert sum(f.code == "AG001" for f in incremental) == 6


def test_a_keystroke_in_broken_code_parses_only_the_block_typed_in(monkeypatch):
    cache = AnalysisCache()
    lines = project(8, PLAIN)
    versions = list(typed_versions(lines, "def evaluate_4(model, batches):", "total +="))
    analyze("\n".join(lines), "train.py", cache=cache)
    for _anchor, text in versions[18:21]:  # the function is broken already
        analyze(text, "train.py", cache=cache)
    anchor, text = versions[21]
    parsed: list[str] = []
    real = blocks.parse

    def counting_parse(source: str):
        parsed.append(source)
        return real(source)

    monkeypatch.setattr(blocks, "parse", counting_parse)
    findings = analyze(text, "train.py", cache=cache)
    assert [f.span.start.line for f in findings if f.code == "AG000"] == [anchor + 1]
    # evaluate_4 (broken) and the block above it (train_4: an indented line typed below a
    # block may belong to it); no other function, and never the rest of the file
    assert parsed, "the edited block is parsed again"
    others = [f"def {name}_{n}(" for name in ("train", "evaluate") for n in range(8)]
    others.remove("def train_4(")
    others.remove("def evaluate_4(")
    for source in parsed:
        assert not any(other in source for other in others), source
        assert source.count("\n") < 40


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_that_break_and_mend_code_equal_a_fresh_analysis(seed):
    rng = random.Random(seed)
    cache = AnalysisCache()
    lines = project(4)
    snippets = [
        "(", ")", "[", "]", '"""', "'''", "\\", ":", " ", "x = (", "@torch.no_grad()",
        "def broken(:", "    y = [1,", "else:", "# note", "", "    return", "))",
    ]  # fmt: skip
    for _ in range(60):
        index = rng.randrange(len(lines))
        action = rng.choice(["insert line", "append", "delete line"])
        if action == "insert line":
            lines.insert(index, rng.choice(snippets))
        elif action == "append":
            lines[index] += rng.choice(snippets)
        elif len(lines) > 10:
            del lines[index]
        text = "\n".join(lines)
        assert as_tuples(analyze(text, "train.py", cache=cache)) == as_tuples(
            analyze(text, "train.py")
        )


def test_a_keystroke_in_a_block_that_stays_broken_analyses_nothing_again():
    cache = AnalysisCache()
    lines = project(6)
    versions = list(typed_versions(lines, "def train_2(model, batches, optimizer):", "loss ="))
    analyze(versions[25][1], "train.py", cache=cache)
    before = dict(cache.stats)
    findings = analyze(versions[26][1], "train.py", cache=cache)
    assert cache.stats["analyses_reused"] == before["analyses_reused"] + 1
    assert cache.stats["roots_run"] == before["roots_run"]
    assert as_tuples(findings) == as_tuples(analyze(versions[26][1], "train.py"))
    # a line added above moves every block below: their findings are rendered again
    shifted = "# header\n" + versions[27][1]
    moved = analyze(shifted, "train.py", cache=cache)
    assert cache.stats["analyses_reused"] == before["analyses_reused"] + 1
    assert as_tuples(moved) == as_tuples(analyze(shifted, "train.py"))


class _Summary:
    """What a resolver gives for an imported module of the project: its key and names."""

    def __init__(self, key):
        self.key = key

    def lookup(self, name):
        return None


def test_a_stays_broken_keystroke_builds_no_program_and_still_sees_an_import_change(
    monkeypatch,
):
    from autograd_lint.analysis import engine

    built = []
    real_program = engine.Program

    def counting_program(*args, **kwargs):
        built.append(args[0])
        return real_program(*args, **kwargs)

    monkeypatch.setattr(engine, "Program", counting_program)
    version = {"models": 1}

    def resolver(module, level, path):
        return _Summary(("models", version["models"])) if module == "models" else None

    cache = AnalysisCache()
    lines = ["from models import Net", *project(6)]
    versions = list(typed_versions(lines, "def train_2(model, batches, optimizer):", "loss ="))
    analyze(versions[25][1], "train.py", cache=cache, resolver=resolver)
    fresh = as_tuples(analyze(versions[26][1], "train.py", resolver=resolver))
    before, programs = dict(cache.stats), len(built)
    findings = analyze(versions[26][1], "train.py", cache=cache, resolver=resolver)
    assert cache.stats["analyses_reused"] == before["analyses_reused"] + 1
    assert len(built) == programs  # the imports' key alone decided it
    assert as_tuples(findings) == fresh
    # models.py changed while the block stayed broken: analysed again, not reused
    version["models"] = 2
    analyze(versions[27][1], "train.py", cache=cache, resolver=resolver)
    assert cache.stats["analyses_reused"] == before["analyses_reused"] + 1
    assert len(built) == programs + 1
    analyze(versions[28][1], "train.py", cache=cache, resolver=resolver)  # and then reused
    assert cache.stats["analyses_reused"] == before["analyses_reused"] + 2
