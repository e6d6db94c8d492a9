"""Ground truth for AG005-AG007: the samples and rule examples, run with torch.

- AG007: a buggy sample raises "modified by an inplace operation" from the backward
  the finding names (its FAILS step), and the finding sits on the marked in-place line;
  the fixed twin runs cleanly.
- AG005: silent bugs, so the runner watches every optimizer step through torch's
  global step hooks: with zero_grad() between backward and step the parameters never
  change; without any clearing (or with the wrong optimizer cleared) the gradient the
  step sees keeps growing; the fixed twins learn normally.
- AG006: a write through `.data` is invisible to the version counter (the backward runs
  and returns a wrong gradient), while the same write without `.data` raises.

Run as a script (`python tests/test_checks_runtime.py OUT.json SAMPLE...`) this module
is the runner: one interpreter imports torch once and runs every sample.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from expectations import expected_marks

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("ag00[567]_*.py"))
MODIFIED = "modified by an inplace operation"
RUNNER_TIMEOUT_S = 300


# -- the runner (a separate interpreter) ---------------------------------------------------
def _norm(tensors) -> float:
    return float(sum(float(t.detach().double().pow(2).sum()) for t in tensors) ** 0.5)


def run_one(path: Path) -> dict:
    from torch.optim.optimizer import (
        register_optimizer_step_post_hook,
        register_optimizer_step_pre_hook,
    )

    steps: list[dict] = []
    order: dict[int, int] = {}
    before: dict[int, list] = {}

    def params(optimizer):
        return [p for group in optimizer.param_groups for p in group["params"]]

    def pre(optimizer, args, kwargs):
        index = order.setdefault(id(optimizer), len(order))
        grads = [p.grad for p in params(optimizer) if p.grad is not None]
        before[id(optimizer)] = [p.detach().clone() for p in params(optimizer)]
        steps.append({"optimizer": index, "grad_norm": _norm(grads), "grads": len(grads)})

    def post(optimizer, args, kwargs):
        old = before.pop(id(optimizer))
        change = _norm([p.detach() - o for p, o in zip(params(optimizer), old, strict=True)])
        steps[-1]["change"] = change

    handles = [register_optimizer_step_pre_hook(pre), register_optimizer_step_post_hook(post)]
    out = io.StringIO()
    result = {"path": str(path), "error": None, "line": None, "steps": steps}
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(path), run_name="__main__")
    except Exception as error:  # noqa: BLE001 - the error is the result
        result["error"] = f"{type(error).__name__}: {error}"
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
        result["line"] = frames[-1].lineno if frames else None
    finally:
        for handle in handles:
            handle.remove()
    result["stdout"] = out.getvalue()
    return result


def main(argv: list[str]) -> int:
    out_path, *paths = argv
    results = [run_one(Path(p).resolve()) for p in paths]
    Path(out_path).write_text(json.dumps(results), encoding="utf-8")
    return 0


# -- the tests -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs(tmp_path_factory, torch_python) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("checks_runtime") / "runs.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run(
        [torch_python, __file__, str(out), *map(str, SAMPLES)],
        check=True,
        timeout=RUNNER_TIMEOUT_S,
        env=env,
        cwd=ROOT,
    )
    return {Path(r["path"]).name: r for r in json.loads(out.read_text(encoding="utf-8"))}


def findings_of(path: Path, code: str):
    from autograd_lint.analysis import analyze

    return [f for f in analyze(path.read_text(), str(path)) if f.code == code]


def test_every_rule_has_a_buggy_and_fixed_sample():
    names = {path.name for path in SAMPLES}
    for code in ("005", "006", "007"):
        buggy = [n for n in names if n.startswith(f"ag{code}_") and n.endswith("_buggy.py")]
        assert buggy, code
        assert all(n.replace("_buggy", "_fixed") in names for n in buggy)


AG007_BUGGY = [p for p in SAMPLES if p.name.startswith("ag007_") and "_buggy" in p.name]


@pytest.mark.parametrize("sample", AG007_BUGGY, ids=lambda p: p.name)
def test_ag007_buggy_raises_from_the_backward_the_finding_names(sample, runs):
    run = runs[sample.name]
    assert run["error"] and MODIFIED in run["error"], run
    (finding,) = findings_of(sample, "AG007")
    assert [(finding.span.start.line, "AG007")] == expected_marks(sample.read_text())
    fails = [step.span.start.line for step in finding.evidence if step.role.value == "fails"]
    assert fails == [run["line"]], (fails, run["line"])
    fixed = runs[sample.name.replace("_buggy", "_fixed")]
    assert fixed["error"] is None, fixed["error"]


@pytest.mark.parametrize("sample", [p for p in SAMPLES if p.name.startswith(("ag005", "ag006"))],
                         ids=lambda p: p.name)  # fmt: skip
def test_ag005_and_ag006_samples_are_silent(sample, runs):
    assert runs[sample.name]["error"] is None, runs[sample.name]["error"]


def test_zero_grad_between_backward_and_step_freezes_the_parameters(runs):
    buggy = runs["ag005_zero_grad_after_backward_buggy.py"]["steps"]
    fixed = runs["ag005_zero_grad_after_backward_fixed.py"]["steps"]
    assert buggy and len(buggy) == len(fixed)
    assert all(step["grads"] == 0 and step["change"] == 0.0 for step in buggy), buggy
    assert all(step["grads"] > 0 and step["change"] > 0.0 for step in fixed), fixed


def growth(steps: list[dict], optimizer: int = 0) -> float:
    norms = [step["grad_norm"] for step in steps if step["optimizer"] == optimizer]
    return norms[-1] / norms[0]


def test_gradients_never_cleared_keep_growing(runs):
    buggy = runs["ag005_never_cleared_buggy.py"]["steps"]
    fixed = runs["ag005_never_cleared_fixed.py"]["steps"]
    norms = [step["grad_norm"] for step in buggy]
    assert all(later > earlier for earlier, later in zip(norms, norms[1:])), norms
    assert growth(buggy) > 3 * growth(fixed), (buggy, fixed)


def test_the_optimizer_never_cleared_accumulates(runs):
    # The discriminator's optimizer steps first in each iteration: optimizer 0.
    buggy = runs["ag005_gan_wrong_optimizer_buggy.py"]["steps"]
    fixed = runs["ag005_gan_wrong_optimizer_fixed.py"]["steps"]
    assert growth(buggy, 0) > 3 * growth(fixed, 0), (buggy, fixed)


def test_manual_sgd_through_data_and_under_no_grad_compute_the_same(runs):
    buggy = runs["ag006_manual_sgd_buggy.py"]["stdout"]
    fixed = runs["ag006_manual_sgd_fixed.py"]["stdout"]
    assert buggy and buggy == fixed


DATA_WRITE_AND_NO_GRAD_WRITE = """
import torch

a = torch.rand(3, requires_grad=True)
y = torch.exp(a)
y.data.mul_(2)
y.sum().backward()

b = torch.rand(3, requires_grad=True)
z = torch.exp(b)
with torch.no_grad():
    z.mul_(2)
z.sum().backward()
"""


def test_a_write_through_data_is_invisible_to_autograd():
    import torch
    from autograd_lint.analysis import analyze

    # What the rules say about the two writes below: AG006 for the one autograd cannot
    # see, AG007 for the one it sees and raises on.
    found = [(f.code, f.span.start.line) for f in analyze(DATA_WRITE_AND_NO_GRAD_WRITE, "x.py")]
    assert found == [("AG006", 6), ("AG007", 12)]

    a = torch.rand(3, requires_grad=True)
    y = torch.exp(a)  # saves its result
    version = y._version
    y.data.mul_(2)
    assert y._version == version
    y.sum().backward()  # no error: runs on the modified result
    assert not torch.allclose(a.grad, torch.exp(a.detach()))  # and the gradient is wrong
    assert torch.allclose(a.grad, 2 * torch.exp(a.detach()))

    b = torch.rand(3, requires_grad=True)
    z = torch.exp(b)
    version = z._version
    with torch.no_grad():
        z.mul_(2)
    assert z._version > version
    with pytest.raises(RuntimeError, match=MODIFIED):
        z.sum().backward()


def rule_examples():
    from autograd_lint.rules import RULE_MODULES

    for code in ("AG005", "AG006", "AG007"):
        module = RULE_MODULES[code]
        for kind in ("VALID", "INVALID"):
            for index, source in enumerate(getattr(module, kind)):
                yield pytest.param(code, kind, source, id=f"{code}-{kind.lower()}-{index}")


EXAMPLE = "<example>"


class Watch:
    """Runs a rule example and records what AG005 and AG006 are about.

    Every optimizer built while it runs is recorded (through Optimizer.__init__), every
    backward counts, per parameter, the backward passes whose gradient `.grad` holds
    since it was last cleared (None or zeros), and every `step()` records that count and
    how far the parameters moved. Every `.data` read in the example's own code records
    the tensor it came from, its version counter and its values at that moment.
    """

    def __init__(self, monkeypatch):
        import torch
        from torch.optim.optimizer import (
            register_optimizer_step_post_hook,
            register_optimizer_step_pre_hook,
        )

        self.optimizers: list = []
        self.steps: list[dict] = []
        self.data_reads: list[tuple] = []
        self.contributions: dict[int, int] = {}
        watch = self
        init = torch.optim.Optimizer.__init__

        def recording_init(optimizer, *args, **kwargs):
            init(optimizer, *args, **kwargs)
            watch.optimizers.append(optimizer)

        backward = torch.Tensor.backward

        def counting_backward(tensor, *args, **kwargs):
            params = [p for opt in watch.optimizers for p in watch.params(opt)]
            for p in params:
                if p.grad is None or not p.grad.any():
                    watch.contributions[id(p)] = 0  # cleared since the last backward
            before = {id(p): None if p.grad is None else p.grad.clone() for p in params}
            backward(tensor, *args, **kwargs)
            for p in params:
                old = before[id(p)]
                if p.grad is not None and (old is None or not torch.equal(old, p.grad)):
                    watch.contributions[id(p)] = watch.contributions.get(id(p), 0) + 1

        base_data = torch._C.TensorBase.data

        def recording_data(tensor):
            import sys

            data = base_data.__get__(tensor)
            caller = sys._getframe(1)
            if caller.f_code.co_filename == EXAMPLE:
                watch.data_reads.append((tensor, data, tensor._version, data.clone()))
            return data

        def recording_data_set(tensor, value):
            base_data.__set__(tensor, value)

        self.before: dict[int, list] = {}

        def pre(optimizer, args, kwargs):
            params = watch.params(optimizer)
            counts = [watch.contributions.get(id(p), 0) for p in params if p.grad is not None]
            watch.before[id(optimizer)] = [p.detach().clone() for p in params]
            watch.steps.append(
                {"optimizer": watch.optimizers.index(optimizer), "backwards": max(counts or [0])}
            )

        def post(optimizer, args, kwargs):
            old = watch.before.pop(id(optimizer))
            moved = any(not torch.equal(p, o) for p, o in zip(watch.params(optimizer), old))
            watch.steps[-1]["moved"] = moved

        monkeypatch.setattr(torch.optim.Optimizer, "__init__", recording_init)
        monkeypatch.setattr(torch.Tensor, "backward", counting_backward)
        monkeypatch.setattr(torch.Tensor, "data", property(recording_data, recording_data_set))
        self.handles = [
            register_optimizer_step_pre_hook(pre),
            register_optimizer_step_post_hook(post),
        ]

    @staticmethod
    def params(optimizer) -> list:
        return [p for group in optimizer.param_groups for p in group["params"]]

    def run(self, source: str) -> dict:
        """Execute the example; the error it raised (type, message, line) or None."""
        import traceback

        try:
            exec(compile(source, EXAMPLE, "exec"), {"__name__": "__example__"})  # noqa: S102
            return {"error": None, "line": None}
        except Exception as exc:  # noqa: BLE001 - the error is the result
            lines = [
                f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == EXAMPLE
            ]
            return {"error": f"{type(exc).__name__}: {exc}", "line": lines[-1] if lines else None}
        finally:
            for handle in self.handles:
                handle.remove()

    def backwards_per_step(self, optimizer: int) -> list[int]:
        return [s["backwards"] for s in self.steps if s["optimizer"] == optimizer]


@pytest.mark.parametrize(("code", "kind", "source"), list(rule_examples()))
def test_rule_examples_do_what_their_rule_says(code, kind, source, monkeypatch):
    """Each example, run with torch, shows what its rule says about it.

    AG005: in a valid example every step of every optimizer sees the same number of
    backward passes (one, or the accumulation count) and moves its parameters; in an
    invalid one some optimizer's steps see no gradient and never move (cleared before the
    step), or see ever more backward passes summed (never cleared).
    AG006: a write through `.data` changes the tensor without bumping its version counter
    (autograd cannot see it), and a `.data` read is outside that tracking too (an in-place
    change of it leaves the tensor's version as it was, where `.detach()` would not).
    AG007: the invalid example raises the in-place error from the backward its finding
    names as failing; the valid ones run.
    """
    import torch
    from autograd_lint.analysis import analyze

    torch.manual_seed(0)
    watch = Watch(monkeypatch)
    result = watch.run(source)
    monkeypatch.undo()
    if code == "AG007" and kind == "INVALID":
        assert result["error"] and MODIFIED in result["error"], result
        (finding,) = [f for f in analyze(source, "example.py") if f.code == "AG007"]
        fails = [step.span.start.line for step in finding.evidence if step.role.value == "fails"]
        assert fails == [result["line"]], (fails, result)
        return
    assert result["error"] is None, result
    if code == "AG005":
        per_optimizer = [watch.backwards_per_step(i) for i in range(len(watch.optimizers))]
        assert all(len(counts) >= 2 for counts in per_optimizer), per_optimizer
        moved = [
            [s["moved"] for s in watch.steps if s["optimizer"] == i]
            for i in range(len(watch.optimizers))
        ]
        if kind == "VALID":
            assert all(len(set(c)) == 1 and c[0] >= 1 for c in per_optimizer), per_optimizer
            assert all(all(m) for m in moved), moved
        else:
            frozen = [c == [0] * len(c) and not any(m) for c, m in zip(per_optimizer, moved)]
            growing = [all(b > a for a, b in zip(c, c[1:])) for c in per_optimizer]
            assert any(frozen) or any(growing), (per_optimizer, moved)
    if code == "AG006" and kind == "INVALID":
        assert watch.data_reads, "the example reads no .data"
        for owner, data, version, value in watch.data_reads:
            if not torch.equal(data, value):
                # Written through: new values, and the owner's version counter never moved.
                assert owner._version == version, (owner._version, version)
            else:
                data.mul_(1)
                assert owner._version == version  # invisible, where .detach() is not:
                owner.detach().mul_(1)
                assert owner._version > version
    if code == "AG006" and kind == "VALID":
        assert not watch.data_reads


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
