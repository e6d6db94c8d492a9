# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/145
# Rebuilt in our own words: the GConvGRU example changed as the maintainer suggests, the hidden state is handed from snapshot to snapshot and set back to None between the epoch loop and the sequence loop.
# Mechanism: state reset per batch
import torch
import torch.nn.functional as F
from torch_geometric_temporal.nn.recurrent import GConvGRU
from torch_geometric_temporal.dataset import ChickenpoxDatasetLoader
from torch_geometric_temporal.signal import temporal_signal_split

dataset = ChickenpoxDatasetLoader().get_dataset(lags=6)
train_dataset, test_dataset = temporal_signal_split(dataset, train_ratio=0.25)


class StatefulRecurrentGCN(torch.nn.Module):
    def __init__(self, node_features, hidden=24):
        super().__init__()
        self.recurrent = GConvGRU(node_features, hidden, 2)
        self.linear = torch.nn.Linear(hidden, 1)

    def forward(self, x, edge_index, edge_weight, h):
        h = self.recurrent(x, edge_index, edge_weight, h)
        return self.linear(F.relu(h)), h


model = StatefulRecurrentGCN(node_features=6)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model.train()

for epoch in range(150):
    cost = 0
    h = None
    for time, snapshot in enumerate(train_dataset):
        y_hat, h = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr, h)
        cost = cost + torch.mean((y_hat.squeeze(-1) - snapshot.y) ** 2)
    cost = cost / (time + 1)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()
