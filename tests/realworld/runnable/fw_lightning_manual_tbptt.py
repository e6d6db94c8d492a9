# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/17848
# Rebuilt in our own words: after Lightning 2.0 dropped truncated_bptt_steps, a maintainer sketched TBPTT with manual optimization: training_step splits the sequence along time, runs the GRU chunk by chunk with the carried hidden state, and calls manual_backward and the optimizer per chunk, truncating the hidden state after each.
# Mechanism: detached at iteration boundary
import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(0)


class ChunkedForecaster(L.LightningModule):
    def __init__(self, n_features=3, hidden=8, chunk=4):
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
            x_part = x[:, start : start + self.chunk]
            y_part = y[:, start : start + self.chunk]
            out, state = self.rnn(x_part, state)
            loss = nn.functional.mse_loss(self.readout(out), y_part)
            self.manual_backward(loss)
            opt.step()
            opt.zero_grad()
            state = state.detach()
            self.log("train_loss", loss, prog_bar=True)


def fit(train_loader):
    trainer = L.Trainer(
        max_epochs=1,
        limit_train_batches=3,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
    )
    trainer.fit(ChunkedForecaster(), train_loader)


sequences = [(torch.randn(12, 3), torch.randn(12, 3)) for _ in range(6)]
fit(DataLoader(sequences, batch_size=2))
