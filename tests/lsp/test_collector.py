"""The server's garbage-collection policy (lsp/collector.py)."""

import asyncio
import gc
import weakref

import pytest
from autograd_lint.lsp.collector import Collector


@pytest.fixture
def restore_gc():
    enabled = gc.isenabled()
    gc.unfreeze()  # earlier in-process analyses may have frozen objects
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_no_automatic_collection_during_an_analysis_then_young_objects_settle(restore_gc):
    collector = Collector()
    gc.enable()
    assert gc.get_freeze_count() == 0
    with collector.analysing():
        assert not gc.isenabled()
    # Outside an event loop the analysis settles at once: enabled, survivors frozen.
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_settling_waits_for_the_results_and_quiet_runs_a_full_collection(restore_gc):
    class Node:
        pass

    async def scenario():
        collector = Collector(quiet_seconds=0.5)
        with collector.analysing():
            cycle = Node()
            cycle.self = cycle  # garbage that only the cyclic collector frees
        alive = weakref.ref(cycle)
        del cycle
        assert not gc.isenabled()  # still paused: the results go out first
        await asyncio.sleep(0.05)
        assert gc.isenabled()
        # Settled: the young cycle was collected then, not left for the quiet moment.
        assert alive() is None
        assert collector.full_collections == 0
        await asyncio.sleep(0.6)
        return collector.full_collections

    gc.enable()
    assert asyncio.run(scenario()) == 1


def test_a_frozen_cycle_is_freed_by_the_quiet_full_collection(restore_gc):
    class Node:
        pass

    collector = Collector()
    gc.disable()
    cycle = Node()
    cycle.self = cycle
    alive = weakref.ref(cycle)
    del cycle
    gc.freeze()  # as if it had survived an earlier settle
    assert alive() is not None
    collector.collect_now()
    assert alive() is None


def test_a_busy_editor_still_gets_full_collections(restore_gc):
    collector = Collector(busy_seconds=0.0)
    with collector.analysing():
        pass
    assert collector.full_collections == 1


def test_nested_analyses_keep_collection_paused_until_the_last_settles(restore_gc):
    async def scenario():
        collector = Collector()
        with collector.analysing():
            with collector.analysing():
                pass
            assert not gc.isenabled()
        await asyncio.sleep(0.05)
        return gc.isenabled()

    gc.enable()
    assert asyncio.run(scenario())
