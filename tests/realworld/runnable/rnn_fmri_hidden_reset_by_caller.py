# Source: https://github.com/sgadgil6/cnslab_fmri/issues/4
# Rebuilt in our own words: fMRI window classifier whose LSTM module stores its (h, c) in self.hidden and feeds it back on the next call; the training script re-assigns net.hidden from init_hidden() at the top of every mini-batch and votes on test windows every few hundred batches.
# Mechanism: state reset per batch
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
device = torch.device("cpu")


class RegionLSTM(nn.Module):
    def __init__(self, hidden_dim, input_dim, batch_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = self.init_hidden(batch_size=batch_size)
        self.dropout = nn.Dropout(p=0.5)

    def init_hidden(self, batch_size):
        return (
            torch.randn(1, batch_size, self.hidden_dim).to(device),
            torch.randn(1, batch_size, self.hidden_dim).to(device),
        )

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        last = lstm_out[:, -1, :]
        return torch.sigmoid(self.linear(self.dropout(last)))


WINDOW = 6
N_ROI = 4
VOTES = 2
batch_size = 4

net = RegionLSTM(8, N_ROI, batch_size=batch_size).to(device)
criterion = nn.BCELoss()
optimizer = optim.Adam(net.parameters(), lr=0.001, weight_decay=0.001)

train_data = np.random.randn(10, 12, N_ROI).astype(np.float32)
train_label = np.random.randint(0, 2, 10)
test_data = np.random.randn(8, 12, N_ROI).astype(np.float32)
test_label = np.random.randint(0, 2, 8)

running = 0.0
for it in range(7):
    net.hidden = net.init_hidden(batch_size)
    net.train()
    idx = np.random.permutation(train_data.shape[0])[:batch_size]
    batch = np.zeros((batch_size, WINDOW, N_ROI), dtype=np.float32)
    for i in range(batch_size):
        start = random.randint(0, train_data.shape[1] - WINDOW)
        batch[i] = train_data[idx[i], start : start + WINDOW, :]
    x = torch.from_numpy(batch).to(device)
    y = torch.from_numpy(train_label[idx]).float().view(-1, 1).to(device)

    optimizer.zero_grad()
    outputs = net(x)
    loss = criterion(outputs, y)
    loss.backward()
    optimizer.step()
    running += loss.item()

    if it % 3 == 0:
        net.eval()
        prediction = np.zeros(test_data.shape[0])
        voter = np.zeros(test_data.shape[0])
        for v in range(VOTES):
            order = np.random.permutation(test_data.shape[0])
            for k in range(test_data.shape[0] // batch_size):
                sel = order[batch_size * k : batch_size * (k + 1)]
                tb = np.zeros((batch_size, WINDOW, N_ROI), dtype=np.float32)
                for i in range(batch_size):
                    start = random.randint(0, test_data.shape[1] - WINDOW)
                    tb[i] = test_data[sel[i], start : start + WINDOW, :]
                out = net(torch.from_numpy(tb).to(device))
                prediction[sel] += out.data.cpu().numpy()[:, 0]
                voter[sel] += 1
        prediction = prediction / voter
        print(it, running / 3, np.mean((prediction > 0.5) == test_label))
        running = 0.0
        net.train()
