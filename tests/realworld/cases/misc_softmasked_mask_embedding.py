# Source: https://github.com/hiyoung123/SoftMaskedBert/issues/16
# Rebuilt in our own words: a Soft-Masked BERT spelling corrector embeds the [MASK] token once in the model's constructor and mixes it into every forward; the trainer backpropagates with retain_graph=True and steps Adam each batch
# Mechanism: retain_graph on carried graph
import torch
import torch.nn as nn
from torch.optim import Adam
from transformers import BertModel, BertTokenizer


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
    def __init__(self, bert, tokenizer, device, d_hidden=128, n_layers=1, lr=3e-5, gamma=0.7):
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
            loss.backward(retain_graph=True)
            self.optim.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / (i + 1):.4f}")


if __name__ == "__main__":
    tokenizer = BertTokenizer.from_pretrained("weights/zh_bert/vocab.txt")
    bert = BertModel.from_pretrained("weights/zh_bert")
    loader = make_loader(tokenizer, "data/train.csv", batch_size=16)
    trainer = CorrectorTrainer(bert, tokenizer, torch.device("cpu"))
    for epoch in range(20):
        trainer.run_epoch(loader, epoch)
