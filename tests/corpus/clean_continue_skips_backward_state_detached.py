# runnable
# The twin of continue_skips_backward_carried_state.py, fixed: each step that
# back-propagates detaches the hidden state after its optimizer step, so the next step's
# graph starts from a value without history; the warm-up steps still `continue` before the
# loss.
import torch

torch.manual_seed(0)
cell = torch.nn.GRUCell(4, 8)
head = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)
burn_in = 2
hidden = torch.zeros(1, 8)
for step in range(6):
    x = torch.randn(1, 4)
    hidden = cell(x, hidden)
    if step < burn_in:
        continue
    loss = head(hidden).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    hidden = hidden.detach()
