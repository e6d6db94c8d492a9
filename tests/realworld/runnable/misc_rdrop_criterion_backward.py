# Source: https://github.com/dropreg/R-Drop/issues/8
# Rebuilt in our own words: a fairseq plug-in for consistency-regularised summarisation; the criterion runs the doubled batch, adds a KL term and calls optimizer.backward itself, and the task's train_step also calls optimizer.backward on the loss it gets back
# Mechanism: callee calls backward
# fairseq is not installed here: TinySeq2Seq, TinyOptimizer and the loop at the bottom are small
# stand-ins for fairseq's model, FairseqOptimizer (whose backward(loss) is loss.backward()) and
# the trainer that calls task.train_step once per batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PAD = 1


def smoothed_nll(lprobs, target, eps, ignore_index):
    target = target.unsqueeze(-1)
    nll = -lprobs.gather(dim=-1, index=target)
    smooth = -lprobs.sum(dim=-1, keepdim=True)
    pad = target.eq(ignore_index)
    nll = nll.masked_fill(pad, 0.0).sum()
    smooth = smooth.masked_fill(pad, 0.0).sum()
    return (1.0 - eps) * nll + eps / lprobs.size(-1) * smooth, nll


class TwinDropoutCriterion:
    def __init__(self, label_smoothing=0.1):
        self.eps = label_smoothing
        self.padding_idx = PAD

    def symmetric_kl(self, model, net_output, pad_mask):
        logp = model.get_normalized_probs(net_output, log_probs=True)
        prob = model.get_normalized_probs(net_output, log_probs=False)
        p, q = logp.chunk(2, dim=0)
        p_t, q_t = prob.chunk(2, dim=0)
        kl_pq = F.kl_div(p, q_t, reduction="none").masked_fill(pad_mask, 0.0).sum()
        kl_qp = F.kl_div(q, p_t, reduction="none").masked_fill(pad_mask, 0.0).sum()
        return (kl_pq + kl_qp) / 2

    def forward_twin(self, model, sample, optimizer, alpha, ignore_grad):
        net_in = sample["net_input"]
        doubled = {k: torch.cat([v, v.clone()], 0) for k, v in net_in.items()}
        net_output = model(**doubled)
        lprobs = model.get_normalized_probs(net_output, log_probs=True)
        target = model.get_targets(sample, net_output)
        pad_mask = target.unsqueeze(-1).eq(self.padding_idx)
        target = torch.cat([target, target.clone()], dim=0)
        loss, nll = smoothed_nll(
            lprobs.view(-1, lprobs.size(-1)), target.view(-1), self.eps, self.padding_idx
        )
        loss = loss + alpha * self.symmetric_kl(model, net_output, pad_mask)
        if ignore_grad:
            loss = loss * 0
        optimizer.backward(loss)
        log = {"loss": loss.item(), "nll_loss": nll.item(), "ntokens": sample["ntokens"]}
        return loss, sample["ntokens"], log


class TwinDropoutTask:
    def __init__(self, alpha=0.7):
        self.alpha = alpha

    def train_step(self, sample, model, criterion, optimizer, update_num, ignore_grad=False):
        model.train()
        model.set_num_updates(update_num)
        loss, sample_size, log = criterion.forward_twin(
            model, sample, optimizer, self.alpha, ignore_grad
        )
        if ignore_grad:
            loss = loss * 0
        optimizer.backward(loss)  # realworld: fails
        return loss, sample_size, log


class TinySeq2Seq(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, dim)
        self.tgt_emb = nn.Embedding(vocab, dim)
        self.drop = nn.Dropout(0.3)
        self.out = nn.Linear(dim, vocab)
        self.num_updates = 0

    def set_num_updates(self, n):
        self.num_updates = n

    def forward(self, src_tokens, src_lengths, prev_output_tokens):
        ctx = self.src_emb(src_tokens).mean(dim=1, keepdim=True)
        h = self.drop(torch.tanh(self.tgt_emb(prev_output_tokens) + ctx))
        return (self.out(h), None)

    def get_normalized_probs(self, net_output, log_probs):
        logits = net_output[0]
        return F.log_softmax(logits, dim=-1) if log_probs else F.softmax(logits, dim=-1)

    def get_targets(self, sample, net_output):
        return sample["target"]


class TinyOptimizer:
    def __init__(self, params, lr):
        self._opt = torch.optim.SGD(params, lr=lr)

    backward = staticmethod(torch.autograd.backward)

    def step(self):
        self._opt.step()

    def zero_grad(self):
        self._opt.zero_grad()


def make_sample(bsz=2, src_len=7, tgt_len=5):
    target = torch.randint(2, 30, (bsz, tgt_len))
    prev = torch.cat([torch.full((bsz, 1), 2), target[:, :-1]], dim=1)
    return {
        "net_input": {
            "src_tokens": torch.randint(2, 30, (bsz, src_len)),
            "src_lengths": torch.full((bsz,), src_len),
            "prev_output_tokens": prev,
        },
        "target": target,
        "ntokens": bsz * tgt_len,
    }


model = TinySeq2Seq()
criterion = TwinDropoutCriterion()
task = TwinDropoutTask()
optimizer = TinyOptimizer(model.parameters(), lr=0.1)
for update in range(3):
    optimizer.zero_grad()
    task.train_step(make_sample(), model, criterion, optimizer, update)
    optimizer.step()
