# (snippet) Lightning manual optimization over a long sequence: `self.manual_backward`
# every k steps, but the recurrent state is never detached, so the next chunk's backward
# reaches the graph the previous one freed (twin: tbptt_autograd_grad_state_not_detached.py).
class SequenceModel(LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.cell = nn.GRUCell(1, 16)
        self.readout = nn.Linear(16, 1)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        wave = batch
        h = torch.zeros(1, 16)
        loss = 0
        for t in range(wave.size(0) - 1):
            h = self.cell(wave[t], h)
            loss = loss + (self.readout(h) - wave[t + 1]).pow(2).mean()
            if (t + 1) % 5 == 0:
                opt.zero_grad()
                self.manual_backward(loss)  # expect: AG001
                opt.step()
                loss = 0
