# Source: https://github.com/jlamprou/Infini-Attention/issues/3
# Rebuilt in our own words: compressive-memory attention LM trained segment by segment with accelerate; the memory (M, z) is returned in the model output and passed back in for the next segment, and each segment's loss is backpropagated before the optimizer steps once per batch.
# Mechanism: loop-carried hidden state
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Accelerator:
    """Stand-in for accelerate.Accelerator (not installed here): on one CPU process,
    prepare() returns its arguments and backward(loss) calls loss.backward()."""

    def prepare(self, *objs):
        return objs

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)  # realworld: fails


@dataclass
class SegmentOutput:
    loss: torch.Tensor
    logits: torch.Tensor
    M_Z: tuple[torch.Tensor, torch.Tensor] | None = None


class MemoryAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.o_proj = nn.Linear(dim, dim)
        self.beta = nn.Parameter(torch.zeros(1))

    def forward(self, x, M_Z=None):
        bsz, q_len, dim = x.shape
        q, k, v = self.qkv(x).view(bsz, q_len, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        if M_Z is None:
            M = x.new_zeros(self.heads, self.head_dim, self.head_dim)
            z = x.new_zeros(self.heads, self.head_dim)
        else:
            M, z = M_Z
        sq = F.elu(q) + 1
        mem_out = (sq @ M) / ((sq @ z.unsqueeze(-1)) + 1e-8)
        M, z = self._update_memory(k, v, M, z)
        local = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        gate = torch.sigmoid(self.beta)
        mixed = gate * mem_out + (1 - gate) * local
        out = self.o_proj(mixed.transpose(1, 2).reshape(bsz, q_len, dim))
        return out, (M, z)

    def _update_memory(self, K, V, M, z):
        sk = F.elu(K) + 1
        updated_M = M + (sk.transpose(-2, -1) @ V).mean(0)
        updated_z = z + sk.sum(dim=-2).mean(0)
        return updated_M, updated_z


class SegmentLM(nn.Module):
    def __init__(self, vocab, dim=8, heads=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = MemoryAttention(dim, heads)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels, M_Z=None):
        h, M_Z = self.attn(self.embed(input_ids), M_Z)
        logits = self.head(h)
        loss = F.cross_entropy(
            logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1)
        )
        return SegmentOutput(loss=loss, logits=logits, M_Z=M_Z)


def train(model, train_dataloader, optimizer, segment_length, num_epochs=1):
    accelerator = Accelerator()
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    model.train()
    for epoch in range(num_epochs):
        for step, batch in enumerate(train_dataloader):
            cuts = list(range(segment_length, batch["input_ids"].shape[1], segment_length))
            input_ids = torch.tensor_split(batch["input_ids"], cuts, dim=1)
            labels = torch.tensor_split(batch["labels"], cuts, dim=1)
            M_Z = None
            total = 0.0
            for i in range(len(input_ids)):
                outputs = model(input_ids=input_ids[i], labels=labels[i], M_Z=M_Z)
                M_Z = outputs.M_Z
                loss = outputs.loss
                accelerator.backward(loss)
                total += loss.detach().float()
            optimizer.step()
            optimizer.zero_grad()


VOCAB = 17
ids = torch.randint(0, VOCAB, (2, 12))
batches = [{"input_ids": ids, "labels": ids.clone()}]
lm = SegmentLM(VOCAB)
train(lm, batches, torch.optim.AdamW(lm.parameters(), lr=1e-3), segment_length=4)
