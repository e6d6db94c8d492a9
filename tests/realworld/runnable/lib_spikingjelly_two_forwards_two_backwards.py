# Source: https://github.com/fangwei123456/spikingjelly/issues/318
# Rebuilt in our own words: one spiking network is run on two inputs in the same step, each output gets its own loss and its own backward and optimizer, and reset_net is only called at the end of the step.
# Mechanism: module state in library layer
import torch
import torch.nn as nn
from spikingjelly.activation_based import functional, neuron, surrogate

torch.manual_seed(0)

model = nn.Sequential(
    nn.Flatten(),
    nn.Linear(16, 8),
    neuron.LIFNode(tau=2.0, surrogate_function=surrogate.Sigmoid()),
    nn.Linear(8, 10),
    neuron.LIFNode(tau=2.0, surrogate_function=surrogate.Sigmoid()),
)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
optimizer_2 = torch.optim.Adam(model.parameters(), lr=5e-4)

trainset = [(torch.rand(4, 1, 4, 4), torch.randint(0, 10, (4,))) for _ in range(2)]
auxset = [(torch.rand(4, 1, 4, 4), torch.randint(0, 10, (4,))) for _ in range(2)]

for (x, y), (x_aux, y_aux) in zip(trainset, auxset):
    out = model(x)
    out_2 = model(x_aux)
    loss = loss_fn(out, nn.functional.one_hot(y, 10).float())
    loss_2 = loss_fn(out_2, nn.functional.one_hot(y_aux, 10).float())
    loss.backward()
    loss_2.backward()  # realworld: fails
    optimizer.step()
    optimizer_2.step()
    optimizer.zero_grad()
    optimizer_2.zero_grad()
    functional.reset_net(model)
