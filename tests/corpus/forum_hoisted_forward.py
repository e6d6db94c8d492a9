# runnable
# Full-batch training on a small tabular dataset. Epoch 0 is fine, then:
# RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(19)
features = torch.randn(200, 7)
target = features[:, :1] * 2 - 1

net = nn.Sequential(nn.Linear(7, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
criterion = nn.MSELoss()

prediction = net(features)
for epoch in range(100):
    loss = criterion(prediction, target)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    if epoch % 10 == 0:
        print(epoch, loss.item())
