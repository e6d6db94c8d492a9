# Source: https://github.com/microsoft/voxelpose-pytorch/issues/47
# Rebuilt in our own words: a multi-view 3D pose trainer steps the 2D + regression losses every batch, while the root-localisation loss is summed over several batches and backpropagated once every few steps, as the repository's train loop does.
# Mechanism: accumulated loss backpropagated
import time

import torch

from utils.meters import AverageMeter


def train_epoch(config, model, optimizer, loader, epoch, device=torch.device("cuda")):
    meter_2d = AverageMeter()
    meter_root = AverageMeter()
    meter_pose = AverageMeter()
    model.train()
    accum_every = 4
    pending_root_loss = 0
    tic = time.time()
    for i, (views, heat_targets, heat_weights, targets_3d, meta) in enumerate(loader):
        pred, heatmaps, centers, loss_2d, loss_root, loss_pose = model(
            views=views, meta=meta, targets_2d=heat_targets, weights_2d=heat_weights, targets_3d=targets_3d[0]
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
            pending_root_loss.backward()
            optimizer.step()
            pending_root_loss = 0.0
        else:
            pending_root_loss += loss_root / accum_every

        if i % config.PRINT_FREQ == 0:
            print(epoch, i, meter_2d.avg, meter_root.avg, meter_pose.avg, time.time() - tic)
