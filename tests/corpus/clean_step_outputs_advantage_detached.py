# runnable
# The twin of step_outputs_backpropagated_after_loop.py, fixed as PPO code does it: the
# advantage is taken from the critic's value without its history (`v.detach()`), so the
# policy loss after the episode goes through the policy's graphs only.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
critic = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
policy = torch.nn.Linear(4, 2)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.01)
policy_opt = torch.optim.SGD(policy.parameters(), lr=0.01)
for episode in range(2):
    surrogates = []
    for t in range(3):
        s = torch.randn(4)
        probs = torch.softmax(policy(s), dim=-1)
        v = critic(s)
        advantage = 1.0 - v.detach()
        critic_opt.zero_grad()
        F.mse_loss(v, torch.ones(1)).backward()
        critic_opt.step()
        surrogates.append(probs[0] * advantage)
    objective = torch.stack(surrogates).mean()
    policy_opt.zero_grad()
    (-objective).backward()
    policy_opt.step()
