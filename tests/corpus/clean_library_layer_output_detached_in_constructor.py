# runnable
# The twin of library_layer_output_kept_in_constructor.py: the constructor detaches the
# layer's output, so every step's loss reaches only that step's graph.
import torch
from torch import nn
from transformers import BertConfig, BertModel


class Tagger(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.lookup = base.embeddings
        self.out = nn.Linear(8, 2)
        self.anchor = self.lookup(torch.tensor([[3]])).detach()

    def forward(self, ids):
        return self.out(self.lookup(ids) + self.anchor).mean()


torch.manual_seed(0)
config = BertConfig(
    vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
)
tagger = Tagger(BertModel(config))
adam = torch.optim.Adam(tagger.parameters(), lr=1e-3)
for _ in range(3):
    score = tagger(torch.randint(0, 50, (2, 5)))
    adam.zero_grad()
    score.backward(retain_graph=True)  # expect: AG004
    adam.step()
