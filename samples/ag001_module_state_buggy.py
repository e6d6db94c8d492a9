"""Streaming activity classifier whose module remembers its recurrent state.

`forward` stores the RNN's final state on `self.hidden` and starts the next call
from it. The stored tensor still hangs on the graph of the batch that produced
it, so the next batch's backward() reaches that already-freed graph.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

FEATURES, HIDDEN, CLASSES, STEPS = 6, 16, 4, 10


class StreamingClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(FEATURES, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, CLASSES)
        self.hidden = None

    def forward(self, frames):
        out, self.hidden = self.rnn(frames, self.hidden)
        return self.head(out[:, -1])


frames = torch.randn(32, STEPS, FEATURES)
labels = torch.randint(0, CLASSES, (32,))
loader = DataLoader(TensorDataset(frames, labels), batch_size=8)

model = StreamingClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(2):
    for batch_frames, batch_labels in loader:
        logits = model(batch_frames)
        loss = criterion(logits, batch_labels)
        optimizer.zero_grad()
        loss.backward()  # expect: AG001
        optimizer.step()
