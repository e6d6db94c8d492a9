# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/145
# Rebuilt in our own words: the GConvGRU example changed as the maintainer suggests, the hidden state is handed from snapshot to snapshot and set back to None between the epoch loop and the sequence loop.
# Mechanism: state reset per batch
import torch
import torch.nn.functional as F
from torch_geometric.nn import ChebConv

torch.manual_seed(0)


# Stand-in for torch_geometric_temporal.nn.recurrent.GConvGRU (that package does not
# import here): the same Chebyshev-graph-convolution GRU cell, which takes the previous
# hidden state H (zeros when None) and returns the new one.
class GConvGRU(torch.nn.Module):
    def __init__(self, in_channels, out_channels, K):
        super().__init__()
        self.out_channels = out_channels
        self.conv_x_z = ChebConv(in_channels, out_channels, K)
        self.conv_h_z = ChebConv(out_channels, out_channels, K)
        self.conv_x_r = ChebConv(in_channels, out_channels, K)
        self.conv_h_r = ChebConv(out_channels, out_channels, K)
        self.conv_x_h = ChebConv(in_channels, out_channels, K)
        self.conv_h_h = ChebConv(out_channels, out_channels, K)

    def forward(self, X, edge_index, edge_weight=None, H=None):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels)
        Z = torch.sigmoid(
            self.conv_x_z(X, edge_index, edge_weight) + self.conv_h_z(H, edge_index, edge_weight)
        )
        R = torch.sigmoid(
            self.conv_x_r(X, edge_index, edge_weight) + self.conv_h_r(H, edge_index, edge_weight)
        )
        H_tilde = torch.tanh(
            self.conv_x_h(X, edge_index, edge_weight)
            + self.conv_h_h(H * R, edge_index, edge_weight)
        )
        return Z * H + (1 - Z) * H_tilde


class Snapshot:
    def __init__(self, n, f):
        self.x = torch.randn(n, f)
        self.edge_index = torch.stack([torch.arange(n), (torch.arange(n) + 1) % n])
        self.edge_attr = torch.rand(n)
        self.y = torch.randn(n)


train_dataset = [Snapshot(6, 3) for _ in range(4)]


class StatefulRecurrentGCN(torch.nn.Module):
    def __init__(self, node_features, hidden=5):
        super().__init__()
        self.recurrent = GConvGRU(node_features, hidden, 2)
        self.linear = torch.nn.Linear(hidden, 1)

    def forward(self, x, edge_index, edge_weight, h):
        h = self.recurrent(x, edge_index, edge_weight, h)
        return self.linear(F.relu(h)), h


model = StatefulRecurrentGCN(node_features=3)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model.train()

for epoch in range(3):
    cost = 0
    h = None
    for time, snapshot in enumerate(train_dataset):
        y_hat, h = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr, h)
        cost = cost + torch.mean((y_hat.squeeze(-1) - snapshot.y) ** 2)
    cost = cost / (time + 1)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()
print("done")
