# Source: https://github.com/oscarknagg/few-shot/issues/6
# Rebuilt in our own words: a functional MAML step adapts fast weights per task, backpropagates each query loss with retain_graph=True, takes autograd.grad of the same loss, and for second order backpropagates the stacked task losses once more.
# Mechanism: retain_graph on first of two passes
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn


def episode_labels(k_way, per_class):
    return torch.arange(k_way).repeat_interleave(per_class)


class TinyLearner(nn.Module):
    def __init__(self, n_in, hidden, k_way):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.out = nn.Linear(hidden, k_way)

    def forward(self, x):
        return self.out(torch.relu(self.fc1(x)))

    def functional_forward(self, x, weights):
        h = F.relu(F.linear(x, weights["fc1.weight"], weights["fc1.bias"]))
        return F.linear(h, weights["out.weight"], weights["out.bias"])


def meta_step(model, optimiser, loss_fn, x, n_shot, k_way, q_queries, order, inner_steps, inner_lr, train):
    create_graph = (order == 2) and train
    task_grads = []
    task_losses = []
    for episode in x:
        support = episode[: n_shot * k_way]
        query = episode[n_shot * k_way:]
        fast = OrderedDict(model.named_parameters())
        for _ in range(inner_steps):
            logits = model.functional_forward(support, fast)
            loss = loss_fn(logits, episode_labels(k_way, n_shot))
            grads = torch.autograd.grad(loss, fast.values(), create_graph=create_graph)
            fast = OrderedDict((name, w - inner_lr * g) for ((name, w), g) in zip(fast.items(), grads))

        logits = model.functional_forward(query, fast)
        loss = loss_fn(logits, episode_labels(k_way, q_queries))
        loss.backward(retain_graph=True)

        task_losses.append(loss)
        grads = torch.autograd.grad(loss, fast.values(), create_graph=create_graph)
        task_grads.append({name: g for ((name, _), g) in zip(fast.items(), grads)})

    if order == 1:
        if train:
            mean_grads = {k: torch.stack([g[k] for g in task_grads]).mean(0) for k in task_grads[0]}
            optimiser.zero_grad()
            for name, param in model.named_parameters():
                param.grad = mean_grads[name].detach().clone()
            optimiser.step()
        return torch.stack(task_losses).mean()

    optimiser.zero_grad()
    meta_loss = torch.stack(task_losses).mean()
    if train:
        meta_loss.backward()
        optimiser.step()
    return meta_loss


n_shot, k_way, q_queries = 2, 3, 2
learner = TinyLearner(n_in=6, hidden=10, k_way=k_way)
meta_opt = torch.optim.Adam(learner.parameters(), lr=1e-3)
for it in range(3):
    batch = torch.randn(4, n_shot * k_way + q_queries * k_way, 6)
    order = 2 if it < 2 else 1
    value = meta_step(learner, meta_opt, F.cross_entropy, batch, n_shot, k_way, q_queries,
                      order=order, inner_steps=2, inner_lr=0.1, train=True)
    print(it, order, value.item())
