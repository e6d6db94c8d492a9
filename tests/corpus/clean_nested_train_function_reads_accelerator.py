# runnable
# Rebuilt from diffusers' textual-inversion example (research_projects/intel_opts): the
# training loop is a function nested in main() that reads main's `accelerator` and
# optimizer through its closure, and clips gradients with `accelerator.clip_grad_norm_`.
# A nested function sees the enclosing function's names: `accelerator` is the
# Accelerator, and its `clip_grad_norm_` is no in-place tensor op.
import torch
import torch.nn.functional as F
from accelerate import Accelerator


def main():
    accelerator = Accelerator(cpu=True)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    net, optimizer = accelerator.prepare(net, optimizer)
    batches = [torch.randn(2, 4) for _ in range(3)]

    def train_func(model):
        for epoch in range(2):
            model.train()
            for batch in batches:
                loss = F.mse_loss(model(batch), batch)
                accelerator.backward(loss)
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()

    train_func(net)


if __name__ == "__main__":
    main()
