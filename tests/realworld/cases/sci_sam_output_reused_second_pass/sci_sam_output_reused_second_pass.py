# Source: https://github.com/davda54/sam/issues/45
# Rebuilt in our own words: a classifier is trained with the two-step SAM optimizer, computing the network output once per batch and reusing it for the loss of the second (perturbed-weights) pass.
# Mechanism: shared output two backwards
import torch
from sam import SAM


def train(loader, model, criterion, optimizer, epoch, meter):
    model.train()
    for step, (images, labels) in enumerate(loader):
        logits = model(images)

        loss = criterion(logits, labels)
        loss.backward()
        optimizer.first_step(zero_grad=True)

        criterion(logits, labels).backward()
        optimizer.second_step(zero_grad=True)

        top1 = (logits.argmax(dim=1) == labels).float().mean()
        meter.update(loss.item(), top1.item(), images.size(0))
