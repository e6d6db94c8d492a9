"""The data every consumer reads: findings and their evidence chains.

Positions are 1-based lines and 0-based columns counted in Unicode code points
(not the UTF-8 byte offsets `ast` reports); the language server converts them to
the client's position encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 0-based, code points

    def to_json(self) -> dict:
        return {"line": self.line, "column": self.column}


@dataclass(frozen=True, slots=True, order=True)
class Span:
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, col: int, end_line: int, end_col: int) -> Span:
        return cls(Position(line, col), Position(end_line, end_col))

    def contains(self, line: int, column: int) -> bool:
        return (
            (self.start.line, self.start.column)
            <= (line, column)
            <= (
                self.end.line,
                self.end.column,
            )
        )

    def to_json(self) -> dict:
        return {"start": self.start.to_json(), "end": self.end.to_json()}


class Role(str, Enum):
    """What an evidence step shows; fixes and hovers key on it."""

    BUILT = "built"  # where the graph (or the value carrying it) is built
    CARRIED = "carried"  # where a value crosses into the next iteration
    STORED = "stored"  # where graph-carrying state is stored on an object (self.x = ...)
    SHARED = "shared"  # where one graph feeds two losses
    CALL = "call"  # a call that leads into a function holding a later step
    FREED = "freed"  # the backward that freed the saved tensors
    FAILS = "fails"  # the backward that reaches the freed graph
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Step:
    span: Span
    message: str
    role: Role = Role.NOTE
    # The source name this step is about (`hidden`, `self.h`, `total_loss`), for fixes.
    name: str | None = None
    # Another file, when the step lies outside the analysed one (cross-file summaries).
    path: str | None = None
    # The notebook cell (1-based over all cells) the span's lines count from, if any.
    cell: int | None = None

    def to_json(self) -> dict:
        out = {"range": self.span.to_json(), "message": self.message}
        if self.path:
            out["path"] = self.path
        if self.cell is not None:
            out["cell"] = self.cell
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    message: str
    span: Span
    evidence: tuple[Step, ...] = ()
    # A finer shape of the problem, for fixes and hovers: e.g. "carried-state",
    # "hoisted-forward", "module-state", "accumulated", "shared-graph", "same-tensor", "gan".
    kind: str = ""
    path: str = ""
    # The loop whose iterations the graph crosses (AG001), when there is one.
    loop: Span | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    # The notebook cell (1-based over all cells) the span's lines count from, if any.
    cell: int | None = None

    def sort_key(self) -> tuple:
        return (
            self.path,
            self.cell or 0,
            self.span.start.line,
            self.span.start.column,
            self.code,
            self.message,
        )

    def steps(self, role: Role) -> list[Step]:
        return [s for s in self.evidence if s.role is role]
