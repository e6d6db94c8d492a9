# Source: https://github.com/hiyoung123/SoftMaskedBert/issues/16
# Rebuilt in our own words: a Soft-Masked BERT spelling corrector embeds the [MASK] token once in the model's constructor and mixes it into every forward; the trainer backpropagates with retain_graph=True and steps Adam each batch
# Mechanism: retain_graph on carried graph
# transformers is not installed here and nothing may be downloaded: TinyBert below is a small
# stand-in with what matters, an embeddings module (lookup + LayerNorm + dropout, as BERT's)
# and an encoder returning a tuple.
import torch
import torch.nn as nn
from torch.optim import Adam

torch.manual_seed(0)


class TinyConfig:
    hidden_size = 16
    vocab_size = 40


class TinyEmbeddings(nn.Module):
    def __init__(self, cfg, max_len=32):
        super().__init__()
        self.word = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.pos = nn.Embedding(max_len, cfg.hidden_size)
        self.norm = nn.LayerNorm(cfg.hidden_size)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        return self.drop(self.norm(self.word(ids) + self.pos(positions)))


class TinyEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ff = nn.Sequential(
            nn.Linear(cfg.hidden_size, 32), nn.GELU(), nn.Linear(32, cfg.hidden_size)
        )

    def forward(self, x):
        return (x + self.ff(x),)


class TinyBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = TinyConfig()
        self.embeddings = TinyEmbeddings(self.config)
        self.encoder = TinyEncoder(self.config)


class TinyTokenizer:
    mask_token_id = 3


class GRUDetector(nn.Module):
    def __init__(self, d_in, d_hidden, n_layers):
        super().__init__()
        self.rnn = nn.GRU(d_in, d_hidden, num_layers=n_layers, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * d_hidden, 1)

    def forward(self, emb):
        out, _ = self.rnn(emb)
        return torch.sigmoid(self.proj(out))


class SoftMaskCorrector(nn.Module):
    def __init__(self, bert, tokenizer, d_hidden, n_layers, device):
        super().__init__()
        self.embeddings = bert.embeddings.to(device)
        self.config = bert.config
        width = self.config.hidden_size
        self.detector = GRUDetector(width, d_hidden, n_layers)
        self.encoder = bert.encoder
        mask_id = torch.tensor([[tokenizer.mask_token_id]]).to(device)
        self.mask_vec = self.embeddings(mask_id)
        self.head = nn.Linear(width, self.config.vocab_size)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, input_ids):
        e = self.embeddings(input_ids)
        p = self.detector(e)
        mixed = p * self.mask_vec + (1 - p) * e
        h = self.encoder(mixed)[0] + e
        return self.log_softmax(self.head(h)), p


class CorrectorTrainer:
    def __init__(self, bert, tokenizer, device, d_hidden=8, n_layers=1, lr=3e-5, gamma=0.7):
        self.device = device
        self.model = SoftMaskCorrector(bert, tokenizer, d_hidden, n_layers, device).to(device)
        self.optim = Adam(self.model.parameters(), lr=lr, weight_decay=0.01)
        self.nll = nn.NLLLoss()
        self.bce = nn.BCELoss()
        self.gamma = gamma

    def run_epoch(self, loader, epoch):
        self.model.train()
        total = 0.0
        for i, batch in enumerate(loader):
            batch = {k: v.to(self.device) for k, v in batch.items()}
            out, prob = self.model(batch["noisy_ids"])
            prob = prob.reshape(-1, prob.shape[1])
            loss_detect = self.bce(prob, batch["flags"].float())
            loss_correct = self.nll(out.transpose(1, 2), batch["clean_ids"])
            loss = self.gamma * loss_correct + (1 - self.gamma) * loss_detect
            self.optim.zero_grad()
            loss.backward(retain_graph=True)  # realworld: fails
            self.optim.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / (i + 1):.4f}")


def make_loader(n_batches=4, batch_size=3, seq_len=10):
    batches = []
    for _ in range(n_batches):
        clean = torch.randint(5, 40, (batch_size, seq_len))
        flags = (torch.rand(batch_size, seq_len) < 0.2).long()
        noisy = torch.where(flags.bool(), torch.randint(5, 40, (batch_size, seq_len)), clean)
        batches.append({"noisy_ids": noisy, "clean_ids": clean, "flags": flags})
    return batches


if __name__ == "__main__":
    tokenizer = TinyTokenizer()
    bert = TinyBert()
    loader = make_loader()
    trainer = CorrectorTrainer(bert, tokenizer, torch.device("cpu"))
    for epoch in range(3):
        trainer.run_epoch(loader, epoch)
