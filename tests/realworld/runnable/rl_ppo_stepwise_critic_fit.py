# Source: https://discuss.pytorch.org/t/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time/191396
# Rebuilt in our own words: a hand-rolled PPO where V(s) and Q(s,a) networks are fitted by their own MSE/SGD methods at every time step, the advantage Q - V and a clipped surrogate are computed at each step, and the policy's gradient-ascent method runs once on the mean surrogate at the end of the episode.
# Mechanism: accumulated loss backpropagated
# (gym is not used: a tiny random environment stands in for CartPole.)
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class TinyEnv:
    """Stands in for gym's CartPole: 4 observations, 2 actions, 6 steps."""

    class _Space:
        def __init__(self, shape=None, n=None):
            self.shape, self.n = shape, n

    observation_space = _Space(shape=(4,))
    action_space = _Space(n=2)

    def reset(self):
        self.t = 0
        return np.random.randn(4).astype(np.float32), {}

    def step(self, a):
        self.t += 1
        return np.random.randn(4).astype(np.float32), 1.0, self.t >= 6, False, {}


GAMMA = 0.99
CLIP = 0.2


class StateValue(nn.Module):
    def __init__(self, n_obs):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, 8), nn.Tanh(), nn.Linear(8, 1))
        self.opt = torch.optim.SGD(self.parameters(), lr=1e-3)

    def forward(self, s):
        return self.body(s)

    def mse_loss(self, pred, target):
        return F.mse_loss(pred, target)

    def sgd(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class ActionValue(StateValue):
    def __init__(self, n_obs, n_act):
        super().__init__(n_obs + n_act)
        self.n_act = n_act

    def forward(self, s, a):
        onehot = F.one_hot(torch.tensor(a), self.n_act).float()
        return self.body(torch.cat([s, onehot]))


class PolicyNetwork(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, 8), nn.Tanh(), nn.Linear(8, n_act))
        self.opt = torch.optim.Adam(self.parameters(), lr=3e-4)

    def forward(self, s):
        return torch.softmax(self.body(s), dim=-1)

    def clipped_surrogate(self, prob, old_prob, advantage):
        ratio = prob / old_prob
        return torch.min(ratio * advantage, torch.clamp(ratio, 1 - CLIP, 1 + CLIP) * advantage)

    def sga(self, surrogates):
        objective = torch.stack(surrogates).mean()
        self.opt.zero_grad()
        (-objective).backward()  # realworld: fails
        self.opt.step()


env = TinyEnv()
n_obs, n_act = env.observation_space.shape[0], env.action_space.n
policy = PolicyNetwork(n_obs, n_act)
old_policy = PolicyNetwork(n_obs, n_act)
v_net = StateValue(n_obs)
q_net = ActionValue(n_obs, n_act)

for episode in range(2):
    old_policy.load_state_dict(policy.state_dict())
    s, _ = env.reset()
    s = torch.tensor(s, dtype=torch.float32)
    surrogates = []
    done = False
    while not done:
        probs = policy(s)
        a = torch.multinomial(probs, 1).item()
        with torch.no_grad():
            old_prob = old_policy(s)[a]
        s_next, r, terminated, truncated, _ = env.step(a)
        done = terminated or truncated
        s_next = torch.tensor(s_next, dtype=torch.float32)

        v = v_net(s)
        q = q_net(s, a)
        advantage = q - v

        with torch.no_grad():
            v_target = r + GAMMA * v_net(s_next) * (not terminated)
        v_net.sgd(v_net.mse_loss(v, v_target))
        q_net.sgd(q_net.mse_loss(q, v_target))

        surrogates.append(policy.clipped_surrogate(probs[a], old_prob, advantage))
        s = s_next

    policy.sga(surrogates)
