"""RNN cell whose hidden state is carried across steps without detach()."""

import torch

torch.manual_seed(0)
device = torch.device(
    "cuda"
    if torch.cuda.is_available() and "cuda" in __import__("os").environ.get("FIXTURE_DEVICE", "")
    else "cpu"
)
w_in = torch.randn(4, 8, requires_grad=True, device=device)
w_h = torch.randn(8, 8, requires_grad=True, device=device)
hidden = torch.zeros(2, 8, device=device)
for step in range(4):
    x = torch.randn(2, 4, device=device)
    hidden = torch.tanh(x @ w_in + hidden @ w_h)
    loss = hidden.pow(2).mean()
    loss.backward()
    print("step", step, loss.item())
