"""Lists known element by element: a list display, `append`, `extend`, literal indices and
unpacking keep each element's own graph (the A2C agent that keeps `[state, log_prob]` in
`self.transition` and back-propagates the critic's and the actor's losses separately).

Each program is run with torch, and the analysis must agree with what happened.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze

FREED = "Trying to backward through the graph a second time"

PROGRAMS = {
    # The A2C shape: a transition list extended with data, unpacked, two disjoint losses.
    "transition-unpacked": (
        """
import torch
actor, critic = torch.nn.Linear(3, 2), torch.nn.Linear(3, 1)
for _ in range(2):
    state = torch.randn(1, 3)
    log_prob = torch.log_softmax(actor(state), dim=-1)[0, 0]
    transition = [state, log_prob]
    transition.extend([torch.randn(1, 3), 1.0])
    obs, logp, next_obs, reward = transition
    value_loss = (critic(obs) - reward).pow(2).sum()
    value_loss.backward()
    (-logp).backward()
""",
        None,
    ),
    # Outputs of two separate heads kept in one list, back-propagated one by one.
    "two-heads-by-index": (
        """
import torch
body_a, body_b = torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)
x = torch.randn(4, 3)
outputs = [body_a(x).tanh(), body_b(x).tanh()]
outputs[0].sum().backward()
outputs[-1].sum().backward()
""",
        None,
    ),
    # Two elements over one graph: the second backward goes through freed nodes.
    "shared-graph-by-index": (
        """
import torch
net = torch.nn.Linear(3, 3)
h = torch.tanh(net(torch.randn(4, 3)))
outputs = [h.sum(), (h * h).sum()]
outputs[0].backward()
outputs[1].backward()
""",
        ("AG002", 7),
    ),
    # Appended one by one, read back by position: each element is its own graph.
    "appended-then-indexed": (
        """
import torch
nets = [torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)]
x = torch.randn(3, 2)
losses = []
losses.append(nets[0](x).tanh().sum())
losses.append(nets[1](x).tanh().sum())
losses[0].backward()
losses[1].backward()
""",
        None,
    ),
}


def run(source: str) -> str | None:
    import torch

    torch.manual_seed(0)
    try:
        exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})  # noqa: S102
    except RuntimeError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", PROGRAMS)
def test_elements_keep_their_own_graphs(name: str) -> None:
    source, expected = PROGRAMS[name]
    error = run(source)
    found = [(f.code, f.span.start.line) for f in analyze(source) if f.code in ("AG001", "AG002")]
    if expected is None:
        assert error is None
        assert found == []
    else:
        assert error is not None and FREED in error
        assert found == [expected]
