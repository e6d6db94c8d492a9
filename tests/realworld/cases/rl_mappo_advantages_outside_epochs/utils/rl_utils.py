# Source: https://github.com/hijkzzz/pymarl2/blob/8ccac7c5aa134422a2e3009be735d23cdf8ce2f8/src/utils/rl_utils.py
# Rebuilt in our own words: generalised advantage estimation over (batch, time, agent):
# deltas from the rewards and the values one step on, accumulated backwards with
# gamma * lambda under the mask; the returns are the values plus the advantages. Both
# carry the graph of the values they are given.
import torch as th


def build_gae_targets(rewards, masks, values, gamma, lambd):
    batch, steps, agents, _ = values.size()
    steps -= 1
    advantages = th.zeros(batch, steps, agents, 1).to(device=values.device)
    running = th.zeros(batch, agents, 1).to(device=values.device)
    for t in reversed(range(steps)):
        delta = rewards[:, t] + values[:, t + 1] * gamma * masks[:, t] - values[:, t]
        running = delta + running * gamma * lambd * masks[:, t]
        advantages[:, t] = running
    return advantages, values[:, :steps] + advantages
