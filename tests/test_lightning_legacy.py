"""Lightning before 1.1 with several optimizers, modelled by lightning_legacy.py.

That Lightning is not installable beside torch 2.13, so the corpus pair's classes run
through `legacy_fit` below: what pytorch-lightning 0.8.5's training_loop.py does per batch
(`run_training_batch`: for each optimizer, only its parameters require grad (617-622),
`training_step(batch, batch_idx, opt_idx)` because the step has an `optimizer_idx`
parameter (912), the backward of its "loss" (817), then `model.optimizer_step(epoch,
batch_idx, optimizer, opt_idx, closure, using_native_amp=...)` (749) and the zero_grad
after it). torch's verdict on each class is compared with the analysis's.
"""

import ast
import traceback
from pathlib import Path

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.analysis.definitions import make_class_info
from autograd_lint.analysis.lightning_legacy import optimizer_count, takes_optimizer_index

CORPUS = Path(__file__).parent / "corpus"
CRASH = CORPUS / "legacy_lightning_penalty_after_step.py"
CLEAN = CORPUS / "clean_legacy_lightning_penalty_before_step.py"

LEGACY_FIT = """

def legacy_fit(module, batches):
    optimizers, schedulers = module.configure_optimizers(), []
    if isinstance(optimizers, tuple) and len(optimizers) == 2:  # init_optimizers' pair
        optimizers, schedulers = optimizers
    for batch_idx, batch in enumerate(batches):
        for opt_idx, optimizer in enumerate(optimizers):
            if len(optimizers) > 1:
                for param in module.parameters():
                    param.requires_grad = False
                for group in optimizer.param_groups:
                    for param in group["params"]:
                        param.requires_grad = True
            output = module.training_step(batch.clone(), batch_idx, opt_idx)
            output["loss"].backward()
            module.optimizer_step(0, batch_idx, optimizer, opt_idx, lambda: None,
                                  using_native_amp=False)
            optimizer.zero_grad()
    for scheduler in schedulers:
        scheduler.step()


torch.manual_seed(0)
legacy_fit(PenalizedPair(), [torch.randn(8, 6) for _ in range(3)])
"""


def torch_verdict(path: Path) -> int | None:
    """The line of `path` the reproduced loop raises at (its innermost frame there)."""
    text = path.read_text()
    try:
        exec(compile(text + LEGACY_FIT, str(path), "exec"), {"__name__": "legacy"})  # noqa: S102
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
        return frames[-1].lineno
    return None


def test_the_penalty_after_the_step_raises_where_the_analysis_says() -> None:
    failing = torch_verdict(CRASH)
    (finding,) = [f for f in analyze(CRASH.read_text(), str(CRASH)) if f.code == "AG007"]
    fails = [s.span.start.line for s in finding.evidence if s.role.name == "FAILS"]
    assert failing is not None and fails == [failing]
    assert "training_loop.py" in " ".join(s.message for s in finding.evidence)


def test_the_penalty_before_the_step_runs_and_is_silent() -> None:
    assert torch_verdict(CLEAN) is None
    assert not [f for f in analyze(CLEAN.read_text(), str(CLEAN)) if f.code.startswith("AG00")]


def classes(text: str):
    node = ast.parse(text).body[0]
    return make_class_info(node, None)


@pytest.mark.parametrize(
    ("returned", "count"),
    [
        ("[a, b]", 2),
        ("(a,)", 1),
        ("[a, b, c], [sched]", 3),
        ("a", None),  # one optimizer, not a list: not the several-optimizer loop's shape
        ("[*optimizers]", None),
    ],
)
def test_optimizer_count(returned: str, count) -> None:
    info = classes(f"class M:\n    def configure_optimizers(self):\n        return {returned}\n")
    assert optimizer_count(info) == count


def test_only_a_step_with_the_parameter_lightning_looks_for() -> None:
    with_index = classes(
        "class M:\n    def training_step(self, batch, batch_idx, optimizer_idx): pass\n"
    )
    without = classes("class M:\n    def training_step(self, batch, batch_idx, opt): pass\n")
    assert takes_optimizer_index(with_index.methods["training_step"])
    assert not takes_optimizer_index(without.methods["training_step"])
