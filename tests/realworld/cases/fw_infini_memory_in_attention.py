# Source: https://github.com/jlamprou/Infini-Attention/issues/3
# Rebuilt in our own words: a compressive-memory attention layer keeps its memory matrix and normaliser in self attributes and grows them with every segment; an accelerate training loop splits each long batch into segments and calls accelerator.backward on every segment's loss before one optimizer step.
# Mechanism: state in self attribute across calls
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator


class MemoryAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.gate = nn.Parameter(torch.zeros(1))
        self.memory = None
        self.norm_term = None

    def _read_memory(self, q):
        if self.memory is None:
            return torch.zeros_like(q)
        sq = F.elu(q) + 1
        return (sq @ self.memory) / ((sq @ self.norm_term.unsqueeze(-1)) + 1e-6)

    def _write_memory(self, k, v):
        sk = F.elu(k) + 1
        update = sk.transpose(-2, -1) @ v
        if self.memory is None:
            self.memory = update
            self.norm_term = sk.sum(dim=-2)
        else:
            self.memory = self.memory + update
            self.norm_term = self.norm_term + sk.sum(dim=-2)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        from_memory = self._read_memory(q)
        self._write_memory(k, v)
        local = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        g = torch.sigmoid(self.gate)
        mixed = g * from_memory + (1 - g) * local
        return self.out(mixed.transpose(1, 2).reshape(b, t, -1))


class TinyMemoryLM(nn.Module):
    def __init__(self, vocab, d_model=64, n_heads=4, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.layers = nn.ModuleList([MemoryAttention(d_model, n_heads) for _ in range(n_layers)])
        self.head = nn.Linear(d_model, vocab)

    def forward(self, input_ids, labels):
        h = self.embed(input_ids)
        for layer in self.layers:
            h = h + layer(h)
        logits = self.head(h)
        return F.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())


def train(model, optimizer, dataloader, segment_len=256):
    accelerator = Accelerator()
    model, optimizer, dataloader = accelerator.prepare(model, optimizer, dataloader)
    model.train()
    for step, batch in enumerate(dataloader):
        cuts = list(range(segment_len, batch["input_ids"].shape[1], segment_len))
        id_segments = torch.tensor_split(batch["input_ids"], cuts, dim=1)
        label_segments = torch.tensor_split(batch["labels"], cuts, dim=1)
        running = 0.0
        for seg_ids, seg_labels in zip(id_segments, label_segments):
            loss = model(seg_ids, seg_labels)
            accelerator.backward(loss)
            running += loss.detach().float()
        optimizer.step()
        optimizer.zero_grad()
        if step % 100 == 0:
            print(step, (running / len(id_segments)).item())
