# Source: https://github.com/seungeunrho/minimalRL/issues/17
# Rebuilt in our own words: a minimal PPO with an LSTM policy: the rollout feeds each step's returned (h, c) into the next step without no_grad or detach and stores it with the transition; train_net() takes the first stored hidden state, detaches it, and reuses it for every epoch's value and policy passes.
# Mechanism: stored hidden state detached before update
# (gym is not used: a tiny random environment stands in for CartPole.)
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(0)
np.random.seed(0)


class TinyEnv:
    def reset(self):
        self.t = 0
        return np.random.randn(4).astype(np.float32), {}

    def step(self, a):
        self.t += 1
        return np.random.randn(4).astype(np.float32), 1.0, self.t >= 11, False, {}

    def close(self):
        pass


lr = 0.0003
gamma = 0.99
lmbda = 0.9
eps_clip = 0.2
K_epoch = 3
T_horizon = 4


class RecurrentPPO(nn.Module):
    def __init__(self):
        super().__init__()
        self.data = []
        self.fc1 = nn.Linear(4, 48)
        self.lstm = nn.LSTM(48, 24)
        self.fc_pi = nn.Linear(24, 2)
        self.fc_v = nn.Linear(24, 1)
        self.optimizer = optim.Adam(self.parameters(), lr=lr)

    def pi(self, x, hidden):
        x = F.relu(self.fc1(x)).view(-1, 1, 48)
        x, lstm_hidden = self.lstm(x, hidden)
        return F.softmax(self.fc_pi(x), dim=2), lstm_hidden

    def v(self, x, hidden):
        x = F.relu(self.fc1(x)).view(-1, 1, 48)
        x, _ = self.lstm(x, hidden)
        return self.fc_v(x)

    def put_data(self, transition):
        self.data.append(transition)

    def make_batch(self):
        s_lst, a_lst, r_lst, s2_lst, p_lst, h_lst, done_lst = [], [], [], [], [], [], []
        for s, a, r, s2, p, h, done in self.data:
            s_lst.append(s)
            a_lst.append([a])
            r_lst.append([r])
            s2_lst.append(s2)
            p_lst.append([p])
            h_lst.append(h)
            done_lst.append([0 if done else 1])
        self.data = []
        return (
            torch.tensor(s_lst, dtype=torch.float),
            torch.tensor(a_lst),
            torch.tensor(r_lst),
            torch.tensor(s2_lst, dtype=torch.float),
            torch.tensor(done_lst, dtype=torch.float),
            torch.tensor(p_lst),
            h_lst[0],
        )

    def train_net(self):
        s, a, r, s2, done_mask, prob_a, (h1, h2) = self.make_batch()
        first_hidden = (h1.detach(), h2.detach())
        for i in range(K_epoch):
            v_next = self.v(s2, first_hidden).squeeze(1)
            td_target = r + gamma * v_next * done_mask
            v_s = self.v(s, first_hidden).squeeze(1)
            delta = (td_target - v_s).detach().numpy()
            adv_lst, adv = [], 0.0
            for d in delta[::-1]:
                adv = gamma * lmbda * adv + d[0]
                adv_lst.append([adv])
            adv_lst.reverse()
            advantage = torch.tensor(adv_lst, dtype=torch.float)

            pi, _ = self.pi(s, first_hidden)
            pi_a = pi.squeeze(1).gather(1, a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))
            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1 - eps_clip, 1 + eps_clip) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(v_s, td_target.detach())
            self.optimizer.zero_grad()
            loss.mean().backward(retain_graph=True)
            self.optimizer.step()


def main():
    env = TinyEnv()
    model = RecurrentPPO()
    for n_epi in range(2):
        hidden = (torch.zeros([1, 1, 24]), torch.zeros([1, 1, 24]))
        s, _ = env.reset()
        done = False
        while not done:
            for t in range(T_horizon):
                prob, hidden = model.pi(torch.from_numpy(s).float(), hidden)
                prob = prob.view(-1)
                a = Categorical(prob).sample().item()
                s2, r, terminated, truncated, _ = env.step(a)
                done = terminated or truncated
                model.put_data((s, a, r / 100.0, s2, prob[a].item(), hidden, done))
                s = s2
                if done:
                    break
            model.train_net()
    env.close()


if __name__ == "__main__":
    main()
