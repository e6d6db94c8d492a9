"""What the evidence adds about a call the interpreter ran in a way its text does not show.

`self.train_loss.sharded_compute_loss(...)` ran as `ShardedLoss`'s method (sole_definers.py);
`self.backward_hook(loss)` is accelerate's `Accelerator.backward` (bound_methods.py). The
interpreter notes it on the call's syntax node when it runs the call, and the report adds
the note to the steps at that call ("runs inside ...", "... frees the graph"). Weak: the
syntax trees belong to the blocks; a call run again without the reason loses its note.
"""

from __future__ import annotations

import ast
import weakref

_NOTES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def note_call(node: ast.AST, text: str | None, inside=None) -> None:
    """Say `text` of the call at `node` (None: nothing to say, any earlier note dropped);
    `inside()`: (site, message) of the library line the call runs, found when a finding
    needs it (None when the source cannot be read)."""
    if text is None:
        _NOTES.pop(node, None)
    else:
        _NOTES[node] = (text, inside)


def call_note(node: ast.AST) -> str:
    """The note of a call, with its leading space and parentheses; "" for other calls."""
    found = _NOTES.get(node)
    return f" ({found[0]})" if found else ""


def library_step(node: ast.AST):
    """(site, message) of the library line the noted call runs, or None."""
    found = _NOTES.get(node)
    return found[1]() if found and found[1] is not None else None
