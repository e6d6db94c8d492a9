"""The neutral renamer of bench/neutral_names.py (issue 12's name-independence measurement).

These pin what the renamer does, never what the analyzer finds: the renamed file is valid
Python with the same lines and tokens, imports, builtins and foreign attributes stay,
renaming is one-to-one across the file, and renamed samples run the same under torch.
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

sys.path.insert(0, str(ROOT / "tests" / "realworld"))

from neutral_renamer import rename_source  # noqa: E402
from yardstick import load_manifest  # noqa: E402

# The yardstick by its manifest (every case's entry, its project's modules, its runnable
# completion), so that no case's files fall out of the check however they are laid out.
FILES = sorted(
    {path for folder in ("samples", "tests/corpus") for path in (ROOT / folder).glob("*.py")}
    | {path for case in load_manifest() for path in (*case.files, case.runnable_path)}
)


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False
    return True


def _shown(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def _literal_parts(text: str) -> list:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.JoinedStr)
    return [part.value for part in node.values if isinstance(part, ast.Constant)]


def renamed(code: str) -> str:
    return rename_source(textwrap.dedent(code)).text


@pytest.mark.parametrize("path", [p for p in FILES if _parses(p)], ids=lambda p: _shown(p))
def test_renamed_file_compiles_with_the_same_tokens_on_the_same_lines(path):
    source = path.read_text(encoding="utf-8")
    result = rename_source(source)
    compile(result.text, str(path), "exec")
    before, after = _tokens(source), _tokens(result.text)
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        assert (old.type, old.start[0], old.end[0]) == (new.type, new.start[0], new.end[0])
        if old.string == new.string:
            continue
        if old.type == tokenize.STRING:  # an f-string (one token before 3.12): same text parts
            assert _literal_parts(old.string) == _literal_parts(new.string), (old, new)
        else:  # otherwise only names change, each to its neutral name
            assert old.type == tokenize.NAME, (old, new)
            assert result.mapping[old.string] == new.string, (old, new)


def test_renaming_is_one_to_one_and_fresh():
    source = textwrap.dedent("""\
        v1 = 3
        def train(model, steps):
            for step in range(steps):
                model = model + step
            return model
        model = train(v1, steps=2)
    """)
    result = rename_source(source)
    assert set(result.mapping) == {"v1", "train", "model", "steps", "step"}
    assert len(set(result.mapping.values())) == len(result.mapping)
    assert "v1" not in result.mapping.values()  # a neutral name never captures an existing one
    namespace: dict = {}
    exec(result.text, namespace)
    assert namespace[result.mapping["model"]] == 4


def test_imports_builtins_dunders_and_undefined_names_stay():
    text = renamed("""\
        import torch
        from torch import nn as tnn
        def run(data):
            total = sum(len(x) for x in data)
            print(__name__, total, undefined_model)
            return torch.zeros(total), tnn.Linear
    """)
    for kept in ("import torch", "tnn.Linear", "sum(len(", "print(__name__", "undefined_model"):
        assert kept in text
    assert "def run" not in text and "data" not in text and "total" not in text


def test_a_builtin_shadowed_everywhere_it_is_read_is_renamed_else_kept():
    text = renamed("""\
        def forward(input):
            return input * 2
        def count(items):
            sum = 0
            return sum + len(items)
        print(sum([1]))
    """)
    assert "input" not in text  # only ever the parameter
    assert "sum = 0" in text and "print(sum([1]))" in text  # also read as the builtin


def test_foreign_attributes_and_keywords_stay_own_ones_are_renamed():
    text = renamed("""\
        import torch
        class Net(torch.nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = torch.nn.Linear(width, width, bias=False)
                self.hidden = None
            def forward(self, x):
                return self.fc(x) + self.fc.weight.sum()
            def reset_hidden(self, batch):
                self.hidden = torch.zeros(batch, requires_grad=True)
        def make(width):
            return Net(width=width)
        net = make(width=3)
        net.reset_hidden(batch=2)
        net.zero_grad()
        loss = net(torch.ones(3)).sum()
        loss.backward(retain_graph=False)
    """)
    for kept in (
        "def __init__(self",
        "def forward(self",
        "super().__init__()",
        ".weight.sum()",
        "bias=False",
        "requires_grad=True",
        ".zero_grad()",
        ".backward(retain_graph",
    ):
        assert kept in text  # fmt: skip
    for gone in ("hidden", "reset_hidden", "width", "batch", "Net", "make", ".fc"):
        assert gone not in text
    exec(text, {})


def test_the_receiver_stays_unless_asked():
    code = """\
        class Counter:
            def __init__(self):
                self.count = 0
            def bump(self):
                self.count += 1
                return self.count
        print(Counter().bump())
    """
    assert "self.v" in renamed(code)
    text = rename_source(textwrap.dedent(code), rename_self=True).text
    assert "self" not in text
    exec(text, {"print": lambda value: None})


def test_protocol_of_an_unresolved_imported_base_stays():
    text = renamed("""\
        import lightning as L
        class Model(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False
                self.depth = 2
            def training_step(self, batch, batch_idx):
                return self.helper(batch) * self.depth
            def helper(self, batch):
                return batch
    """)
    for kept in ("automatic_optimization", "def training_step", "def helper", "self.helper"):
        assert kept in text
    assert "depth" not in text  # set and read by the file itself: its own


def test_names_spelled_in_strings_stay_when_the_file_looks_them_up():
    text = renamed("""\
        import torch
        class Stats(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("running", torch.zeros(1))
            def update(self, x):
                self.running = self.running * 0.9 + x
        for step in range(3):
            if "prev" in locals():
                pass
            prev = step
    """)
    assert "self.running" in text and "prev = " in text


RUN_SAMPLES = [
    "samples/ag001_rnn_hidden_buggy.py",
    "samples/ag001_rnn_hidden_fixed.py",
    "samples/ag001_module_state_buggy.py",
    "samples/ag002_gan_fake_buggy.py",
    "samples/ag002_gan_fake_fixed.py",
]


def test_renamed_samples_run_the_same_under_torch():
    command = [sys.executable, "bench/neutral_names.py", "--check-runs", *RUN_SAMPLES]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(RUN_SAMPLES)} of {len(RUN_SAMPLES)} renamed files behave the same" in done.stdout
