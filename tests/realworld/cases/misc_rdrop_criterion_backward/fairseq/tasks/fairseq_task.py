# Source: https://github.com/dropreg/R-Drop/blob/9dcc8302eb9b0f112c38230864bbee807bbe1aa7/fairseq_src/fairseq/tasks/fairseq_task.py
# Rebuilt in our own words: the base task's training hooks the trainer calls each update:
# `train_step` runs the criterion on the model and the sample and back-propagates the
# loss it returns through `optimizer.backward` (times zero when `ignore_grad`);
# `valid_step` runs the criterion under no_grad; `optimizer_step` steps.
import torch


class FairseqTask:
    def __init__(self, cfg, **kwargs):
        self.cfg = cfg
        self.datasets = {}
        self.dataset_to_epoch_iter = {}

    def train_step(self, sample, model, criterion, optimizer, update_num, ignore_grad=False):
        model.train()
        model.set_num_updates(update_num)
        loss, sample_size, logging_output = criterion(model, sample)
        if ignore_grad:
            loss *= 0
        optimizer.backward(loss)
        return loss, sample_size, logging_output

    def valid_step(self, sample, model, criterion):
        model.eval()
        with torch.no_grad():
            loss, sample_size, logging_output = criterion(model, sample)
        return loss, sample_size, logging_output

    def optimizer_step(self, optimizer, model, update_num):
        optimizer.step()
