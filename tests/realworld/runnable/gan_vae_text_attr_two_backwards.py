# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/7
# Rebuilt in our own words: text VAE with an attribute discriminator (Hu et al. controlled generation); the decoder unrolls soft words, the sentence is scored by the discriminator and re-encoded, then the VAE loss and the extra decoder loss are back-propagated one after the other with an encoder step in between.
# Mechanism: shared output two backwards
# Runnable completion: small LSTM encoder/decoder and a linear discriminator stand in for
# the repository's Model.Modules; random token ids replace the IMDB data.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam

torch.manual_seed(0)
np.random.seed(0)

vocab_size = 30
seq_len = 6
batch_size = 4
code_dim = 2
n_epochs = 2
weight_c = 0.1
weight_z = 0.1
BOS = 2
EMB, HID = 8, 10


class Encoder(nn.Module):
    def __init__(self, n_src_vocab):
        super().__init__()
        self.emb = nn.Embedding(n_src_vocab, EMB)
        self.rnn = nn.LSTM(EMB, HID)
        self.to_mean = nn.Linear(HID, HID - code_dim)
        self.to_sigma = nn.Linear(HID, HID - code_dim)

    def init_hidden(self, n):
        return (torch.zeros(1, n, HID), torch.zeros(1, n, HID))

    def forward(self, x, hidden, dont_pass_emb=False):
        seq = x if dont_pass_emb else self.emb(x)
        _, (h, c) = self.rnn(seq.permute(1, 0, 2), hidden)
        self.z_mean = self.to_mean(h[0])
        self.z_sigma = F.softplus(self.to_sigma(h[0])) + 1e-3
        z = self.z_mean + self.z_sigma * torch.randn_like(self.z_sigma)
        return (z.unsqueeze(0), c)


class Generator(nn.Module):
    def __init__(self, n_target_vocab, c_dim):
        super().__init__()
        self.emb = nn.Embedding(n_target_vocab, EMB)
        self.rnn = nn.LSTM(EMB, HID)
        self.out = nn.Linear(HID, n_target_vocab)

    def init_hidden_c_for_lstm(self, n):
        return torch.zeros(1, n, HID - code_dim)

    def one_hot_to_word_emb(self, soft):
        return soft @ self.emb.weight

    def forward(self, word, state, low_temp=False, one_hot_input=False):
        step = (word @ self.emb.weight).unsqueeze(0)
        out, state = self.rnn(step, state)
        logits = self.out(out[0])
        soft = F.softmax(logits / (0.5 if low_temp else 1.0), dim=-1)
        return soft, state, logits


class Discriminator(nn.Module):
    def __init__(self, n_src_vocab, maxlen):
        super().__init__()
        self.emb = nn.Embedding(n_src_vocab, EMB)
        self.fc = nn.Linear(EMB * maxlen, 2)

    def forward(self, x, dont_pass_emb=False):
        seq = x @ self.emb.weight if dont_pass_emb else self.emb(x)
        return self.fc(seq.flatten(1))


def kl_term(mu, sigma):
    mu_sq = mu * mu
    sigma_sq = sigma * sigma
    return 0.5 * torch.mean(mu_sq + sigma_sq - torch.log(sigma_sq) - 1)


encoder = Encoder(n_src_vocab=vocab_size)
decoder = Generator(n_target_vocab=vocab_size, c_dim=code_dim)
discriminator = Discriminator(n_src_vocab=vocab_size, maxlen=seq_len)
criterion = torch.nn.CrossEntropyLoss()
e_opt = Adam(encoder.parameters())
g_opt = Adam(decoder.parameters())


def train_with_attribute_losses(x_train, y_train):
    for epoch in range(n_epochs):
        for start in range(0, len(x_train) - 1, batch_size):
            encoder.zero_grad()
            decoder.zero_grad()
            recon = 0
            tokens = torch.from_numpy(x_train[start : start + batch_size]).long()
            labels = torch.from_numpy(y_train[start : start + batch_size]).long()

            hidden = encoder(tokens, encoder.init_hidden(len(tokens)))
            code = torch.from_numpy(np.eye(code_dim)[labels.numpy()]).float()
            state = (
                torch.cat([hidden[0][0], code], dim=1).unsqueeze(0),
                torch.cat([decoder.init_hidden_c_for_lstm(len(tokens))[0], code], dim=1).unsqueeze(
                    0
                ),
            )

            sentence = torch.zeros(len(tokens), 1, vocab_size)
            sentence[:, 0, BOS] = 1
            word = sentence[:, 0]
            steps = tokens.permute(1, 0)
            for t in range(seq_len - 1):
                soft_word, state, logits = decoder(word, state, low_temp=True, one_hot_input=True)
                recon += criterion(logits.view(-1, vocab_size), steps[t + 1])
                sentence = torch.cat([sentence, soft_word.unsqueeze(1)], dim=1)
                word = soft_word

            kl = kl_term(encoder.z_mean, encoder.z_sigma)
            attr_logits = discriminator(sentence, dont_pass_emb=True)
            loss_attr_c = criterion(attr_logits, labels)
            embedded = decoder.one_hot_to_word_emb(sentence)
            encoder(embedded, encoder.init_hidden(len(embedded)), dont_pass_emb=True)
            loss_attr_z = kl_term(encoder.z_mean, encoder.z_sigma)

            total_vae_loss = recon + kl
            extra_decoder_loss = weight_c * loss_attr_c + weight_z * loss_attr_z
            total_vae_loss.backward()
            e_opt.step()
            extra_decoder_loss.backward()  # realworld: fails
            g_opt.step()


x_data = np.random.randint(3, vocab_size, size=(12, seq_len))
y_data = np.random.randint(0, code_dim, size=12)
train_with_attribute_losses(x_data, y_data)
