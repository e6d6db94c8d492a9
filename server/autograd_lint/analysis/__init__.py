"""Pure analysis: source text in, findings out. No LSP, no torch."""

from .engine import AnalysisCache, analyze
from .model import Finding, Position, Role, Severity, Span, Step

__all__ = ["AnalysisCache", "Finding", "Position", "Role", "Severity", "Span", "Step", "analyze"]
