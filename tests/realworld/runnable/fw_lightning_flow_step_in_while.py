# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/20296
# Rebuilt in our own words: a GFlowNet-style LightningModule with manual optimization rolls out a batch of environments in a while loop; the version the post reports as failing calls manual_backward and steps its optimizers inside the loop, once per environment step, using the previous step's forward log-probabilities in the per-step error.
# Mechanism: loop-carried hidden state
from typing import Any

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)


class CountingEnv:
    """Each row adds one of n_kinds items per step, or stops (action n_kinds)."""

    def __init__(self, n_rows=4, n_kinds=3, max_len=4):
        self.n_rows = n_rows
        self.n_kinds = n_kinds
        self.max_len = max_len
        self.terminal_index = n_kinds
        self.target = torch.tensor([2.0, 1.0, 0.0])
        self.reset()

    def reset(self):
        self.state = torch.zeros(self.n_rows, self.n_kinds)
        self.done = torch.zeros(self.n_rows, dtype=torch.bool)

    def step(self, actions):
        stopping = actions == self.terminal_index
        moving = (~self.done) & (~stopping)
        onehot = F.one_hot(actions.clamp(max=self.n_kinds - 1), self.n_kinds).float()
        self.state = self.state + onehot * moving[:, None].float()
        self.done = self.done | stopping | (self.state.sum(1) >= self.max_len)

    def reward(self):
        return 0.1 * ((self.state - self.target) ** 2).sum(1)


def build_envs(n_envs):
    return [CountingEnv(n_rows=n_envs) for _ in range(2)]


class FlowPolicy(nn.Module):
    def __init__(self, hidden, n_kinds=3):
        super().__init__()
        self.n_kinds = n_kinds
        self.trunk = nn.Sequential(nn.Linear(n_kinds, hidden), nn.ReLU())
        self.heads = nn.Linear(hidden, 2 * n_kinds + 1)

    def forward(self, state):
        out = self.heads(self.trunk(state))
        forward_logits = out[:, : self.n_kinds + 1]
        backward_logits = out[:, self.n_kinds + 1 :]
        return forward_logits.log_softmax(-1), backward_logits.log_softmax(-1)


class StepwiseFlowLearner(L.LightningModule):
    def __init__(self, n_envs=4, hidden=8, lr=3e-4):
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
                self.manual_backward(loss)  # realworld: fails
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


trainer = L.Trainer(
    max_epochs=1,
    limit_train_batches=3,
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
    accelerator="cpu",
)
trainer.fit(StepwiseFlowLearner(), DataLoader(torch.arange(6.0), batch_size=2))
