# Source: https://github.com/microsoft/voxelpose-pytorch/issues/47
# Rebuilt in our own words: a multi-view 3D pose trainer steps the 2D + regression losses every batch, while the root-localisation loss is summed over several batches and backpropagated once every few steps, as the repository's train loop does.
# Mechanism: accumulated loss backpropagated
import time
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AverageMeter:
    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class MultiViewPose(nn.Module):
    def __init__(self, n_joints=3):
        super().__init__()
        self.backbone = nn.Conv2d(3, n_joints, 3, padding=1)
        self.root_net = nn.Sequential(nn.Flatten(), nn.Linear(n_joints * 8 * 8, 3))
        self.pose_net = nn.Sequential(nn.Flatten(), nn.Linear(n_joints * 8 * 8, n_joints * 3))

    def forward(self, views, meta, targets_2d, weights_2d, targets_3d):
        heatmaps = [self.backbone(v) for v in views]
        loss_2d = sum(
            ((h - t) ** 2 * w).mean() for h, t, w in zip(heatmaps, targets_2d, weights_2d)
        )
        fused = torch.stack(heatmaps).mean(0)
        centers = self.root_net(fused)
        loss_root = F.mse_loss(centers, targets_3d[:, 0])
        pred = self.pose_net(fused).view(targets_3d.shape)
        loss_pose = F.l1_loss(pred, targets_3d)
        return pred, heatmaps, centers, loss_2d, loss_root, loss_pose


def train_epoch(config, model, optimizer, loader, epoch, device=torch.device("cpu")):
    meter_2d = AverageMeter()
    meter_root = AverageMeter()
    meter_pose = AverageMeter()
    model.train()
    accum_every = 4
    pending_root_loss = 0
    tic = time.time()
    for i, (views, heat_targets, heat_weights, targets_3d, meta) in enumerate(loader):
        pred, heatmaps, centers, loss_2d, loss_root, loss_pose = model(
            views=views,
            meta=meta,
            targets_2d=heat_targets,
            weights_2d=heat_weights,
            targets_3d=targets_3d[0],
        )
        loss_2d = loss_2d.mean()
        loss_root = loss_root.mean()
        loss_pose = loss_pose.mean()
        meter_2d.update(loss_2d.item())
        meter_root.update(loss_root.item())
        meter_pose.update(loss_pose.item())

        if loss_pose > 0:
            optimizer.zero_grad()
            (loss_2d + loss_pose).backward()
            optimizer.step()

        if pending_root_loss > 0 and (i + 1) % accum_every == 0:
            optimizer.zero_grad()
            pending_root_loss.backward()  # realworld: fails
            optimizer.step()
            pending_root_loss = 0.0
        else:
            pending_root_loss += loss_root / accum_every

        if i % config.PRINT_FREQ == 0:
            print(epoch, i, meter_2d.avg, meter_root.avg, meter_pose.avg, time.time() - tic)


def make_batch(n_views=2, b=2, j=3):
    views = [torch.rand(b, 3, 8, 8) for _ in range(n_views)]
    targets_2d = [torch.rand(b, j, 8, 8) for _ in range(n_views)]
    weights_2d = [torch.ones(b, j, 1, 1) for _ in range(n_views)]
    targets_3d = [torch.randn(b, j, 3)]
    return views, targets_2d, weights_2d, targets_3d, {}


model = MultiViewPose()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
train_epoch(SimpleNamespace(PRINT_FREQ=100), model, optimizer, [make_batch() for _ in range(5)], 0)
