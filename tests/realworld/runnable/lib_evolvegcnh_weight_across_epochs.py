# Source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/297
# Rebuilt in our own words: the EvolveGCNH recurrent example, a temporal GNN regressor whose EvolveGCNH layer evolves its GCN weight with a GRU over graph snapshots, summed into one cost per epoch.
# Mechanism: module state in library layer
import torch
import torch.nn.functional as F
from torch_geometric.nn import TopKPooling
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.nn.inits import glorot

torch.manual_seed(0)


# Stand-in for torch_geometric_temporal.nn.recurrent.EvolveGCNH (that package does not
# import here): same mechanism as the library layer, which stores the GRU-evolved GCN
# weight in self.weight and feeds it back as the GRU state on the next call.
class _FixedWeightGCN(MessagePassing):
    def __init__(self):
        super().__init__(aggr="add")

    def forward(self, W, x, edge_index, edge_weight=None):
        edge_index, edge_weight = gcn_norm(edge_index, edge_weight, x.size(0), False, True)
        return self.propagate(edge_index, x=torch.matmul(x, W), edge_weight=edge_weight)

    def message(self, x_j, edge_weight):
        return edge_weight.view(-1, 1) * x_j


class EvolveGCNH(torch.nn.Module):
    def __init__(self, num_of_nodes, in_channels):
        super().__init__()
        self.weight = None
        self.initial_weight = torch.nn.Parameter(torch.empty(1, in_channels, in_channels))
        glorot(self.initial_weight)
        self.pooling_layer = TopKPooling(in_channels, in_channels / num_of_nodes)
        self.recurrent_layer = torch.nn.GRU(in_channels, in_channels, num_layers=1)
        self.conv_layer = _FixedWeightGCN()

    def forward(self, X, edge_index, edge_weight=None):
        X_tilde = self.pooling_layer(X, edge_index)[0][None, :, :]
        if self.weight is None:
            _, self.weight = self.recurrent_layer(X_tilde, self.initial_weight)
        else:
            _, self.weight = self.recurrent_layer(X_tilde, self.weight)
        return self.conv_layer(self.weight.squeeze(dim=0), X, edge_index, edge_weight)


class Snapshot:
    def __init__(self, n, f):
        self.x = torch.randn(n, f)
        self.edge_index = torch.stack([torch.arange(n), (torch.arange(n) + 1) % n])
        self.edge_attr = torch.rand(n)
        self.y = torch.randn(n)


train_set = [Snapshot(8, 4) for _ in range(3)]


class SnapshotRegressor(torch.nn.Module):
    def __init__(self, num_nodes, in_dim):
        super().__init__()
        self.evolve = EvolveGCNH(num_nodes, in_dim)
        self.out = torch.nn.Linear(in_dim, 1)

    def forward(self, x, edge_index, edge_weight):
        z = self.evolve(x, edge_index, edge_weight)
        return self.out(F.relu(z))


net = SnapshotRegressor(num_nodes=8, in_dim=4)
opt = torch.optim.Adam(net.parameters(), lr=0.005)
net.train()

for epoch in range(3):
    total = 0
    for step, snap in enumerate(train_set):
        pred = net(snap.x, snap.edge_index, snap.edge_attr)
        total = total + F.mse_loss(pred.squeeze(-1), snap.y)
    total = total / (step + 1)
    total.backward()  # realworld: fails
    opt.step()
    opt.zero_grad()
    print(epoch, total.item())
