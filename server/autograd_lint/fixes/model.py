"""What a quick fix is: a titled set of text edits in the analysis model's coordinates."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.model import Span


@dataclass(frozen=True, slots=True)
class TextEdit:
    # 1-based lines, 0-based code-point columns, like every other span in the model.
    span: Span
    new_text: str

    def to_json(self) -> dict:
        return {"range": self.span.to_json(), "newText": self.new_text}


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    code: str  # the rule it fixes: "AG001"
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    kind: str = "quickfix"
    # A short machine name of the strategy ("detach-carried", "ignore", ...): tests and
    # editors group fixes by it; titles are for people.
    strategy: str = field(default="", compare=False)

    def to_json(self) -> dict:
        return {
            "title": self.title,
            "code": self.code,
            "kind": self.kind,
            "preferred": self.preferred,
            "strategy": self.strategy,
            "edits": [edit.to_json() for edit in self.edits],
        }
