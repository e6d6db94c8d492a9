"""A root's parameter taken for the file's class only on structural evidence; records keep
their fields; nn.ModuleList over the file's layers runs their own forward.

The mechanisms behind tests/corpus/layer_state_in_module_list_root_model.py and
memory_fed_back_through_output_record.py (and their clean twins, which torch runs).
Here: what counts as evidence and what does not, on files with neutral names, and the
Python binding rules `accepts` claims, checked by calling real functions.
"""

import ast
import subprocess
from pathlib import Path

import pytest
from autograd_lint.analysis import Role, Severity, analyze
from autograd_lint.analysis.definitions import make_class_info
from autograd_lint.analysis.parameter_classes import accepts, parameter_class
from autograd_lint.analysis.records import record_fields

CORPUS = Path(__file__).parent / "corpus"
CRASH = CORPUS / "layer_state_in_module_list_root_model.py"


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in analyze(text, "t.py")]


# -- accepts: Python's own binding, checked by calling ------------------------------------
SIGNATURES = [
    "def forward(self, a, b): pass",
    "def forward(self, a, b=None): pass",
    "def forward(self, a, *rest): pass",
    "def forward(self, a, *, key): pass",
    "def forward(self, a, *, key=1): pass",
    "def forward(self, a, **extra): pass",
]
CALLS = ["f(1)", "f(1, 2)", "f(1, 2, 3)", "f(a=1, b=2)", "f(1, key=2)", "f(1, other=2)"]


@pytest.mark.parametrize("signature", SIGNATURES)
@pytest.mark.parametrize("call", CALLS)
def test_accepts_agrees_with_python(signature: str, call: str) -> None:
    definition = ast.parse(signature).body[0]
    namespace: dict = {}
    exec(signature, namespace)  # noqa: S102 - our own literal signatures
    bound = namespace["forward"].__get__(object())  # `self` bound, as a module call binds it
    try:
        eval(call, {"f": bound})  # noqa: S307 - our own literal calls
        python_binds = True
    except TypeError:
        python_binds = False
    assert accepts(definition, ast.parse(call).body[0].value) is python_binds


# -- parameter_class: one top module class accepting every call, or nothing ----------------
def classes_of(text: str) -> tuple[dict, ast.FunctionDef]:
    tree = ast.parse(text)
    aliases = {"nn": "torch.nn"}
    classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = make_class_info(node, None)
    for info in classes.values():
        info.link_bases(classes, aliases)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    return classes, function


TWO_CLASSES = """
class Part(nn.Module):
    def forward(self, x): return x

class Whole(nn.Module):
    def __init__(self):
        super().__init__()
        self.part = Part()
    def forward(self, x, y): return x

class Other(nn.Module):
    def forward(self, x, y, z=None): return x

def run(p, q: Whole, r: int):
    p(1, 2)
    p(3, y=4)
"""


def test_the_one_top_class_that_takes_every_call_is_chosen() -> None:
    classes, function = classes_of(TWO_CLASSES.replace("z=None", "z"))
    assert parameter_class(function, function.args.args[0], classes).name == "Whole"


def test_two_top_classes_that_take_the_calls_choose_none() -> None:
    classes, function = classes_of(TWO_CLASSES)  # Other also takes (1, 2) and (3, y=4)
    assert parameter_class(function, function.args.args[0], classes) is None


def test_a_part_of_another_class_is_never_a_root_parameter() -> None:
    text = TWO_CLASSES.replace("p(1, 2)\n    p(3, y=4)", "p(1)")
    classes, function = classes_of(text)  # only Part takes p(1), and Whole builds it
    assert parameter_class(function, function.args.args[0], classes) is None


def test_an_annotation_decides_and_a_foreign_one_stops_the_guess() -> None:
    classes, function = classes_of(TWO_CLASSES)
    q, r = function.args.args[1], function.args.args[2]
    assert parameter_class(function, q, classes).name == "Whole"
    assert parameter_class(function, r, classes) is None


def test_a_parameter_never_called_is_left_alone() -> None:
    classes, function = classes_of(TWO_CLASSES.replace("p(1, 2)\n    p(3, y=4)", "p.train()"))
    assert parameter_class(function, function.args.args[0], classes) is None


# Another top-level model the corpus file's training function could be given.
SECOND_CLASS = (
    "\n\nclass PlainModel(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(6, 1)\n\n"
    "    def forward(self, inputs, target):\n"
    "        return ((self.lin(inputs) - target) ** 2).mean()\n"
)


# -- end to end: the corpus crash, and what takes the evidence away ------------------------
def test_the_layer_state_is_found_through_the_inferred_class() -> None:
    # The corpus file calls `fit` only through a name looked up at run time.
    text = CRASH.read_text()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# expect: AG001" in t)
    assert ("AG001", line) in codes(text)


def test_a_second_class_that_takes_the_call_silences_it() -> None:
    # The same file with another top-level model the training function could be given:
    # which one it gets is a guess, and a guess is no ground for an error.
    text = CRASH.read_text().partition('\nif __name__ == "__main__":')[0]  # `fit` a root
    assert [c for c in codes(text) if c[0] == "AG001"]
    text = text.replace("\n\ndef fit(", SECOND_CLASS + "\n\ndef fit(", 1)
    assert not [c for c in codes(text) if c[0] == "AG001"]


def test_an_editor_adding_and_removing_a_second_class_gets_the_fresh_answer() -> None:
    # The same edits as above, typed into one document: the root `fit` names neither
    # class, so what its key holds of the class its `net` is taken for decides whether the
    # cached answer is reused. A stale one kept the AG001 after the second class came.
    from autograd_lint.analysis.engine import AnalysisCache

    alone = CRASH.read_text().partition('\nif __name__ == "__main__":')[0]
    both = alone.replace("\n\ndef fit(", SECOND_CLASS + "\n\ndef fit(", 1)
    # The one class's summary detached: its forward no longer carries the first graph.
    detached = alone.replace("self.store + key.mean(0)", "self.store.detach() + key.mean(0)")
    cache = AnalysisCache()
    seen = []
    for text in (alone, both, alone, detached, alone):
        cached = [(f.code, f.span.start.line) for f in analyze(text, "t.py", cache=cache)]
        assert cached == codes(text)
        seen.append(any(code == "AG001" for code, _ in cached))
    assert seen == [True, False, True, False, True]


def test_a_keystroke_elsewhere_reuses_the_roots_parameter_classes(monkeypatch) -> None:
    # Every root's key holds its parameters' classes, and working them out matched each
    # call against every module class's forward: a third of a keystroke in a 5,000-line
    # file. While the classes stay as they were, an edit to another function asks no root
    # again; an edit to a class asks every root again.
    from autograd_lint.analysis import engine

    asked = []
    real = engine.parameter_class
    monkeypatch.setattr(
        engine, "parameter_class", lambda *args: asked.append(args[1].arg) or real(*args)
    )
    alone = CRASH.read_text().partition('\nif __name__ == "__main__":')[0]
    helper = "\n\ndef helper(values):\n    return sum(values)\n"
    cache = engine.AnalysisCache()
    analyze(alone, "t.py", cache=cache)
    assert "net" in asked
    asked.clear()
    edited = [(f.code, f.span.start.line) for f in analyze(alone + helper, "t.py", cache=cache)]
    assert asked == [] and edited == codes(alone + helper)
    detached = alone.replace("self.store + key.mean(0)", "self.store.detach() + key.mean(0)")
    edited = [(f.code, f.span.start.line) for f in analyze(detached, "t.py", cache=cache)]
    assert "net" in asked and edited == codes(detached)


def test_a_crash_through_a_class_read_from_calls_is_a_warning_that_names_the_guess() -> None:
    # Nothing in the file passes `net` to `fit`: that it is the file's model class is read
    # from `net(...)`'s calls, a guess, so the crash is a warning whose evidence says so.
    text = CRASH.read_text()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# expect: AG001" in t)
    (found,) = [f for f in analyze(text, "t.py") if (f.code, f.span.start.line) == ("AG001", line)]
    assert found.severity is Severity.WARNING
    fit_line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("def fit("))
    (note,) = [s for s in found.evidence if "is taken to be" in s.message]
    assert note.span.start.line == fit_line and note.role is Role.NOTE
    assert note.message.startswith("`net` is taken to be a `")


def test_the_same_crash_with_the_class_annotated_is_an_error() -> None:
    # `net: <the class>` is the user's own word: no guess, an error, and no guess step.
    text = CRASH.read_text()
    class_name = next(
        n.name
        for n in ast.parse(text).body
        if isinstance(n, ast.ClassDef) and f"{n.name}(" in text.partition("if __name__")[2]
    )
    annotated = text.replace("def fit(net,", f"def fit(net: {class_name},", 1)
    assert annotated != text
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# expect: AG001" in t)
    (found,) = [
        f for f in analyze(annotated, "t.py") if (f.code, f.span.start.line) == ("AG001", line)
    ]
    assert found.severity is Severity.ERROR
    assert not [s for s in found.evidence if "is taken to be" in s.message]


HELPER_CALLED_TWICE = """
import torch
import torch.nn as nn


def step(loss):
    loss.backward()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 1)

    def forward(self, x):
        out = self.lin(x).sum()
        CALL
        return out


def fit(net, x):
    y = net(x)
    w = torch.ones(2, requires_grad=True)
    loss = (w.exp() * 3).sum()
    step(loss)
    step(loss)  # expect: AG002
"""


@pytest.mark.parametrize("call", ["pass", "step(self.lin(x.detach()).sum())"])
def test_a_crash_in_a_helper_the_root_calls_itself_does_not_rest_on_the_guess(call) -> None:
    # `step` also runs inside the guessed `Net.forward`; the second `step(loss)` of `fit`
    # fails whatever `net` is (torch raises there: the next test), so it stays
    # an error and its evidence names no guess.
    text = HELPER_CALLED_TWICE.replace("CALL", call)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# expect: AG002" in t)
    found = [f for f in analyze(text, "t.py") if f.code == "AG002"]
    assert [(f.severity, f.span.start.line) for f in found] == [(Severity.ERROR, 7)]
    assert any(s.span.start.line == line for s in found[0].evidence)
    assert not [s for s in found[0].evidence if "is taken to be" in s.message]


def test_torch_raises_at_the_helpers_second_call(torch_python) -> None:
    text = HELPER_CALLED_TWICE.replace("CALL", "step(self.lin(x.detach()).sum())")
    program = text + "\nfit(Net(), torch.ones(3, 2))\n"
    result = subprocess.run(
        [torch_python, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert "Trying to backward through the graph a second time" in result.stderr
    line = next(i for i, t in enumerate(program.splitlines(), 1) if "# expect: AG002" in t)
    assert f'"<string>", line {line}, in fit' in result.stderr


# -- records --------------------------------------------------------------------------------
def record(text: str):
    tree = ast.parse(text)
    info = make_class_info(tree.body[-1], None)
    info.link_bases({}, {"dataclass": "dataclasses.dataclass", "NamedTuple": "typing.NamedTuple"})
    return info


def test_record_fields_in_declaration_order() -> None:
    assert record_fields(record("@dataclass\nclass R:\n    a: int\n    b: int = 0\n")) == ["a", "b"]
    assert record_fields(record("class R(NamedTuple):\n    a: int\n    b: int\n")) == ["a", "b"]
    # Its own constructor runs as any class's; a plain class is no record.
    own = "@dataclass\nclass R:\n    a: int\n    def __init__(self): pass\n"
    assert record_fields(record(own)) is None
    assert record_fields(record("class R:\n    a: int\n")) is None


def test_a_record_built_by_position_keeps_its_fields() -> None:
    # A NamedTuple built by position hands the history of what it was given back by name.
    text = """
from typing import NamedTuple
import torch

class Pair(NamedTuple):
    first: torch.Tensor
    second: torch.Tensor

w = torch.randn(3, requires_grad=True)
kept = None
for step in range(3):
    y = w.tanh().sum()
    if kept is not None:
        y = y + kept.second
    kept = Pair(y.detach(), y)
    y.backward()  # the second iteration reaches the first's freed graph
"""
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "y.backward()" in t)
    assert ("AG001", line) in codes(text)
    fixed = text.replace("Pair(y.detach(), y)", "Pair(y, y.detach())")
    assert not [c for c in codes(fixed) if c[0] == "AG001"]
    # torch's verdict on both: the crash raises at that backward, the fix runs.
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        exec(compile(text, "crash", "exec"), {})  # noqa: S102 - the text above
    exec(compile(fixed, "fixed", "exec"), {})  # noqa: S102


# Four annotated parameters, two classes, one of them without an __init__: each parameter
# is its own object (the made-up constructor calls that key them stay alive), so the
# Plain ones never take the Keeper's state.
FOUR_ANNOTATED = """import torch
from torch import nn


class Plain(nn.Module):
    def forward(self, x):
        return x * 2


class Keeper(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.mem = torch.zeros(1, 3)

    def forward(self, x):
        self.mem = self.mem + self.lin(x)
        return self.mem


def train(a: Plain, b: Keeper, c: Plain, d: Keeper, batches, opt):
    for x in batches:
        loss = (a(x) + c(x) + a(x)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_each_annotated_parameter_is_its_own_object() -> None:
    assert codes(FOUR_ANNOTATED) == []


def test_the_four_parameters_program_trains_under_torch(torch_python) -> None:
    import subprocess

    program = FOUR_ANNOTATED + (
        "net = Keeper()\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "train(Plain(), net, Plain(), net, [torch.randn(1, 3, requires_grad=True) for _ in range(3)], opt)\n"
    )
    done = subprocess.run([torch_python, "-c", program], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
