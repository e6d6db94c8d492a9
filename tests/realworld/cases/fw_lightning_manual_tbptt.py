# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/17848
# Rebuilt in our own words: after Lightning 2.0 dropped truncated_bptt_steps, a maintainer sketched TBPTT with manual optimization: training_step splits the sequence along time, runs the GRU chunk by chunk with the carried hidden state, and calls manual_backward and the optimizer per chunk, truncating the hidden state after each.
# Mechanism: detached at iteration boundary
import lightning as L
import torch
import torch.nn as nn


class ChunkedForecaster(L.LightningModule):
    def __init__(self, n_features=8, hidden=64, chunk=25):
        super().__init__()
        self.automatic_optimization = False
        self.chunk = chunk
        self.hidden = hidden
        self.rnn = nn.GRU(n_features, hidden, batch_first=True)
        self.readout = nn.Linear(hidden, n_features)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        state = torch.zeros(1, x.shape[0], self.hidden, device=self.device)
        for start in range(0, x.shape[1], self.chunk):
            x_part = x[:, start:start + self.chunk]
            y_part = y[:, start:start + self.chunk]
            out, state = self.rnn(x_part, state)
            loss = nn.functional.mse_loss(self.readout(out), y_part)
            self.manual_backward(loss)
            opt.step()
            opt.zero_grad()
            state = state.detach()
            self.log("train_loss", loss, prog_bar=True)


def fit(train_loader):
    trainer = L.Trainer(max_epochs=5, gradient_clip_val=None)
    trainer.fit(ChunkedForecaster(), train_loader)
