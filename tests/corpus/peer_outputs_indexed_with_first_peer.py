# runnable
# Like clean_peer_outputs_indexed_by_loop.py, but the mimic term keeps the first peer's
# output with its history: peer 1's backward frees it, and peer 2's loss goes through it.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
peers = [torch.nn.Linear(4, 3) for _ in range(3)]
optimizers = [torch.optim.SGD(p.parameters(), lr=0.1) for p in peers]
for step in range(3):
    x = torch.randn(5, 4)
    labels = torch.randint(0, 3, (5,))
    logits = []
    for net in peers:
        logits.append(net(x).sigmoid())
    for i in range(len(peers)):
        loss = F.cross_entropy(logits[i], labels) + F.mse_loss(logits[i], logits[0])
        optimizers[i].zero_grad()
        loss.backward()  # expect: AG001
        optimizers[i].step()
