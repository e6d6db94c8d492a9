"""The server profiling itself, a developer's switch (see PROFILE_ENV)."""

from __future__ import annotations

import os

# A developer's switch: AUTOGRAD_LINT_PROFILE=PREFIX profiles the server from start to
# `exit` and writes PREFIX.<pid>.prof (pstats), to see where a keystroke's time goes in
# the real process (bench/latency.py passes the environment through).
PROFILE_ENV = "AUTOGRAD_LINT_PROFILE"


def start_profile():
    prefix = os.environ.get(PROFILE_ENV)
    if not prefix:
        return None
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    return profile, f"{prefix}.{os.getpid()}.prof"
