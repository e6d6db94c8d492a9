"""A dict literal with string keys, read back by the same literal key, is that entry.

`return {"loss": total, "mse": mse_total}` then `losses["loss"]` is `total`, exactly as
`return total, mse_total` then `out[0]` is: a model's forward, a loss helper and a
trainer's step hand their losses around in such dicts. Without the key, reading one entry
is "one of the entries" (an ELEMENT), which a backward cannot be judged on; with it, the
backward of `losses["loss"]` is the backward of `total`, and meets what an earlier
backward of the same step freed (or not: a disjoint entry is not the one read).

Only a literal whose keys are all distinct string constants (no `**other`) is keyed, and
only until it changes: storing into it, `update`, `pop`... make it a plain container again
(the interpreter rebuilds containers without this key map), so what is read is what the
literal said. Pure: stdlib ast only.
"""

from __future__ import annotations

import ast

from .values import CONTAINER, EMPTY, Val

KEYED = "keyed dict"  # the first element of such a container's ref: (KEYED, ((key, val), ...))


def keyed_dict(interp, node: ast.Dict) -> Val | None:
    """The literal as a keyed container, or None when a key is not a string constant."""
    keys = []
    for key in node.keys:
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        keys.append(key.value)
    if len(set(keys)) != len(keys):
        return None
    vals = [interp.ev(value) for value in node.values]
    origins = EMPTY.union(*(val.origins for val in vals))
    return Val(origins, CONTAINER, (KEYED, tuple(zip(keys, vals))))


def keyed_entry(base: Val, key: ast.AST) -> Val | None:
    """`d["loss"]` of a keyed container: that entry's value; None otherwise."""
    ref = base.ref
    if not (isinstance(ref, tuple) and ref[:1] == (KEYED,)):
        return None
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    return next((val for name, val in ref[1] if name == key.value), None)
