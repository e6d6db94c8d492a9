"""Streaming activity classifier whose module remembers its recurrent state.

Fixed: `forward` stores a detached copy of the RNN's final state, so the next
call starts from its value without reaching back into the previous batch's graph.
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
        out, hidden = self.rnn(frames, self.hidden)
        self.hidden = hidden.detach()
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
        loss.backward()
        optimizer.step()
