"""AG007 for a retained, carried graph whose weights are saved only from iteration 2 on.

Loops run two abstract passes (loops.py). With `retain_graph=True` on a graph the loop
carries, each iteration's backward walks the nodes of every earlier one. When the first
iteration's inputs have no history (a zero initial state into a GRUCell, a Linear or a
`h @ w`), its nodes keep no weight for backward; from iteration 2 on, over a state with
history, they do. So pass 2's backward meets pass 1's nodes (nothing saved) and its own
(saved, not yet stepped): no error yet. The third iteration's backward reaches pass 2's
nodes after pass 2's optimizer step and raises the in-place error (torch:
tests/corpus/retain_graph_carried_weights_saved_from_second_iteration.py). Pass 2 stands
for every later iteration, so at its end: a retained backward of pass 2 that reached pass
1's nodes reaches, one iteration later, the pass-2 nodes it reached; if an optimizer has
stepped the weights they saved since, that backward raises.
"""

from __future__ import annotations

from .report import call_text, source_of
from .stepped import ERROR_TEXT, changed_weights, report_step


def check_loop_end(interp, retained: list, second, end_state) -> None:
    """After pass 2 (`second`) of a loop: the retained backwards of its own frame whose
    next iteration reaches weights stepped since they were saved."""
    if end_state is None or not end_state.stepped:
        return
    kept = interp.state
    interp.state = end_state  # what the optimizer has stepped by the end of pass 2
    try:
        for record in retained:
            if record.frame is not interp.frame or not record.context:
                continue
            if record.context[-1] != second or not _carried(record):
                continue
            own = [o for o in record.origins if o.context == record.context]
            changed = changed_weights(interp, own)
            if changed:
                _report(interp, record, *min(changed, key=lambda pair: pair[0].seq))
    finally:
        interp.state = kept


def _carried(record) -> bool:
    """The backward reached nodes of an earlier iteration of the same loop."""
    context = record.context
    return any(
        len(o.context) == len(context) and o.context != context and o.context[:-1] == context[:-1]
        for o in record.origins
    )


def _report(interp, record, origin, step) -> None:
    report_step(
        interp,
        origin,
        step,
        record.site,
        built=f"graph built here in iteration 2 and later: `{source_of(origin.site)}` saves "
        "the module's weights (its input now has history)",
        fails=f"`{call_text(record.site.node)}` keeps that graph (`retain_graph=True`), "
        f"reaches it again in the next iteration and raises: {ERROR_TEXT}",
        reached="in a later iteration",
    )
