# Source: https://github.com/jeshraghian/snntorch/issues/172
# Rebuilt in our own words: manual truncated BPTT as the maintainer advises, a model whose forward simulates one time step of init_hidden Synaptic neurons, an update every K steps, then the neurons' hidden state is detached through the library.
# Mechanism: detached at iteration boundary
import torch
import torch.nn as nn
import snntorch as snn
from snntorch import surrogate, utils


class OneStepSNN(nn.Module):
    def __init__(self, n_in=40, n_hidden=100, n_out=2):
        super().__init__()
        grad = surrogate.fast_sigmoid()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.lif1 = snn.Synaptic(alpha=0.8, beta=0.9, spike_grad=grad, init_hidden=True)
        self.fc2 = nn.Linear(n_hidden, n_out)
        self.lif2 = snn.Synaptic(alpha=0.8, beta=0.9, spike_grad=grad, init_hidden=True, output=True)

    def forward(self, x_t):
        spk = self.lif1(self.fc1(x_t))
        spk_out, syn_out, mem_out = self.lif2(self.fc2(spk))
        return spk_out, mem_out


net = OneStepSNN()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()
K = 25

for signal, target in train_loader:
    utils.reset(net)
    loss = 0
    for t in range(signal.size(0)):
        spk_out, mem_out = net(signal[t])
        loss = loss + loss_fn(mem_out, target[t])
        if (t + 1) % K == 0:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            snn.Synaptic.detach_hidden()
            loss = 0
