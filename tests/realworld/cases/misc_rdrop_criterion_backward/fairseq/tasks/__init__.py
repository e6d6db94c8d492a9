# Source: https://github.com/dropreg/R-Drop/blob/9dcc8302eb9b0f112c38230864bbee807bbe1aa7/fairseq_src/fairseq/tasks/__init__.py
# Rebuilt in our own words: the task registry: `@register_task(name, dataclass=...)`
# records a FairseqTask subclass (and its config dataclass) and returns it unchanged.
from fairseq.tasks.fairseq_task import FairseqTask

TASK_REGISTRY = {}
TASK_DATACLASS_REGISTRY = {}


def register_task(name, dataclass=None):
    def register(cls):
        if name in TASK_REGISTRY:
            raise ValueError(f"Cannot register duplicate task ({name})")
        if not issubclass(cls, FairseqTask):
            raise ValueError(f"Task ({name}: {cls.__name__}) must extend FairseqTask")
        TASK_REGISTRY[name] = cls
        cls.__dataclass = dataclass
        if dataclass is not None:
            TASK_DATACLASS_REGISTRY[name] = dataclass
        return cls

    return register


__all__ = ["FairseqTask", "register_task"]
