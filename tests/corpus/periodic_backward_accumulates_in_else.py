# runnable
# Rebuilt from microsoft/voxelpose-pytorch issue 47: every batch back-propagates one loss
# of the model's output, and another loss of the same output is summed in the `else`
# branch and back-propagated every few batches. The every-batch backward already freed
# the graphs the sum holds: the periodic backward raises on its first run.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
pending = 0
for i in range(8):
    out = model(torch.randn(3, 4))
    main_loss = out[:, 0].pow(2).mean()
    side_loss = out[:, 1].abs().mean()
    optimizer.zero_grad()
    main_loss.backward()
    optimizer.step()
    if (i + 1) % 4 == 0:
        pending.backward()  # expect: AG001
        pending = 0
    else:
        pending = pending + side_loss / 4
