# Source: https://github.com/EasonApolo/mstn/issues/7
# Rebuilt in our own words: a moving-semantic-transfer domain adaptation script computes the discriminator loss and the feature/classifier loss from one forward, backpropagates the discriminator loss with retain_graph=True, steps its optimizer, then backpropagates the feature loss
# Mechanism: optimizer step between backwards of shared graph
import torch
import torch.nn as nn
import torch.nn.functional as F

from dataset import OfficeDomain


class TransferNet(nn.Module):
    def __init__(self, n_class=31, feat_dim=256):
        super().__init__()
        self.n_class = n_class
        self.features = nn.Sequential(nn.Conv2d(3, 64, 5, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.bottleneck = nn.Linear(64 * 16, feat_dim)
        self.classifier = nn.Linear(feat_dim, n_class)
        self.disc = nn.Sequential(nn.Linear(feat_dim, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1))
        self.s_centroid = torch.zeros(n_class, feat_dim)
        self.t_centroid = torch.zeros(n_class, feat_dim)

    def forward(self, x):
        feat = self.bottleneck(self.features(x))
        score = self.classifier(feat)
        return feat, score, F.softmax(score, dim=1)

    def forward_D(self, feat):
        return self.disc(feat)

    def adloss(self, s_logit, t_logit, s_feat, t_feat, y_s, t_prob, decay=0.3):
        bce = nn.BCEWithLogitsLoss()
        D_loss = bce(s_logit, torch.ones_like(s_logit)) + bce(t_logit, torch.zeros_like(t_logit))
        G_loss = bce(t_logit, torch.ones_like(t_logit))
        y_t = t_prob.argmax(dim=1)
        s_onehot = F.one_hot(y_s, self.n_class).float()
        t_onehot = F.one_hot(y_t, self.n_class).float()
        s_count = s_onehot.sum(0).clamp(min=1).unsqueeze(1)
        t_count = t_onehot.sum(0).clamp(min=1).unsqueeze(1)
        s_now = s_onehot.t() @ s_feat / s_count
        t_now = t_onehot.t() @ t_feat / t_count
        s_centroid = (1 - decay) * self.s_centroid + decay * s_now
        t_centroid = (1 - decay) * self.t_centroid + decay * t_now
        semantic_loss = F.mse_loss(s_centroid, t_centroid)
        self.s_centroid = s_centroid.detach()
        self.t_centroid = t_centroid.detach()
        return G_loss, D_loss, semantic_loss

    def get_optimizer(self, lr):
        base = list(self.features.parameters()) + list(self.bottleneck.parameters()) + list(self.classifier.parameters())
        return torch.optim.SGD(base, lr=lr, momentum=0.9), torch.optim.SGD(self.disc.parameters(), lr=lr, momentum=0.9)


model = TransferNet()
opt, opt_D = model.get_optimizer(1e-3)
s_loader = torch.utils.data.DataLoader(OfficeDomain("amazon"), batch_size=32, shuffle=True, drop_last=True)
t_loader = torch.utils.data.DataLoader(OfficeDomain("webcam"), batch_size=32, shuffle=True, drop_last=True)

for epoch in range(10000):
    model.train()
    lamb = 2.0 / (1.0 + torch.exp(torch.tensor(-10.0 * epoch / 10000))) - 1
    xs, ys = next(iter(s_loader))
    xt, _ = next(iter(t_loader))
    s_feat, s_score, s_prob = model(xs)
    t_feat, t_score, t_prob = model(xt)
    C_loss = F.cross_entropy(s_score, ys)
    s_logit, t_logit = model.forward_D(s_feat), model.forward_D(t_feat)
    G_loss, D_loss, semantic_loss = model.adloss(s_logit, t_logit, s_feat, t_feat, ys, t_prob)
    F_loss = C_loss + lamb * G_loss + lamb * semantic_loss

    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()
    opt.zero_grad()
    F_loss.backward(retain_graph=True)
    opt.step()
