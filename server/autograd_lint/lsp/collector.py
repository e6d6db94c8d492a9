"""When the cyclic garbage collector runs: while the editor is quiet, not mid-keystroke.

Analysing a document allocates a few hundred thousand objects (syntax trees, the
engine's cache) and keeps most of them. With CPython's default thresholds those
allocations set off full collections in the middle of an analysis, each one walking
every live object of every open document: about 100 ms for one 5,000-line file, so
one keystroke in ten took four times as long as the others (`bench/latency.py`).

The server instead
- pauses automatic collection while it analyses a document and sends the results;
- then collects the young objects only (the garbage cycles that analysis made) and
  freezes the rest (`gc.freeze`): automatic collections of what the server allocates
  later never walk it again;
- once the editor has been quiet for `quiet_seconds`, unfreezes everything and runs
  one full collection, which frees reference cycles among the older objects; it does
  the same without waiting when the last full collection is `busy_seconds` old, so an
  editor that never pauses still gets its memory back.

Objects are still freed by reference counting the moment their last reference goes;
only reference cycles wait for the quiet moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time

QUIET_SECONDS = 2.0
BUSY_SECONDS = 30.0
SETTLE_DELAY_SECONDS = 0.01


class Collector:
    def __init__(self, quiet_seconds: float = QUIET_SECONDS, busy_seconds: float = BUSY_SECONDS):
        self.quiet_seconds = quiet_seconds
        self.busy_seconds = busy_seconds
        self.full_collections = 0
        self._last_full = time.monotonic()
        self._paused = False
        self._was_enabled = True
        self._settle_timer: asyncio.TimerHandle | None = None
        self._quiet_timer: asyncio.TimerHandle | None = None

    @contextlib.contextmanager
    def analysing(self):
        """Around one analysis: no automatic collection until the results are out."""
        if not self._paused:
            self._was_enabled = gc.isenabled()
            gc.disable()
            self._paused = True
        try:
            yield
        finally:
            self._settle_soon()

    def freeze_startup(self) -> None:
        """Freeze what importing and creating the server allocated: it lives until exit
        (uncollected, as the few cycles imports leave are not worth a full collection
        before the server may answer `initialize`)."""
        gc.freeze()
        self._last_full = time.monotonic()

    def settle(self) -> None:
        """Collect what the analyses since the last call left as garbage cycles (young
        objects only: as cheap as those analyses were small), freeze the rest, and
        collect automatically again."""
        self._cancel("_settle_timer")
        if not self._paused:
            return
        if time.monotonic() - self._last_full > self.busy_seconds:
            self.collect_now()
        else:
            gc.collect(1)
            gc.freeze()
        self._paused = False
        if self._was_enabled:
            gc.enable()
        self._after(self.quiet_seconds, "_quiet_timer", self.collect_now)

    def collect_now(self) -> None:
        """One full collection, frozen objects included (they are frozen again after)."""
        self._cancel("_quiet_timer")
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.full_collections += 1
        self._last_full = time.monotonic()

    def _settle_soon(self) -> None:
        # Not right away: the analysis' results are sent first (a pull diagnostic
        # report or a hover goes out after its handler returns).
        if self._settle_timer is None and not self._after(
            SETTLE_DELAY_SECONDS, "_settle_timer", self.settle
        ):
            self.settle()  # analysed outside the server's loop (tests, scripts)

    def _after(self, delay: float, attribute: str, callback) -> bool:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._cancel(attribute)
        setattr(self, attribute, loop.call_later(delay, callback))
        return True

    def _cancel(self, attribute: str) -> None:
        timer = getattr(self, attribute)
        if timer is not None:
            timer.cancel()
            setattr(self, attribute, None)
