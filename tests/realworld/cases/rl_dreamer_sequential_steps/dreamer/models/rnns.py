# Source: https://github.com/juliusfrost/dreamer-pytorch/blob/f973caff6efc843c8dc2f2fb0c07b061b1f8ef74/dreamer/models/rnns.py
# Rebuilt in our own words: the recurrent state-space model's state (mean, std, stochastic
# and deterministic parts, as an rlpyt namedarraytuple) and the two helpers the algorithm
# uses: `get_feat` concatenates the stochastic and deterministic parts (a view of the
# state's graph), `get_dist` is the diagonal Normal over the stochastic part. (The
# transition, representation and rollout modules of this file are the agent's.)
import torch
import torch.distributions as td
from rlpyt.utils.collections import namedarraytuple

RSSMState = namedarraytuple("RSSMState", ["mean", "std", "stoch", "deter"])


def stack_states(rssm_states, dim):
    return RSSMState(
        torch.stack([state.mean for state in rssm_states], dim=dim),
        torch.stack([state.std for state in rssm_states], dim=dim),
        torch.stack([state.stoch for state in rssm_states], dim=dim),
        torch.stack([state.deter for state in rssm_states], dim=dim),
    )


def get_feat(rssm_state):
    return torch.cat((rssm_state.stoch, rssm_state.deter), dim=-1)


def get_dist(rssm_state):
    return td.independent.Independent(td.Normal(rssm_state.mean, rssm_state.std), 1)
