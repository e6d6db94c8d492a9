"""The analysis's beliefs about PyTorch, checked against torch itself.

`analysis/torch_api.py` and the transfer rules in `calls.py` claim that some calls cut
the graph, that factories make no history, that in-place ops keep it, and so on. Each
claim is run here; a PyTorch release that changes one fails this file, not a user.
"""

import pytest
import torch
from autograd_lint.analysis import torch_api as api


def graph_tensor():
    w = torch.randn(4, 3, requires_grad=True)
    return torch.randn(2, 4) @ w


# The cut and factory tables are checked row by row, from the tables themselves, in
# test_torch_api_tables.py; this file holds the transfer rules' other claims.


@pytest.mark.parametrize("method", ["add_", "mul_", "zero_", "fill_"])
def test_in_place_ops_on_a_graph_tensor_keep_its_history(method):
    x = graph_tensor() * 1
    args = {"add_": (1.0,), "mul_": (2.0,), "zero_": (), "fill_": (0.5,)}[method]
    getattr(x, method)(*args)
    assert x.grad_fn is not None


def test_buffer_written_from_a_graph_gains_history():
    buffer = torch.zeros(3, 3)
    buffer[0] = graph_tensor()[0]
    assert buffer.grad_fn is not None


def test_no_grad_and_inference_mode_cut():
    with torch.no_grad():
        assert graph_tensor().grad_fn is None
    with torch.inference_mode():
        assert (torch.randn(2, 4) @ torch.randn(4, 3, requires_grad=True)).grad_fn is None


def test_enable_grad_inside_no_grad_builds_a_graph():
    with torch.no_grad(), torch.enable_grad():
        assert graph_tensor().grad_fn is not None


def test_second_backward_through_a_freed_graph_raises():
    loss = graph_tensor().tanh().sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()  # autograd-lint: ignore[AG002]


def test_retain_graph_and_create_graph_keep_the_graph():
    loss = graph_tensor().tanh().sum()
    loss.backward(retain_graph=True)
    loss.backward()
    x = torch.randn(3, requires_grad=True)
    y = (x.tanh() ** 2).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    y.backward()  # create_graph=True retained the graph, as the analysis assumes
    assert g.grad_fn is not None


def test_autograd_grad_stops_at_its_inputs():
    w = torch.randn(3, requires_grad=True)
    hidden = (w * 2).tanh()
    hidden.sum().backward(retain_graph=False)  # frees the part behind `hidden`
    out = (hidden * 3).sum()
    (g,) = torch.autograd.grad(out, hidden)  # does not walk behind `hidden`: no error
    assert g.shape == hidden.shape
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()  # autograd-lint: ignore[AG002]


def test_distribution_log_prob_has_history_and_sample_has_none():
    logits = graph_tensor()[0]
    dist = torch.distributions.Categorical(logits=logits)
    assert dist.sample().grad_fn is None
    assert dist.log_prob(torch.tensor(1)).grad_fn is not None


def test_parameters_are_leaves_and_module_outputs_are_not():
    layer = torch.nn.Linear(3, 2)
    assert all(p.is_leaf and p.requires_grad for p in layer.parameters())
    assert layer(torch.randn(1, 3)).grad_fn is not None


def test_unique_keeps_history_so_it_is_not_a_cut():
    assert torch.unique(graph_tensor()).grad_fn is not None
    assert "unique" not in api.CUT_METHODS and "unique" not in api.CUT_TORCH_FUNCTIONS


def test_integer_conversions_cannot_carry_a_graph():
    assert graph_tensor().long().grad_fn is None
