# Source: https://github.com/pytorch/pytorch/issues/55368
# Rebuilt in our own words: one output of a spectral_norm layer feeds a loss that is back-propagated twice, with an optimizer step on the layer between the two passes, to avoid a second forward.
# Mechanism: retain_graph on carried graph
import torch

torch.manual_seed(0)
critic = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4))
first_opt = torch.optim.SGD(critic.parameters(), lr=1e-2)
second_opt = torch.optim.SGD(critic.parameters(), lr=5e-3)

scores = critic(torch.randn(10, 3))
objective = scores.pow(2).mean()

first_opt.zero_grad()
objective.backward(retain_graph=True)
first_opt.step()

second_opt.zero_grad()
objective.backward()  # realworld: fails
second_opt.step()
