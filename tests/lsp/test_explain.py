"""explain(): the hover story, from the findings on the samples; and the PyTorch behaviour
its retain_graph advice relies on, checked by running torch."""

from __future__ import annotations

import ast
import subprocess
import textwrap
from pathlib import Path

from autograd_lint.analysis import Role, analyze
from autograd_lint.explain import SECOND_BACKWARD_ERROR, explain
from autograd_lint.rules import RULES
from lsp_helpers import SAMPLES


def finding_of(sample: str, code: str):
    path = SAMPLES / sample
    (finding,) = [f for f in analyze(path.read_text(encoding="utf-8"), str(path)) if f.code == code]
    return finding


def test_carried_hidden_state_story_uses_the_users_names_and_lines():
    finding = finding_of("ag001_rnn_hidden_buggy.py", "AG001")
    carried = finding.steps(Role.CARRIED)[0]
    freed = finding.steps(Role.FREED)[0]
    text = explain(finding)
    assert text.startswith("**AG001** backward-through-carried-graph")
    assert "`hidden` still holds the autograd graph" in text
    assert f"reused at line {carried.span.start.line}" in text
    assert f"The `backward()` at line {freed.span.start.line} frees" in text
    assert SECOND_BACKWARD_ERROR in text
    assert "Why not `retain_graph=True`?" in text
    assert "`hidden = hidden.detach()`" in text
    assert RULES["AG001"].docs_url in text
    # Every evidence step is listed with its line, in order.
    for number, step in enumerate(finding.evidence, 1):
        assert f"{number}. *" in text and f"line {step.span.start.line}: {step.message}" in text


def test_focus_marks_the_step_pointed_at():
    finding = finding_of("ag001_rnn_hidden_buggy.py", "AG001")
    carried = finding.steps(Role.CARRIED)[0]
    text = explain(finding, focus=carried)
    assert f"**carried over, line {carried.span.start.line}: {carried.message}** (here)" in text
    assert text.count("(here)") == 1
    assert "(here)" not in explain(finding)


def test_module_state_story_names_the_attribute():
    finding = finding_of("ag001_module_state_buggy.py", "AG001")
    text = explain(finding)
    assert "`self.hidden` keeps a graph-carrying value on the object" in text
    assert "`self.hidden = self.hidden.detach()`" in text


def test_hoisted_forward_story_says_built_once_before_the_loop():
    finding = finding_of("ag001_hoisted_forward_buggy.py", "AG001")
    text = explain(finding)
    assert f"before the loop at line {finding.loop.start.line}" in text
    assert "move the forward pass into the loop" in text


def test_shared_graph_story_recommends_retain_graph_on_the_first_backward_only():
    finding = finding_of("ag002_two_losses_buggy.py", "AG002")
    freed = finding.steps(Role.FREED)[0]
    fails = finding.steps(Role.FAILS)[0]
    text = explain(finding)
    assert "`features`" in text and "feeds both losses" in text
    assert f"The `backward()` at line {freed.span.start.line} frees" in text
    assert f"the `backward()` at line {fails.span.start.line} reaches them again" in text
    assert f"first `backward()` (line {freed.span.start.line}) only" in text
    assert "Why not `retain_graph=True`" not in text


def test_syntax_error_has_no_story():
    (finding,) = analyze("def f(:\n    pass\n", "x.py")
    text = explain(finding)
    assert text.startswith("**AG000** syntax-error")
    assert "retain_graph" not in text and "Fix" not in text


def test_explain_depends_only_on_the_model_and_the_rules():
    import autograd_lint.explain as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level > 0
    }
    assert imported == {"analysis.model", "rules"}


# -- what the advice claims about PyTorch ---------------------------------------------------

CARRIED_WITH_RETAIN = textwrap.dedent(
    """
    import torch
    torch.manual_seed(0)
    rnn = torch.nn.RNNCell(3, 4)
    opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
    h = torch.zeros(1, 4)

    def graph(fn):
        seen, todo = [], [fn]
        while todo:
            node = todo.pop()
            if node is None or node in seen:
                continue
            seen.append(node)
            todo.extend(next_fn for next_fn, _ in node.next_functions)
        return seen

    def saved_elements(nodes):
        # Saved tensors still held after backward(); freed ones raise on access.
        total = 0
        for node in nodes:
            for name in dir(node):
                if name.startswith("_saved_"):
                    try:
                        value = getattr(node, name)
                    except RuntimeError:
                        continue
                    if isinstance(value, torch.Tensor):
                        total += value.numel()
        return total

    sizes, held = [], []
    for step in range(4):
        h = rnn(torch.randn(1, 3), h)
        loss = h.sum()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        nodes = graph(loss.grad_fn)
        sizes.append(len(nodes))
        held.append(saved_elements(nodes))
        if STEP_OPTIMIZER:
            opt.step()
    print(sizes, held)
    """
)


def run_torch(python: str, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)


def test_retain_graph_on_a_carried_graph_keeps_every_iteration_alive(torch_python):
    run = run_torch(torch_python, "STEP_OPTIMIZER = False\n" + CARRIED_WITH_RETAIN)
    assert run.returncode == 0, run.stderr
    sizes, held = ast.literal_eval(run.stdout.strip().replace("] [", "], ["))
    # Each backward walks every earlier iteration's nodes (time grows) ...
    assert all(later > earlier for earlier, later in zip(sizes, sizes[1:]))
    # ... and every iteration's saved tensors are still held (memory grows).
    assert all(later > earlier for earlier, later in zip(held, held[1:]))


def test_retain_graph_on_a_carried_graph_turns_into_the_inplace_error_after_a_step(
    torch_python,
):
    run = run_torch(torch_python, "STEP_OPTIMIZER = True\n" + CARRIED_WITH_RETAIN)
    assert run.returncode != 0
    assert "modified by an inplace operation" in run.stderr


def test_retain_graph_on_the_first_of_two_backwards_fixes_ag002(torch_python):
    code = textwrap.dedent(
        """
        import torch
        backbone, a, b = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)
        features = backbone(torch.randn(2, 3)).tanh()
        loss_a, loss_b = a(features).sum(), b(features).sum()
        loss_a.backward(RETAIN)
        loss_b.backward()
        print("ok")
        """
    )
    broken = run_torch(torch_python, code.replace("RETAIN", ""))
    assert SECOND_BACKWARD_ERROR in broken.stderr
    fixed = run_torch(torch_python, code.replace("RETAIN", "retain_graph=True"))
    assert fixed.returncode == 0 and fixed.stdout.strip() == "ok", fixed.stderr


def test_other_rules_list_their_steps_without_the_graph_story():
    finding = finding_of("ag007_attention_mask_buggy.py", "AG007")
    text = explain(finding)
    assert text.startswith("**AG007**")
    for number, step in enumerate(finding.evidence, 1):
        assert f"{number}. line {step.span.start.line}: {step.message}" in text
    assert "Why not `retain_graph=True`" not in text and SECOND_BACKWARD_ERROR not in text
