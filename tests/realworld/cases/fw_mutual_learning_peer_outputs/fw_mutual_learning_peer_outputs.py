# Source: https://github.com/chxy95/Deep-Mutual-Learning/issues/5
# Rebuilt in our own words: a deep-mutual-learning trainer runs every peer network on the batch into a list of outputs, then for each peer adds a KL term towards the other peers' outputs, calls backward and steps that peer's optimizer.
# Mechanism: graph carried in container
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

from nets import small_resnet
from meters import RunningAverage


class PeerTrainer:
    def __init__(self, cfg, loaders):
        self.train_loader, self.val_loader = loaders
        self.n_peers = cfg.n_peers
        self.kl = nn.KLDivLoss(reduction="batchmean")
        self.ce = nn.CrossEntropyLoss()
        self.peers = []
        self.opts = []
        for _ in range(self.n_peers):
            net = small_resnet(num_classes=cfg.num_classes)
            self.peers.append(net)
            self.opts.append(torch.optim.SGD(net.parameters(), lr=cfg.lr, momentum=0.9, nesterov=True))

    def train_one_epoch(self, epoch):
        meters = [RunningAverage() for _ in range(self.n_peers)]
        for net in self.peers:
            net.train()
        for images, labels in self.train_loader:
            images, labels = Variable(images), Variable(labels)
            logits = []
            for net in self.peers:
                logits.append(net(images))
            for i in range(self.n_peers):
                ce = self.ce(logits[i], labels)
                mimic = 0
                for j in range(self.n_peers):
                    if j != i:
                        mimic += self.kl(F.log_softmax(logits[i], dim=1), F.softmax(logits[j], dim=1))
                loss = ce + mimic / (self.n_peers - 1)
                meters[i].update(loss.item(), images.size(0))
                self.opts[i].zero_grad()
                loss.backward()
                self.opts[i].step()
        return meters
