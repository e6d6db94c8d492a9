# Source: https://github.com/jeshraghian/snntorch/issues/250
# Rebuilt in our own words: the fix from that thread, where the time-step loop moves into the model's forward and utils.reset clears the init_hidden Leaky neurons of both sub-networks first.
# Mechanism: state reset per batch
import torch
import torch.nn as nn
import snntorch as snn
from snntorch import surrogate, utils

spike_grad = surrogate.atan()


class EncoderClassifier(nn.Module):
    def __init__(self, num_steps=25, beta=0.9):
        super().__init__()
        self.num_steps = num_steps
        self.encoder = nn.Sequential(
            nn.Conv2d(2, 12, 5),
            nn.MaxPool2d(2),
            snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(12 * 14 * 14, 10),
            snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True, output=True),
        )

    def forward(self, x):
        spk_rec = []
        mem_rec = []
        utils.reset(self.encoder)
        utils.reset(self.classifier)
        for _ in range(self.num_steps):
            spk_out, mem_out = self.classifier(self.encoder(x))
            spk_rec.append(spk_out)
            mem_rec.append(mem_out)
        return torch.stack(spk_rec), torch.stack(mem_rec)


net = EncoderClassifier()
optimizer = torch.optim.Adam(net.parameters(), lr=5e-4)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(3):
    for data, targets in train_loader:
        spk_rec, mem_rec = net(data)
        loss_val = loss_fn(spk_rec.sum(0), targets)
        optimizer.zero_grad()
        loss_val.backward()
        optimizer.step()
