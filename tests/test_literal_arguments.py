"""Branches a literal argument decides, and `x.requires_grad = True` making a leaf.

Both are what the legacy Lightning multi-optimizer loop needs (a hook called with
`optimizer_idx` 0, then 1; a batch made to require grad for an R1 penalty), and both are
plain Python/torch facts: each program below is analysed and run, and the analysis must
agree with torch.
"""

import ast

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.analysis.literal_arguments import decided_by_literal, literal_arguments

STEP = """
import torch

w = torch.randn(3, requires_grad=True)


def step(loss, mode, *, scale=1):
    if mode == "train":
        loss.backward()


for _ in range(2):
    loss = w.tanh().sum()
    step(loss, MODE)
    loss.backward()
"""

LEAF = """
import torch

net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(4, 3)
x.requires_grad = FLAG
out = net(x).sum()
out.backward(retain_graph=True)
opt.step()
out.backward()
"""


def verdicts(text: str) -> tuple[set, str | None]:
    """(the codes reported, torch's error text or None) for one program."""
    reported = {f.code for f in analyze(text, "t.py") if f.code in ("AG001", "AG002", "AG007")}
    try:
        exec(compile(text, "program", "exec"), {})  # noqa: S102 - our own programs
    except RuntimeError as error:
        return reported, str(error)
    return reported, None


@pytest.mark.parametrize(
    ("mode", "expected"),
    [('"eval"', set()), ('"train"', {"AG002"}), ("None", set())],
)
def test_a_literal_argument_decides_the_branch(mode: str, expected: set) -> None:
    reported, error = verdicts(STEP.replace("MODE", mode))
    assert reported == expected
    assert (error is not None) == bool(expected)
    assert error is None or "backward through the graph a second time" in error


def test_a_reassigned_parameter_decides_nothing() -> None:
    text = STEP.replace(
        '    if mode == "train":', '    mode = mode or "train"\n    if mode == "train":'
    )
    tree = ast.parse(text)
    definition = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    call = ast.parse('step(loss, "eval")').body[0].value
    assert literal_arguments(definition, call, bound_self=False) == {}
    untouched = next(n for n in ast.parse(STEP).body if isinstance(n, ast.FunctionDef))
    literals = literal_arguments(untouched, call, bound_self=False)
    assert literals == {"mode": "eval"}


@pytest.mark.parametrize(
    ("test", "literals", "expected"),
    [
        ("mode == 'train'", {"mode": "train"}, True),
        ("'train' != mode", {"mode": "train"}, False),
        ("index is None", {"index": None}, True),
        ("index is not None", {"index": 0}, True),
        ("index == 0", {"other": 0}, None),  # not a literal-bound parameter
        ("index < 1", {"index": 0}, None),  # only equality and identity
        ("index == limit", {"index": 0}, None),  # a name, not a constant
        ("0 == index == 0", {"index": 0}, None),  # chained
    ],
)
def test_decided_by_literal(test: str, literals: dict, expected) -> None:
    node = ast.parse(test, mode="eval").body
    assert decided_by_literal(node, literals) is expected
    if expected is not None:
        assert eval(test, {}, dict(literals)) is expected  # noqa: S307 - Python agrees


def test_keywords_and_bound_self() -> None:
    definition = ast.parse("def hook(self, epoch, index, *, flag=False): pass").body[0]
    call = ast.parse("module.hook(0, 1, flag=True)").body[0].value
    assert literal_arguments(definition, call, bound_self=True) == {
        "epoch": 0,
        "index": 1,
        "flag": True,
    }


@pytest.mark.parametrize(("flag", "expected"), [("True", {"AG007"}), ("False", set())])
def test_requires_grad_true_makes_a_leaf_whose_layer_saves_weights(flag: str, expected: set):
    # A layer over an input that requires grad saves its weight for that input's gradient;
    # the step changes the weight, so the retained graph's second backward raises.
    reported, error = verdicts(LEAF.replace("FLAG", flag))
    assert reported == expected
    assert (error is not None) == bool(expected)
    assert error is None or "modified by an inplace operation" in error


ANCHORED = """
import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Anchored(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        self.anchor = None

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.body(x), y)
        if batch_idx == 0:
            self.anchor = loss
        return loss + 0.1 * self.anchor


if __name__ == "__main__":
    data = TensorDataset(torch.randn(12, 3), torch.randn(12, 1))
    trainer = L.Trainer(max_epochs=1, limit_train_batches=3, logger=False,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
        accelerator="cpu")
    trainer.fit(Anchored(), DataLoader(data, batch_size=4))
"""


def test_a_framework_driver_batch_decides_no_batch_index_branch(torch_python) -> None:
    # Lightning's driver stands for every batch: `if batch_idx == 0:` must stay undecided,
    # so the loss kept from the first batch is carried into the second (Lightning raises).
    import subprocess

    done = subprocess.run(
        [torch_python, "-c", ANCHORED], capture_output=True, text=True, timeout=300
    )
    assert "backward through the graph a second time" in done.stderr
    line = next(n for n, t in enumerate(ANCHORED.splitlines(), 1) if "0.1 * self.anchor" in t)
    assert ("AG001", line) in [(f.code, f.span.start.line) for f in analyze(ANCHORED, "t.py")]
