# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/297
# Rebuilt in our own words: the EvolveGCNH recurrent example, a temporal GNN regressor whose EvolveGCNH layer evolves its GCN weight with a GRU over graph snapshots, summed into one cost per epoch.
# Mechanism: module state in library layer
import torch
import torch.nn.functional as F
from torch_geometric_temporal.nn.recurrent import EvolveGCNH
from torch_geometric_temporal.dataset import WikiMathsDatasetLoader
from torch_geometric_temporal.signal import temporal_signal_split

dataset = WikiMathsDatasetLoader().get_dataset(lags=8)
train_set, test_set = temporal_signal_split(dataset, train_ratio=0.5)


class SnapshotRegressor(torch.nn.Module):
    def __init__(self, num_nodes, in_dim):
        super().__init__()
        self.evolve = EvolveGCNH(num_nodes, in_dim)
        self.out = torch.nn.Linear(in_dim, 1)

    def forward(self, x, edge_index, edge_weight):
        z = self.evolve(x, edge_index, edge_weight)
        return self.out(F.relu(z))


net = SnapshotRegressor(num_nodes=1068, in_dim=8)
opt = torch.optim.Adam(net.parameters(), lr=0.005)
net.train()

for epoch in range(50):
    total = 0
    for step, snap in enumerate(train_set):
        pred = net(snap.x, snap.edge_index, snap.edge_attr)
        total = total + F.mse_loss(pred.squeeze(-1), snap.y)
    total = total / (step + 1)
    total.backward()
    opt.step()
    opt.zero_grad()
    print(epoch, total.item())
