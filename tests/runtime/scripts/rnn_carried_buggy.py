"""An RNN cell whose hidden state is carried to the next step without detach().

Each backward() hook call on the current step's output is appended to $HOOK_LOG, so a
test can tell whether the failing backward started running.
"""

import os

import torch

device = os.environ.get("FIXTURE_DEVICE", "cpu")
hook_log = os.environ.get("HOOK_LOG")


def log_backward_started(step):
    def hook(grad):
        with open(hook_log, "a") as log:
            log.write(f"{step}\n")

    return hook


torch.manual_seed(0)
w_in = torch.randn(4, 8, requires_grad=True, device=device)
w_h = torch.randn(8, 8, requires_grad=True, device=device)
hidden = torch.zeros(2, 8, device=device)
for step in range(4):  # loop
    x = torch.randn(2, 4, device=device)
    hidden = torch.tanh(x @ w_in + hidden @ w_h)  # built
    loss = hidden.pow(2).mean()
    if hook_log:
        loss.register_hook(log_backward_started(step))
    loss.backward()  # expect: AG001
    print("step", step, loss.item())
