# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/blob/dfb95ccb6833321930cc08004eeffbeaf71082ed/Model/Modules.py
# Rebuilt in our own words: the three networks of the controlled text generator. The LSTM
# encoder samples z = mu + sigma * noise from its last hidden state and keeps `mu` and
# `sigma` on itself (`self.z_mean`, `self.z_sigma`, with their graph: the training
# loop reads them after each call for the KL term); the LSTM generator reads one word (an
# embedding index, or a soft one-hot through a linear map whose weight starts as the
# output layer's, transposed) and, with `low_temp`, returns the softmax at temperature
# 0.001 as the next soft word, the state and the raw logits; the CNN discriminator
# classifies the attribute of a (soft, embedded) sentence and creates its last linear
# layer on the first call.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

import Model.Constants as Constants
from utils import check_cuda


class Encoder(nn.Module):
    def __init__(self, n_src_vocab, n_layers=1, d_word_vec=150, d_inner_hid=300, dropout=0.1,
                 d_out_hid=300, use_cuda=False):  # fmt: skip
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.src_word_emb = nn.Embedding(n_src_vocab, d_word_vec, padding_idx=Constants.PAD)
        self.n_layers, self.d_inner_hid, self.use_cuda = n_layers, d_inner_hid, use_cuda
        self.rnn = nn.LSTM(d_word_vec, d_inner_hid, n_layers, dropout=dropout)
        self._enc_mu = nn.Linear(d_inner_hid, d_out_hid)
        self._enc_log_sigma = nn.Linear(d_inner_hid, d_out_hid)

    def _sample_latent(self, enc_hidden):
        mu = self._enc_mu(enc_hidden)
        sigma = torch.exp(self._enc_log_sigma(enc_hidden))
        noise = torch.from_numpy(np.random.normal(0, 1, size=sigma.size())).float()
        self.z_mean = mu
        self.z_sigma = sigma
        return mu + sigma * check_cuda(Variable(noise, requires_grad=False), self.use_cuda)

    def forward(self, src_seq, hidden, dont_pass_emb=False):
        if dont_pass_emb:
            enc_input = self.drop(src_seq)
        else:
            enc_input = self.drop(self.src_word_emb(src_seq))
        _, hidden = self.rnn(enc_input.permute(1, 0, 2), hidden)
        return (self._sample_latent(hidden[0]), hidden[1])

    def init_hidden(self, batch_size):
        zeros = [Variable(torch.zeros(self.n_layers, batch_size, self.d_inner_hid)) for _ in range(2)]
        return [check_cuda(h, self.use_cuda) for h in zeros]


class Generator(nn.Module):
    def __init__(self, n_target_vocab, n_layers=1, d_word_vec=150, d_inner_hid=300, c_dim=1,
                 dropout=0.1, use_cuda=False):  # fmt: skip
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.d_inner_hid, self.c_dim, self.n_layers, self.use_cuda = d_inner_hid, c_dim, n_layers, use_cuda
        self.target_word_emb = nn.Embedding(n_target_vocab, d_word_vec, padding_idx=Constants.PAD)
        self.rnn = nn.LSTM(d_word_vec, d_inner_hid + c_dim, n_layers, dropout=dropout)
        self.to_word_emb = nn.Sequential(nn.Linear(d_inner_hid + c_dim, d_word_vec), nn.ReLU())
        self.linear = nn.Linear(d_word_vec, n_target_vocab)
        self.one_hot_to_word_emb = nn.Linear(n_target_vocab, d_word_vec)
        self.linear.weight = self.target_word_emb.weight  # tied output and input embeddings
        self.one_hot_to_word_emb.weight = torch.nn.Parameter(self.linear.weight.permute(1, 0).data)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, target_word, hidden, low_temp=False, one_hot_input=False):
        if one_hot_input:
            dec_input = self.drop(self.one_hot_to_word_emb(target_word)).unsqueeze(0)
        else:
            dec_input = self.drop(self.target_word_emb(target_word)).unsqueeze(0)
        output, hidden = self.rnn(dec_input, hidden)
        output = self.linear(self.to_word_emb(output))
        if low_temp:
            logits = output[0]
            return self.softmax(logits / 0.001), hidden, logits
        return output, hidden

    def init_hidden_c_for_lstm(self, batch_size):
        zeros = Variable(torch.zeros(self.n_layers, batch_size, self.d_inner_hid))
        return check_cuda(zeros, self.use_cuda)


class Discriminator(nn.Module):
    def __init__(self, n_src_vocab, maxlen, d_word_vec=150, dropout=0.1, use_cuda=False):
        super().__init__()
        self.use_cuda = use_cuda
        self.src_word_emb = nn.Embedding(n_src_vocab, d_word_vec, padding_idx=Constants.PAD)
        self.drop = nn.Dropout(dropout)
        self.conv1 = nn.Conv1d(maxlen, 128, kernel_size=5)
        self.conv2 = nn.Conv1d(128, 128, kernel_size=5)
        self.softmax = nn.LogSoftmax(dim=-1)

    def forward(self, input_sentence, is_softmax=False, dont_pass_emb=False):
        emb = input_sentence if dont_pass_emb else self.src_word_emb(input_sentence)
        layer1 = F.max_pool1d(F.relu(self.conv1(emb)), 3)
        layer2 = F.max_pool1d(F.relu(self.conv2(layer1)), 3)
        flat = self.drop(layer2.view(layer2.size()[0], -1))
        if not hasattr(self, "linear"):
            self.linear = check_cuda(nn.Linear(flat.size()[1], 2), self.use_cuda)
        logit = self.linear(flat)
        return self.softmax(logit) if is_softmax else logit
