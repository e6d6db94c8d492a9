# Source: https://github.com/jlamprou/Infini-Attention/issues/3
# Rebuilt in our own words: the fix from the thread: the model hands its compressive memory (M, z) out in its output object, the segment loop feeds it back into the next segment's forward and calls accelerator.backward per segment, and the layer's memory-update method detaches the new M and z.
# Mechanism: detached at iteration boundary
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator


@dataclass
class SegmentOutput:
    loss: torch.Tensor
    logits: torch.Tensor
    M_Z: Optional[list] = None


class CompressiveAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.beta = nn.Parameter(torch.randn(1))

    def _retrieve(self, q, M, z):
        sq = F.elu(q) + 1
        return (sq @ M) / (sq @ z.unsqueeze(-1) + 1e-8)

    def _update_memory(self, k, v, M, z):
        sk = F.elu(k) + 1
        new_M = M + sk.transpose(-2, -1) @ v
        new_z = z + sk.sum(dim=-2)
        return new_M.detach(), new_z.detach()

    def forward(self, x, M=None, z=None):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        if M is None:
            M = torch.zeros(self.n_heads, self.d_head, self.d_head, device=x.device)
            z = torch.zeros(self.n_heads, self.d_head, device=x.device)
        retrieved = self._retrieve(q, M, z)
        M, z = self._update_memory(k, v, M, z)
        local = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        g = torch.sigmoid(self.beta)
        out = g * retrieved + (1 - g) * local
        return self.proj(out.transpose(1, 2).reshape(b, t, -1)), (M, z)


class SegmentLM(nn.Module):
    def __init__(self, vocab, d_model=64, n_heads=4, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.blocks = nn.ModuleList([CompressiveAttention(d_model, n_heads) for _ in range(n_layers)])
        self.lm_head = nn.Linear(d_model, vocab)

    def forward(self, input_ids, labels, M_Z=None):
        h = self.embed(input_ids)
        new_M_Z = []
        for i, block in enumerate(self.blocks):
            M, z = M_Z[i] if M_Z is not None else (None, None)
            delta, state = block(h, M, z)
            h = h + delta
            new_M_Z.append(state)
        logits = self.lm_head(h)
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())
        return SegmentOutput(loss=loss, logits=logits, M_Z=new_M_Z)


def run_training(model, optimizer, train_dataloader, segment_length=512, num_epochs=1):
    accelerator = Accelerator()
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for epoch in range(num_epochs):
        model.train()
        total_loss = 0
        for step, batch in enumerate(train_dataloader):
            cuts = list(range(segment_length, batch["input_ids"].shape[1], segment_length))
            input_ids = torch.tensor_split(batch["input_ids"], cuts, dim=1)
            labels = torch.tensor_split(batch["labels"], cuts, dim=1)
            M_Z = None
            for i in range(len(input_ids)):
                outputs = model(input_ids=input_ids[i], labels=labels[i], M_Z=M_Z)
                M_Z = outputs.M_Z
                loss = outputs.loss
                accelerator.backward(loss)
                total_loss += loss.detach().float()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, total_loss.item())
