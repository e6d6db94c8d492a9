# (from an issue) snnTorch-like neuron written by hand; surrogate, loader, device not shown
class LeakyNeuron(nn.Module):
    def __init__(self, size, beta=0.95, threshold=1.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold
        self.mem = torch.zeros(size, device=device)

    def forward(self, current):
        self.mem = self.beta * self.mem + current
        spk = surrogate(self.mem - self.threshold)
        self.mem = self.mem * (1 - spk)
        return spk


fc1, lif1 = nn.Linear(784, 100), LeakyNeuron(100)
fc2, lif2 = nn.Linear(100, 10), LeakyNeuron(10)
optimizer = torch.optim.Adam([*fc1.parameters(), *fc2.parameters()], lr=5e-4)

for data, targets in train_loader:
    spk_rec = []
    for step in range(num_steps):
        spk1 = lif1(fc1(data.view(batch_size, -1)))
        spk_rec.append(lif2(fc2(spk1)))
    loss = loss_fn(torch.stack(spk_rec).sum(0), targets)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
