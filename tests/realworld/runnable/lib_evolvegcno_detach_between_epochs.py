# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305
# Rebuilt in our own words: the EvolveGCNO recurrent example as fixed for that thread, still back-propagating the summed cost with retain_graph=True but cutting the layer's evolved weight off between epochs.
# Mechanism: detached at iteration boundary
import torch
import torch.nn.functional as F
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.nn.inits import glorot

torch.manual_seed(0)


# Stand-in for torch_geometric_temporal.nn.recurrent.EvolveGCNO (that package does not
# import here): same mechanism as the library layer, which stores the GRU-evolved GCN
# weight in self.weight and evolves it again from there on the next call.
class _FixedWeightGCN(MessagePassing):
    def __init__(self):
        super().__init__(aggr="add")

    def forward(self, W, x, edge_index, edge_weight=None):
        edge_index, edge_weight = gcn_norm(edge_index, edge_weight, x.size(0), False, True)
        return self.propagate(edge_index, x=torch.matmul(x, W), edge_weight=edge_weight)

    def message(self, x_j, edge_weight):
        return edge_weight.view(-1, 1) * x_j


class EvolveGCNO(torch.nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.initial_weight = torch.nn.Parameter(torch.empty(1, in_channels, in_channels))
        glorot(self.initial_weight)
        self.weight = None
        self.recurrent_layer = torch.nn.GRU(in_channels, in_channels, num_layers=1)
        self.conv_layer = _FixedWeightGCN()

    def forward(self, X, edge_index, edge_weight=None):
        if self.weight is None:
            _, self.weight = self.recurrent_layer(self.initial_weight, self.initial_weight)
        else:
            _, self.weight = self.recurrent_layer(self.weight, self.weight)
        return self.conv_layer(self.weight.squeeze(dim=0), X, edge_index, edge_weight)


class Snapshot:
    def __init__(self, n, f):
        self.x = torch.randn(n, f)
        self.edge_index = torch.stack([torch.arange(n), (torch.arange(n) + 1) % n])
        self.edge_attr = torch.rand(n)
        self.y = torch.randn(n, 1)


train_dataset = [Snapshot(5, 4) for _ in range(3)]
test_dataset = [Snapshot(5, 4) for _ in range(2)]


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

for epoch in range(3):
    cost = 0
    for time, snapshot in enumerate(train_dataset):
        y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
        cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
    cost = cost / (time + 1)
    cost.backward(retain_graph=True)
    optimizer.step()
    optimizer.zero_grad()

    model.recurrent.weight = model.recurrent.weight.detach()

model.eval()
cost = 0
for time, snapshot in enumerate(test_dataset):
    if time == 0:
        model.recurrent.weight = None
    y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
    cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
print(f"MSE: {(cost / (time + 1)).item():.4f}")
