"""Quick fixes for findings, each one a lossless rewrite turned into minimal text edits.

    fixes_for(source, finding) -> list[Fix]       # computed on demand, for one finding
    apply_fixes(source, fixes) -> str
    fix_all(source, findings) -> (new_source, applied, remaining)

Positions follow the analysis model: 1-based lines, 0-based code-point columns.
"""

from .model import Fix, TextEdit

__all__ = ["Fix", "TextEdit", "apply_fixes", "fix_all", "fixes_for"]


def __getattr__(name: str):
    # The rewrites need libcst, whose import costs more than the rest of the language
    # server's start-up; load it with the first fix asked for.
    if name in ("apply_fixes", "fix_all", "fixes_for"):
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
