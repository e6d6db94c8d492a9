# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/20296
# Rebuilt in our own words: a GFlowNet-style LightningModule with manual optimization rolls out a batch of environments in a while loop; the version the post reports as failing calls manual_backward and steps its optimizers inside the loop, once per environment step, using the previous step's forward log-probabilities in the per-step error.
# Mechanism: loop-carried hidden state
from typing import Any

import torch
import torch.nn.functional as F
import lightning as L

from envs import build_envs
from nets import FlowPolicy


class StepwiseFlowLearner(L.LightningModule):
    def __init__(self, n_envs=16, hidden=128, lr=3e-4):
        super().__init__()
        self.automatic_optimization = False
        self.envs = build_envs(n_envs)
        self.p = 0
        self.policy = FlowPolicy(hidden)
        self.lr = lr

    def configure_optimizers(self):
        trunk = torch.optim.Adam(self.policy.trunk.parameters(), lr=self.lr)
        heads = torch.optim.Adam(self.policy.heads.parameters(), lr=self.lr)
        return [trunk, heads]

    def forward(self, env):
        return self.policy(env.state)

    def get_rewards(self):
        return self.envs[self.p].reward()

    def rollout_and_learn(self, batch: Any, batch_idx: int):
        opts = self.optimizers()
        env = self.envs[self.p]
        env.reset()
        actions = None
        prev_log_rewards = torch.empty(env.done.shape[0]).type_as(env.state)
        prev_forward_logprob = None
        stop = env.terminal_index

        while not torch.all(env.done):
            active = ~env.done
            forward_logprob, back_logprob = self.forward(env)
            log_rewards = -self.get_rewards()

            if actions is not None:
                moved = actions[active]
                err = log_rewards[active] - prev_log_rewards[active]
                err = err + back_logprob[active].gather(1, moved[:, None]).squeeze(1)
                err = err + prev_forward_logprob[active, -1]
                err = err - forward_logprob[active, -1].detach()
                err = err - prev_forward_logprob[active].gather(1, moved[:, None]).squeeze(1)
                loss = F.huber_loss(err, torch.zeros_like(err), delta=1.0, reduction="mean")
                for opt in opts:
                    opt.zero_grad()
                self.manual_backward(loss)
                for opt in opts:
                    opt.step()
                self.log("step_loss", loss)

            logits = forward_logprob.detach().clone()
            if actions is None:
                logits[:, stop] = -1e9
            actions = torch.distributions.Categorical(logits=logits).sample()
            actions[env.done] = stop
            env.step(actions)
            prev_log_rewards = log_rewards
            prev_forward_logprob = forward_logprob

    def training_step(self, batch, batch_idx):
        self.rollout_and_learn(batch, batch_idx)
