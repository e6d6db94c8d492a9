# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305
# Rebuilt in our own words: the EvolveGCNO recurrent example of that time, a temporal GNN whose EvolveGCNO layer evolves its own GCN weight over snapshots, trained once per epoch with retain_graph=True on the summed cost.
# Mechanism: retain_graph on carried graph
import torch
import torch.nn.functional as F
from torch_geometric_temporal.nn.recurrent import EvolveGCNO
from torch_geometric_temporal.dataset import PedalMeDatasetLoader
from torch_geometric_temporal.signal import temporal_signal_split

loader = PedalMeDatasetLoader()
dataset = loader.get_dataset(lags=4)
train_dataset, test_dataset = temporal_signal_split(dataset, train_ratio=0.3)


class TemporalRegressor(torch.nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = EvolveGCNO(node_features)
        self.head = torch.nn.Linear(node_features, 1)

    def forward(self, x, edge_index, edge_weight):
        h = F.relu(self.recurrent(x, edge_index, edge_weight))
        return self.head(h)


model = TemporalRegressor(node_features=4)
for param in model.parameters():
    param.retain_grad()

optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
model.train()

for epoch in range(100):
    cost = 0
    for time, snapshot in enumerate(train_dataset):
        y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
        cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
    cost = cost / (time + 1)
    cost.backward(retain_graph=True)
    optimizer.step()
    optimizer.zero_grad()

model.eval()
cost = 0
for time, snapshot in enumerate(test_dataset):
    if time == 0:
        model.recurrent.weight = None
    y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
    cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
print("MSE: {:.4f}".format((cost / (time + 1)).item()))
