"""Pure analysis: source text in, findings out. No LSP, no torch.

The engine (`analyze`, `AnalysisCache`) is imported when first asked for, not with the
package: a command-line run whose findings all come from the result cache reads only the
findings' classes (`model`), and the engine's import was a tenth of such a run.
"""

from .model import Finding, Position, Role, Severity, Span, Step

__all__ = ["AnalysisCache", "Finding", "Position", "Role", "Severity", "Span", "Step", "analyze"]


def __getattr__(name: str):
    if name in ("AnalysisCache", "analyze"):
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
