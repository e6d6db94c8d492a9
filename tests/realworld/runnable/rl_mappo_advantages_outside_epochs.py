# Source: https://github.com/hijkzzz/pymarl2/issues/46
# Rebuilt in our own words: a multi-agent PPO learner (pymarl style, recurrent agents and critic unrolled over time) computes old values, GAE advantages and targets once before its mini-epoch loop and reuses them in every mini-epoch's actor and critic losses.
# Mechanism: forward hoisted out of loop
# (pymarl2's EpisodeBatch, NMAC and build_gae_targets are replaced by small stand-ins written here.)
import copy
from types import SimpleNamespace

import torch as th
from torch import nn
from torch.optim import Adam

th.manual_seed(0)
OBS_DIM, HID = 5, 8


class EpisodeBatch:
    def __init__(self, batch_size, max_seq_length, n_agents, n_actions):
        self.batch_size, self.max_seq_length = batch_size, max_seq_length
        bs, T = batch_size, max_seq_length
        probs = th.softmax(th.randn(bs, T, n_agents, n_actions), -1)
        self.data = {
            "obs": th.randn(bs, T, n_agents, OBS_DIM),
            "reward": th.randn(bs, T, 1),
            "actions": th.randint(0, n_actions, (bs, T, n_agents, 1)),
            "terminated": th.zeros(bs, T, 1),
            "filled": th.ones(bs, T, 1),
            "avail_actions": th.ones(bs, T, n_agents, n_actions),
            "probs": probs,
        }

    def __getitem__(self, key):
        return self.data[key]


class NMAC(nn.Module):
    """Recurrent agent shared by all agents; hidden state kept on the controller."""

    def __init__(self, scheme, groups, args):
        super().__init__()
        self.n_agents, self.n_actions = args.n_agents, args.n_actions
        self.fc = nn.Linear(OBS_DIM, HID)
        self.rnn = nn.GRUCell(HID, HID)
        self.out = nn.Linear(HID, args.n_actions)
        self.hidden = None

    def init_hidden(self, batch_size):
        self.hidden = th.zeros(batch_size * self.n_agents, HID)

    def forward(self, batch, t):
        x = th.relu(self.fc(batch["obs"][:, t].reshape(-1, OBS_DIM)))
        self.hidden = self.rnn(x, self.hidden)
        out = self.out(self.hidden).view(batch.batch_size, self.n_agents, -1)
        return out if self.n_actions == 1 else th.softmax(out, -1)


def build_gae_targets(rewards, masks, values, gamma, lambd):
    steps = values.shape[1] - 1
    advantages, gae = [], th.zeros_like(values[:, 0])
    for t in reversed(range(steps)):
        delta = rewards[:, t] + gamma * values[:, t + 1] * masks[:, t] - values[:, t]
        gae = delta + gamma * lambd * gae * masks[:, t]
        advantages.insert(0, gae)
    advantages = th.stack(advantages, dim=1)
    return advantages, advantages + values[:, :-1]


class _Logger:
    def log_stat(self, key, value, t):
        pass


class MAPPOLearner:
    def __init__(self, mac, scheme, logger, args):
        self.args = args
        self.n_agents = args.n_agents
        self.mac = mac
        self.logger = logger
        critic_args = copy.deepcopy(args)
        critic_args.n_actions = 1
        self.critic = NMAC(scheme, None, critic_args)
        self.params = list(mac.parameters()) + list(self.critic.parameters())
        self.optimiser = Adam(params=self.params, lr=args.lr)

    def unroll(self, controller, batch, steps):
        outs = []
        controller.init_hidden(batch.batch_size)
        for t in range(steps):
            outs.append(controller.forward(batch, t=t))
        return th.stack(outs, dim=1)

    def train(self, batch: EpisodeBatch, t_env: int, episode_num: int):
        rewards = batch["reward"][:, :-1]
        actions = batch["actions"][:, :-1]
        terminated = batch["terminated"][:, :-1].float()
        mask = batch["filled"][:, :-1].float()
        mask[:, 1:] = mask[:, 1:] * (1 - terminated[:, :-1])
        avail_actions = batch["avail_actions"][:, :-1]
        mask_agent = mask.unsqueeze(2).repeat(1, 1, self.n_agents, 1)

        old_probs = batch["probs"][:, :-1]
        old_probs[avail_actions == 0] = 1e-10
        old_logprob = th.log(th.gather(old_probs, dim=3, index=actions)).detach()

        old_values = self.unroll(self.critic, batch, batch.max_seq_length)
        advantages, targets = build_gae_targets(
            rewards.unsqueeze(2).repeat(1, 1, self.n_agents, 1),
            mask_agent,
            old_values,
            self.args.gamma,
            self.args.gae_lambda,
        )
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-6)

        for _ in range(self.args.mini_epochs):
            values = self.unroll(self.critic, batch, batch.max_seq_length - 1)
            values_clipped = old_values[:, :-1] + (values - old_values[:, :-1]).clamp(
                -self.args.eps_clip, self.args.eps_clip
            )
            td_error = th.max(
                (values - targets.detach()) ** 2, (values_clipped - targets.detach()) ** 2
            )
            critic_loss = 0.5 * (td_error * mask_agent).sum() / mask_agent.sum()

            pi = self.unroll(self.mac, batch, batch.max_seq_length - 1)
            pi[avail_actions == 0] = 1e-10
            log_pi_taken = th.log(th.gather(pi, dim=3, index=actions))
            ratios = th.exp(log_pi_taken - old_logprob)
            surr1 = ratios * advantages
            surr2 = th.clamp(ratios, 1 - self.args.eps_clip, 1 + self.args.eps_clip) * advantages
            actor_loss = -(th.min(surr1, surr2) * mask_agent).sum() / mask_agent.sum()

            loss = actor_loss + self.args.critic_coef * critic_loss
            self.optimiser.zero_grad()
            loss.backward()  # realworld: fails
            th.nn.utils.clip_grad_norm_(self.params, self.args.grad_norm_clip)
            self.optimiser.step()

        if t_env % self.args.learner_log_interval == 0:
            self.logger.log_stat("actor_loss", actor_loss.item(), t_env)
            self.logger.log_stat("critic_loss", critic_loss.item(), t_env)


args = SimpleNamespace(
    n_agents=3,
    n_actions=4,
    lr=5e-4,
    gamma=0.99,
    gae_lambda=0.95,
    mini_epochs=2,
    eps_clip=0.2,
    critic_coef=0.5,
    grad_norm_clip=10.0,
    learner_log_interval=1,
)
mac = NMAC(None, None, args)
learner = MAPPOLearner(mac, None, _Logger(), args)
learner.train(EpisodeBatch(2, 6, args.n_agents, args.n_actions), t_env=1, episode_num=1)
