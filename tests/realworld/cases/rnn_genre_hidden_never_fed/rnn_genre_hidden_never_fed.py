# Source: https://github.com/ruohoruotsi/LSTM-Music-Genre-Classification/issues/12
# Rebuilt in our own words: two-layer LSTM genre classifier on per-frame audio features; the epoch loop assigns model.hidden = model.init_hidden() while forward calls the LSTM with its input only.
# Mechanism: stored state never fed back
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

from AudioFeatures import AudioFeatures

features = AudioFeatures()
features.load()

train_X = torch.from_numpy(features.train_X).float()
train_Y = torch.from_numpy(features.train_Y).long()
dev_X = torch.from_numpy(features.dev_X).float()
dev_Y = torch.from_numpy(features.dev_Y).long()


class GenreLSTM(nn.Module):
    def __init__(self, input_dim, hidden_dim, batch_size, output_dim=6, num_layers=2):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.batch_size = batch_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers)
        self.linear = nn.Linear(hidden_dim, output_dim)

    def init_hidden(self):
        return (torch.zeros(self.num_layers, self.batch_size, self.hidden_dim),
                torch.zeros(self.num_layers, self.batch_size, self.hidden_dim))

    def forward(self, frames):
        lstm_out, hidden = self.lstm(frames)
        logits = self.linear(lstm_out[-1])
        return F.log_softmax(logits, dim=1)

    def accuracy(self, log_probs, target):
        hits = (log_probs.argmax(1) == target).sum()
        return 100.0 * hits.item() / self.batch_size


batch_size = 25
num_epochs = 300
model = GenreLSTM(input_dim=30, hidden_dim=96, batch_size=batch_size)
loss_function = nn.NLLLoss()
optimizer = optim.Adam(model.parameters(), lr=0.001)
num_batches = train_X.shape[0] // batch_size
num_dev_batches = dev_X.shape[0] // batch_size

for epoch in range(num_epochs):
    running_loss, running_acc = 0.0, 0.0
    model.hidden = model.init_hidden()
    for i in range(num_batches):
        model.zero_grad()
        xb = train_X[i * batch_size:(i + 1) * batch_size].permute(1, 0, 2)
        yb = train_Y[i * batch_size:(i + 1) * batch_size].argmax(1)
        y_pred = model(xb)
        loss = loss_function(y_pred, yb)
        loss.backward()
        optimizer.step()
        running_loss += loss.detach().item()
        running_acc += model.accuracy(y_pred, yb)
    print("epoch %d loss %.4f acc %.2f" % (epoch, running_loss / num_batches, running_acc / num_batches))

    if epoch % 10 == 0:
        with torch.no_grad():
            model.eval()
            model.hidden = model.init_hidden()
            val_loss = 0.0
            for i in range(num_dev_batches):
                xb = dev_X[i * batch_size:(i + 1) * batch_size].permute(1, 0, 2)
                yb = dev_Y[i * batch_size:(i + 1) * batch_size].argmax(1)
                val_loss += loss_function(model(xb), yb).item()
            model.train()
        print("val loss %.4f" % (val_loss / num_dev_batches))
