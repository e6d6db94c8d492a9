# Source: https://github.com/dropreg/R-Drop/blob/9dcc8302eb9b0f112c38230864bbee807bbe1aa7/fairseq_src/fairseq/criterions/__init__.py
# Rebuilt in our own words: the criterion registry: `@register_criterion(name)` records
# a FairseqCriterion subclass under its command-line name and returns it unchanged.
from fairseq.criterions.fairseq_criterion import FairseqCriterion

CRITERION_REGISTRY = {}


def register_criterion(name, dataclass=None):
    def register(cls):
        if name in CRITERION_REGISTRY:
            raise ValueError(f"Cannot register duplicate criterion ({name})")
        if not issubclass(cls, FairseqCriterion):
            raise ValueError(f"Criterion ({name}: {cls.__name__}) must extend FairseqCriterion")
        CRITERION_REGISTRY[name] = cls
        cls.__dataclass = dataclass
        return cls

    return register


__all__ = ["FairseqCriterion", "register_criterion"]
