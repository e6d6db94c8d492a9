"""AG000 syntax-error: the file (or one top-level block of it) does not parse.

What it does
    Reports the first syntax error of a block that `ast` cannot parse. While you type,
    only the broken top-level block is affected: every other block is still analysed.

Why it matters
    Code that does not parse cannot be checked; the rest of the file still is.

Fix
    Finish or correct the statement at the reported position.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG000",
    "syntax-error",
    Severity.ERROR,
    "The code does not parse",
    title="syntax error",
    what="a block that does not parse (the rest of the file is still checked)",
    kind_severity={"not-analysed": Severity.WARNING},
)

VALID: list[str] = ["x = 1\n"]
INVALID: list[str] = ["def f(:  # expect: AG000\n    pass\n"]
