# Source: https://github.com/hijkzzz/pymarl2/issues/46
# Rebuilt in our own words: a multi-agent PPO learner (pymarl style, recurrent agents and critic unrolled over time) computes old values, GAE advantages and targets once before its mini-epoch loop and reuses them in every mini-epoch's actor and critic losses.
# Mechanism: forward hoisted out of loop
import copy

import torch as th
from torch.optim import Adam

from components.episode_buffer import EpisodeBatch
from controllers.n_controller import NMAC
from utils.rl_utils import build_gae_targets


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
            mask_agent, old_values, self.args.gamma, self.args.gae_lambda)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-6)

        for _ in range(self.args.mini_epochs):
            values = self.unroll(self.critic, batch, batch.max_seq_length - 1)
            values_clipped = old_values[:, :-1] + (values - old_values[:, :-1]).clamp(
                -self.args.eps_clip, self.args.eps_clip)
            td_error = th.max((values - targets.detach()) ** 2, (values_clipped - targets.detach()) ** 2)
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
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.params, self.args.grad_norm_clip)
            self.optimiser.step()

        if t_env % self.args.learner_log_interval == 0:
            self.logger.log_stat("actor_loss", actor_loss.item(), t_env)
            self.logger.log_stat("critic_loss", critic_loss.item(), t_env)
