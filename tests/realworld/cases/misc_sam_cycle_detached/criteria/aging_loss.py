# Source: https://github.com/yuval-alaluf/SAM/blob/c1895aef275e702fba7560284dc16df60d65210e/criteria/aging_loss.py
# Rebuilt in our own words: the aging loss: a pretrained age classifier (DEX VGG in the
# repository, models/dex_vgg.py; a small stand-in here) loaded from a checkpoint and put
# in eval mode; `extract_ages` resizes images to 224x224 and takes the expected age of
# its softmax; the loss is the squared error between the output's ages and the targets.
import torch
import torch.nn.functional as F
from torch import nn


class AgeClassifier(nn.Module):
    def __init__(self, n_ages=101):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 7, stride=4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                      nn.Flatten())  # fmt: skip
        self.fc8 = nn.Linear(8, n_ages)

    def forward(self, x):
        return {"fc8": self.fc8(self.features(x))}


class AgingLoss(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.age_net = AgeClassifier()
        checkpoint = torch.load(opts.age_predictor_path, map_location="cpu")["state_dict"]
        self.age_net.load_state_dict({k.replace("-", "_"): v for k, v in checkpoint.items()})
        self.age_net.eval()
        self.opts = opts

    def predicted_age(self, logits):
        probabilities = F.softmax(logits, dim=1)
        ages = torch.arange(logits.size(1), dtype=probabilities.dtype, device=logits.device)
        return (probabilities * ages).sum(dim=1)

    def extract_ages(self, x):
        x = F.interpolate(x, size=(224, 224), mode="bilinear")
        return self.predicted_age(self.age_net(x)["fc8"])

    def forward(self, y_hat, y, target_ages):
        output_ages = self.extract_ages(y_hat) / 100.0
        return F.mse_loss(output_ages, target_ages)
