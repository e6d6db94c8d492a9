# runnable
# Rebuilt from chxy95/Deep-Mutual-Learning issue 5: every peer network's output goes into
# a list, then each peer back-propagates its own output's loss plus a term towards the
# other peers' outputs taken without history. `logits[i]` of peer i is only in peer i's
# graph: peer j's backward never frees it.
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
        logits.append(net(x))
    for i in range(len(peers)):
        loss = F.cross_entropy(logits[i], labels)
        for j in range(len(peers)):
            if j != i:
                loss = loss + F.mse_loss(logits[i], logits[j].detach())
        optimizers[i].zero_grad()
        loss.backward()
        optimizers[i].step()
