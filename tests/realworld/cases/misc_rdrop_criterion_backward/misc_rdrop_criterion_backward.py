# Source: https://github.com/dropreg/R-Drop/issues/8
# Rebuilt in our own words: a fairseq plug-in for consistency-regularised summarisation; the criterion runs the doubled batch, adds a KL term and calls optimizer.backward itself, and the task's train_step also calls optimizer.backward on the loss it gets back
# Mechanism: callee calls backward
import torch
import torch.nn.functional as F
from fairseq.criterions import FairseqCriterion, register_criterion
from fairseq.tasks import register_task
from fairseq.tasks.translation import TranslationTask, TranslationConfig


def smoothed_nll(lprobs, target, eps, ignore_index):
    target = target.unsqueeze(-1)
    nll = -lprobs.gather(dim=-1, index=target)
    smooth = -lprobs.sum(dim=-1, keepdim=True)
    pad = target.eq(ignore_index)
    nll = nll.masked_fill(pad, 0.0).sum()
    smooth = smooth.masked_fill(pad, 0.0).sum()
    return (1.0 - eps) * nll + eps / lprobs.size(-1) * smooth, nll


@register_criterion("twin_dropout_ce")
class TwinDropoutCriterion(FairseqCriterion):
    def __init__(self, task, label_smoothing=0.1):
        super().__init__(task)
        self.eps = label_smoothing

    def symmetric_kl(self, model, net_output, pad_mask):
        logp = model.get_normalized_probs(net_output, log_probs=True)
        prob = model.get_normalized_probs(net_output, log_probs=False)
        p, q = logp.chunk(2, dim=0)
        p_t, q_t = prob.chunk(2, dim=0)
        kl_pq = F.kl_div(p, q_t, reduction="none").masked_fill(pad_mask, 0.0).sum()
        kl_qp = F.kl_div(q, p_t, reduction="none").masked_fill(pad_mask, 0.0).sum()
        return (kl_pq + kl_qp) / 2

    def forward_twin(self, model, sample, optimizer, alpha, ignore_grad):
        net_in = sample["net_input"]
        doubled = {k: torch.cat([v, v.clone()], 0) for k, v in net_in.items()}
        net_output = model(**doubled)
        lprobs = model.get_normalized_probs(net_output, log_probs=True)
        target = model.get_targets(sample, net_output)
        pad_mask = target.unsqueeze(-1).eq(self.padding_idx)
        target = torch.cat([target, target.clone()], dim=0)
        loss, nll = smoothed_nll(lprobs.view(-1, lprobs.size(-1)), target.view(-1), self.eps, self.padding_idx)
        loss = loss + alpha * self.symmetric_kl(model, net_output, pad_mask)
        if ignore_grad:
            loss = loss * 0
        optimizer.backward(loss)
        log = {"loss": loss.item(), "nll_loss": nll.item(), "ntokens": sample["ntokens"]}
        return loss, sample["ntokens"], log


@register_task("twin_dropout_summarization", dataclass=TranslationConfig)
class TwinDropoutTask(TranslationTask):
    def __init__(self, cfg, src_dict, tgt_dict):
        super().__init__(cfg, src_dict, tgt_dict)
        self.alpha = getattr(cfg, "reg_alpha", 0.7)

    def train_step(self, sample, model, criterion, optimizer, update_num, ignore_grad=False):
        model.train()
        model.set_num_updates(update_num)
        loss, sample_size, log = criterion.forward_twin(model, sample, optimizer, self.alpha, ignore_grad)
        if ignore_grad:
            loss = loss * 0
        optimizer.backward(loss)
        return loss, sample_size, log
