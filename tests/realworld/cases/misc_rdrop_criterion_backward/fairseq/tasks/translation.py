# Source: https://github.com/dropreg/R-Drop/blob/9dcc8302eb9b0f112c38230864bbee807bbe1aa7/fairseq_src/fairseq/tasks/translation.py
# Rebuilt in our own words: the translation task: its config dataclass (a few of the
# repository's fields) and a task that keeps the source and target dictionaries and
# exposes them as `source_dictionary` / `target_dictionary` (the criterion reads its
# padding index from the latter). Data loading and generation are left out.
from dataclasses import dataclass, field
from typing import Optional

from fairseq.tasks import FairseqTask


@dataclass
class TranslationConfig:
    data: Optional[str] = field(default=None, metadata={"help": "colon separated data directories"})
    source_lang: Optional[str] = field(default=None, metadata={"help": "source language"})
    target_lang: Optional[str] = field(default=None, metadata={"help": "target language"})
    max_source_positions: int = field(default=1024, metadata={"help": "max source tokens"})
    max_target_positions: int = field(default=1024, metadata={"help": "max target tokens"})


class TranslationTask(FairseqTask):
    def __init__(self, cfg, src_dict, tgt_dict):
        super().__init__(cfg)
        self.src_dict = src_dict
        self.tgt_dict = tgt_dict

    @property
    def source_dictionary(self):
        return self.src_dict

    @property
    def target_dictionary(self):
        return self.tgt_dict
