"""The machine's load while a bench runs, printed beside its numbers.

Timings taken on a shared machine mean little without it: the benches print the
load average at their start and end so a reader can tell a slow run from a busy one.
"""

from __future__ import annotations

import os


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, or "unknown" where the OS has none."""
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"
