# Source: https://github.com/dropreg/R-Drop/blob/9dcc8302eb9b0f112c38230864bbee807bbe1aa7/fairseq_src/fairseq/criterions/fairseq_criterion.py
# Rebuilt in our own words: the base criterion, a torch loss module that keeps its task
# and the padding index of the task's target dictionary (-100 without one).
from torch.nn.modules.loss import _Loss


class FairseqCriterion(_Loss):
    def __init__(self, task):
        super().__init__()
        self.task = task
        if hasattr(task, "target_dictionary"):
            target = task.target_dictionary
            self.padding_idx = target.pad() if target is not None else -100
