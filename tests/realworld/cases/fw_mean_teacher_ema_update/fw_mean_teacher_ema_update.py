# Source: https://github.com/CuriousAI/mean-teacher/issues/29
# Rebuilt in our own words: a mean-teacher semi-supervised loop (as in the repository the thread asks about): the EMA teacher's parameters are detached at creation, its logits are detached before the consistency loss, and after each optimizer step the teacher weights are blended in place from the student's.
# Mechanism: EMA weights updated outside autograd
import torch
import torch.nn as nn
import torch.nn.functional as F

from mean_teacher import architectures, ramps
from mean_teacher.utils import AverageMeterSet

NO_LABEL = -1
global_step = 0


def create_model(args, ema=False):
    model = architectures.__dict__[args.arch](num_classes=args.num_classes)
    if ema:
        for param in model.parameters():
            param.detach_()
    return model


def update_ema_variables(model, ema_model, alpha, step):
    alpha = min(1 - 1 / (step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.data.mul_(alpha).add_(param.data, alpha=1 - alpha)


def consistency_weight(args, epoch):
    return args.consistency * ramps.sigmoid_rampup(epoch, args.consistency_rampup)


def train(args, train_loader, model, ema_model, optimizer, epoch):
    global global_step
    class_criterion = nn.CrossEntropyLoss(reduction="sum", ignore_index=NO_LABEL)
    meters = AverageMeterSet()
    model.train()
    ema_model.train()
    for i, ((student_in, teacher_in), target) in enumerate(train_loader):
        batch = target.shape[0]
        teacher_logit = ema_model(teacher_in)
        student_logit = model(student_in)
        teacher_logit = teacher_logit.detach()

        class_loss = class_criterion(student_logit, target) / batch
        teacher_class_loss = class_criterion(teacher_logit, target) / batch
        cons = consistency_weight(args, epoch) * F.mse_loss(
            F.softmax(student_logit, dim=1), F.softmax(teacher_logit, dim=1), reduction="sum"
        ) / batch
        loss = class_loss + cons
        meters.update("loss", loss.item())
        meters.update("teacher_class_loss", teacher_class_loss.item())

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        update_ema_variables(model, ema_model, args.ema_decay, global_step)
