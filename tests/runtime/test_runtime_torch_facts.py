"""The torch 2.13 behaviour the harness relies on, checked against torch itself."""

from __future__ import annotations

import pytest
import torch  # a dev dependency: without it this file fails, it does not skip

FREED = "Trying to backward through the graph a second time"


def second_backward_error(loss) -> str:
    with pytest.raises(RuntimeError) as caught:
        loss.backward()
    return str(caught.value)


def test_probing_a_freed_saved_tensor_raises_what_backward_would():
    x = torch.randn(3, requires_grad=True)
    y = torch.tanh(x)
    loss = (y * y).sum()
    loss.backward()
    tanh = y.grad_fn
    assert type(tanh).__name__ == "TanhBackward0"
    assert [name for name in dir(tanh) if name.startswith("_saved_")] == ["_saved_result"]
    with pytest.raises(RuntimeError) as probed:
        tanh._saved_result  # noqa: B018 - the attribute access is the probe
    assert FREED in str(probed.value)
    assert str(probed.value) == second_backward_error(loss)


def test_probing_a_live_saved_tensor_runs_nothing():
    x = torch.randn(3, requires_grad=True)
    y = torch.tanh(x)
    assert torch.equal(y.grad_fn._saved_result, y)
    assert x.grad is None


def test_probing_a_tensor_modified_in_place_raises_what_backward_would():
    x = torch.randn(3, requires_grad=True)
    y = torch.sigmoid(x)
    z = y * y
    y.mul_(2)
    with pytest.raises(RuntimeError) as probed:
        z.grad_fn._saved_self  # noqa: B018
    assert "modified by an inplace operation" in str(probed.value)
    with pytest.raises(RuntimeError) as real:
        z.sum().backward()
    assert str(real.value).split(". Hint")[0] == str(probed.value).split(". Hint")[0]


def test_custom_function_saved_tensors_probe_like_builtin_nodes():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return grad * 2 + a * 0

    out = Double.apply(torch.randn(3, requires_grad=True))
    node = out.grad_fn
    assert hasattr(node, "_raw_saved_tensors")
    out.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        node.saved_tensors  # noqa: B018


def test_sequence_numbers_peek_at_the_next_node():
    peek = torch._C._autograd._get_sequence_nr
    x = torch.randn(3, requires_grad=True)
    before = peek()
    y = torch.tanh(x)
    z = y * 2
    assert y.grad_fn._sequence_nr() == before
    assert z.grad_fn._sequence_nr() == before + 1
    assert peek() == before + 2


def test_saved_tensor_hooks_are_dropped_when_freed():
    # A hooked saved tensor is therefore alive, and the probe can skip unpacking it.
    x = torch.randn(3, requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        y = torch.tanh(x)
    assert y.grad_fn._raw_saved_result.unpack_hook is not None
    y.sum().backward()
    assert y.grad_fn._raw_saved_result.unpack_hook is None


def test_anomaly_mode_records_the_forward_stack_per_node():
    # The alternative to sequence-number line maps; the harness does not need it.
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        y = torch.tanh(torch.randn(3, requires_grad=True))
    trace = y.grad_fn.metadata["traceback_"]
    assert any("test_runtime_torch_facts.py" in frame for frame in trace)
