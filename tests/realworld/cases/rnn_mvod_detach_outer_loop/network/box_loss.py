# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/blob/dc3c0db9687cf25b74e013525dcf54c5d9be8fef/network/multibox_loss.py
# Rebuilt in our own words: the SSD multibox loss: hard negative mining picks, under
# no_grad, the background priors with the highest loss (3 per positive); the loss is the
# cross entropy over the mined priors and the smooth L1 over the positive priors' boxes,
# each over the number of positives. (The repository takes the priors and variances
# from its config; the mining of utils/box_utils.py is folded in here.)
import torch
import torch.nn as nn
import torch.nn.functional as F


def hard_negative_mining(loss, labels, neg_pos_ratio):
    positive = labels > 0
    num_neg = positive.long().sum(dim=1, keepdim=True) * neg_pos_ratio
    loss = loss.masked_fill(positive, -float("inf"))
    _, order = loss.sort(dim=1, descending=True)
    _, rank = order.sort(dim=1)
    return positive | (rank < num_neg)


class BoxLoss(nn.Module):
    def __init__(self, neg_pos_ratio=3, device=None):
        super().__init__()
        self.neg_pos_ratio = neg_pos_ratio
        self.device = device

    def forward(self, confidence, predicted_locations, labels, gt_locations):
        num_classes = confidence.size(2)
        with torch.no_grad():
            background = -F.log_softmax(confidence, dim=2)[:, :, 0]
            mask = hard_negative_mining(background, labels, self.neg_pos_ratio)
        classification = F.cross_entropy(confidence[mask, :].reshape(-1, num_classes), labels[mask],
                                         reduction="sum")  # fmt: skip
        positive = labels > 0
        predicted = predicted_locations[positive, :].reshape(-1, 4)
        expected = gt_locations[positive, :].reshape(-1, 4)
        regression = F.smooth_l1_loss(predicted, expected, reduction="sum")
        num_pos = expected.size(0)
        return regression / num_pos, classification / num_pos
