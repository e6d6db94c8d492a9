# Source: https://github.com/kimhc6028/pytorch-noreward-rl/blob/b0cfb5b58509f2b1555671e18b9cee0230fc2a55/model.py
# Rebuilt in our own words: the A3C network with a curiosity module, one forward with two
# modes. `icm=False`: four strided convolutions, an LSTM cell over the given (hx, cx),
# and the value and policy heads; it returns (value, logits, (hx, cx)) and keeps nothing.
# `icm=True`: a second convolution stack encodes s_t and s_t+1; the inverse model
# predicts the action from both encodings (softmax), the forward model predicts the next
# encoding from s_t's and the one-hot action; it returns (next encoding, inverse,
# forward). (The repository's normalised-column initialisation is left out.)
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_stack(channels):
    return nn.ModuleList([nn.Conv2d(channels if i == 0 else 32, 32, 3, stride=2, padding=1) for i in range(4)])


def encode(convs, x):
    for conv in convs:
        x = F.elu(conv(x))
    return x.view(-1, 32 * 3 * 3)


class ActorCritic(torch.nn.Module):
    def __init__(self, num_inputs, action_space):
        super().__init__()
        n_actions = action_space.n
        self.convs = conv_stack(num_inputs)
        self.lstm = nn.LSTMCell(32 * 3 * 3, 256)
        self.critic_linear = nn.Linear(256, 1)
        self.actor_linear = nn.Linear(256, n_actions)
        self.icm_convs = conv_stack(num_inputs)
        self.inverse_linear1 = nn.Linear(288 + 288, 256)
        self.inverse_linear2 = nn.Linear(256, n_actions)
        self.forward_linear1 = nn.Linear(288 + n_actions, 256)
        self.forward_linear2 = nn.Linear(256, 288)
        self.lstm.bias_ih.data.fill_(0)
        self.lstm.bias_hh.data.fill_(0)
        self.train()

    def forward(self, inputs, icm):
        if not icm:
            inputs, (hx, cx) = inputs
            hx, cx = self.lstm(encode(self.convs, inputs), (hx, cx))
            return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)
        s_t, s_t1, a_t = inputs
        vec_st = encode(self.icm_convs, s_t)
        vec_st1 = encode(self.icm_convs, s_t1)
        inverse = self.inverse_linear2(F.relu(self.inverse_linear1(torch.cat((vec_st, vec_st1), 1))))
        forward = self.forward_linear2(F.relu(self.forward_linear1(torch.cat((vec_st, a_t), 1))))
        return vec_st1, F.softmax(inverse, dim=1), forward
