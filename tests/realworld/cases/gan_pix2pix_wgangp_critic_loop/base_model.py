# Source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/blob/07cff558a43d46a7d5d3617cbfdeed88e208b3ac/models/base_model.py
# Rebuilt in our own words: the parts of the repository's abstract model class a model
# uses while training: the constructor keeps the options, the device and the empty lists
# of names and optimizers; `set_requires_grad` switches every parameter of the given
# networks on or off.
import os
from abc import ABC, abstractmethod

import torch


class BaseModel(ABC):
    def __init__(self, opt):
        self.opt = opt
        self.gpu_ids = opt.gpu_ids
        self.isTrain = opt.isTrain
        self.device = torch.device(f"cuda:{self.gpu_ids[0]}") if self.gpu_ids else torch.device("cpu")
        self.save_dir = os.path.join(opt.checkpoints_dir, opt.name)
        self.loss_names = []
        self.model_names = []
        self.visual_names = []
        self.optimizers = []
        self.image_paths = []
        self.metric = 0

    @abstractmethod
    def set_input(self, input):
        pass

    @abstractmethod
    def forward(self):
        pass

    @abstractmethod
    def optimize_parameters(self):
        pass

    def set_requires_grad(self, nets, requires_grad=False):
        if not isinstance(nets, list):
            nets = [nets]
        for net in nets:
            if net is not None:
                for param in net.parameters():
                    param.requires_grad = requires_grad
