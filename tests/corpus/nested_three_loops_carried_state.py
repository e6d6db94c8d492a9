# runnable
# Epochs, then batches, then time steps: the state is carried across the innermost
# loop's iterations with a backward in each, three loops deep. The second time step's
# backward reaches the graph the first one freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(3, 5)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.01)

for epoch in range(2):
    for batch in range(2):
        state = torch.zeros(2, 5)
        for t in range(3):
            state = cell(torch.randn(2, 3), state)
            loss = state.pow(2).mean()
            optimizer.zero_grad()
            loss.backward()  # expect: AG001
            optimizer.step()
