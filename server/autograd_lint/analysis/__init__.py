"""Pure analysis: source text in, findings out. No LSP, no torch."""

from .engine import analyze
from .model import Finding, Position, Role, Severity, Span, Step

__all__ = ["Finding", "Position", "Role", "Severity", "Span", "Step", "analyze"]
