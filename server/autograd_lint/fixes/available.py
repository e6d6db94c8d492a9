"""The rewrite engine, or, in a Python without libcst, the fixes that need no parser.

The VS Code extension runs the server from the pure-Python libraries it bundles (pygls,
lsprotocol, attrs, cattrs) with the user's own interpreter, so that the first squiggle needs
no download. libcst is compiled per platform and Python version: a bundle without it (the
universal VSIX, or an interpreter its platform build does not cover) still gets diagnostics
and hovers, and from the light bulb "Ignore AG00x on this line", which is plain text; the
rewrites come back as soon as libcst can be imported. The server says so once in its log.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType, SimpleNamespace

from ..analysis.model import Finding
from .ignore import ignore_fix
from .model import Fix

log = logging.getLogger(__name__)

MISSING_LIBCST = (
    "quick fixes other than 'Ignore' need libcst, which {python} cannot import ({error}); "
    "install it there (python -m pip install libcst), or in VS Code run "
    "'autograd-lint: Install Bundled Server' (it downloads libcst once)"
)

_engine: ModuleType | SimpleNamespace | None = None


def rewrite_engine() -> ModuleType | SimpleNamespace:
    """`fixes.engine` (fixes_for, fix_all, apply_fixes), or its ignore-only stand-in."""
    global _engine
    if _engine is None:
        try:
            from . import engine
        except ImportError as error:
            if not _is_libcst(error):
                raise
            log.warning(MISSING_LIBCST.format(python=sys.executable, error=error))
            _engine = SimpleNamespace(
                fixes_for=ignore_only_fixes, fix_all=no_rewrites, rewrites_available=False
            )
        else:
            _engine = engine
    return _engine


def rewrites_available() -> bool:
    return getattr(rewrite_engine(), "rewrites_available", True)


def _is_libcst(error: ImportError) -> bool:
    name = error.name or ""
    return name == "libcst" or name.startswith("libcst.")


def ignore_only_fixes(source: str, finding: Finding) -> list[Fix]:
    if finding.code == "AG000":
        return []  # as the engine: a syntax error is fixed by finishing the code
    ignore = ignore_fix(source, finding)
    return [ignore] if ignore is not None else []


def no_rewrites(
    source: str, findings: Iterable[Finding], **_options
) -> tuple[str, Sequence[Fix], list[Finding]]:
    """fix-all without libcst: nothing applied (an ignore comment is never a fix-all edit)."""
    return source, [], list(findings)
