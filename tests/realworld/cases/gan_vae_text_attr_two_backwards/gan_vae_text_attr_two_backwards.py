# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/7
# Rebuilt in our own words: text VAE with an attribute discriminator (Hu et al. controlled generation); the decoder unrolls soft words, the sentence is scored by the discriminator and re-encoded, then the VAE loss and the extra decoder loss are back-propagated one after the other with an encoder step in between.
# Mechanism: shared output two backwards
import numpy as np
import torch
from torch.optim import Adam

from Model.Modules import Encoder, Generator, Discriminator

vocab_size = 5000
seq_len = 16
batch_size = 64
code_dim = 2
n_epochs = 2
weight_c = 0.1
weight_z = 0.1
BOS = 2


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
            tokens = torch.from_numpy(x_train[start:start + batch_size]).long()
            labels = torch.from_numpy(y_train[start:start + batch_size]).long()

            hidden = encoder(tokens, encoder.init_hidden(len(tokens)))
            code = torch.from_numpy(np.eye(code_dim)[labels.numpy()]).float()
            state = (torch.cat([hidden[0][0], code], dim=1).unsqueeze(0),
                     torch.cat([decoder.init_hidden_c_for_lstm(len(tokens))[0], code], dim=1).unsqueeze(0))

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
            extra_decoder_loss.backward()
            g_opt.step()
