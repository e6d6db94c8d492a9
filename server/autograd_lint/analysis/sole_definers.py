"""A method called on an object we cannot see, run as the one class of the file that defines it.

A trainer often gets its helpers as parameters: `criterion.forward_twin(model, sample,
optimizer)` in a fairseq task's `train_step`, `self.train_loss.sharded_compute_loss(batch,
output, ...)` in an OpenNMT-style trainer whose `__init__` was handed the loss object. The
object's class is nowhere in sight, but the method is: when exactly one class of the file
defines a method of that name, that call either runs that definition (on an instance of
the class or of a subclass that does not override it) or raises AttributeError, so the
backward the method issues is part of the caller's step, and a second backward after it,
or the next iteration's, meets what it freed.

What keeps this from guessing:
- the receiver is a value we know nothing of: no class, no library class (an object of
  `onmt.Loss(...)` is the library's, whatever the file defines), no graph of its own;
- the name is no attribute of torch's own objects (torch_object_names.py: `step`,
  `detach`, `zero_grad`, `forward`... are torch's), no dunder, and exactly one class of
  the file defines it (two definers: which one runs is unknown, so nothing is run);
- the method issues a backward, directly or through the class's other methods: only then
  can running it change a verdict, and an object's other methods stay as opaque as before.

The object is built once, the way `enter_root` builds `self` for a method: its class's
`__init__` is run with the parameters its uses say they are, and it is stored back where
the receiver was read (`criterion`, `self.train_loss`), so later calls share its state.
Pure: stdlib ast only.
"""

from __future__ import annotations

import ast
import weakref

from .call_notes import note_call
from .torch_object_names import TORCH_OBJECT_NAMES
from .values import MODULE, OBJECT, TENSOR, Val


def may_be_run_by_name(method: str) -> bool:
    """Whether a call of `method` on an unseen object may run a class of the file that
    defines it: a class defining it is then a dependency of the caller (program.py)."""
    return not method.startswith("__") and method not in TORCH_OBJECT_NAMES


def sole_definer(classes: dict, method: str):
    """The one class of `classes` (name -> ClassInfo) that defines `method` itself, when
    the method issues a backward (directly, or through the class's methods); else None."""
    if not may_be_run_by_name(method):
        return None
    definers = [info for info in classes.values() if method in info.methods]
    if len(definers) != 1:
        return None
    info = definers[0]
    return info if _issues_backward(info, method, set()) else None


def _issues_backward(info, method: str, seen: set) -> bool:
    fn = info.find_method(method)
    if fn is None or method in seen:
        return False
    seen.add(method)
    from .program import function_is_relevant  # late: program imports the interpreter's parts

    if function_is_relevant(fn):
        return True
    for node in ast.walk(fn.node):
        func = node.func if isinstance(node, ast.Call) else None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and _issues_backward(info, func.attr, seen)
        ):
            return True
    return False


def call_sole_definer(interp, node: ast.Call, func: ast.Attribute, receiver: Val) -> Val | None:
    """Run `receiver.method(...)` as the sole definer's method, or None when the rules
    above do not hold (the caller then treats the call as it did)."""
    note_call(node, None)
    if (
        receiver.ref is not None
        or receiver.origins
        or receiver.kind not in (TENSOR, OBJECT, MODULE)
    ):
        return None
    info = _kept_sole_definer(interp, func.attr)
    if info is None:
        return None
    method = info.find_method(func.attr)
    if not interp.can_inline(method):
        return None
    note_call(
        node,
        f"`{info.name}.{func.attr}`: no other class here defines `{func.attr}`, so the"
        f" object is a `{info.name}`",
    )
    instance = interp.instantiate(node, info, [])
    if isinstance(func.value, (ast.Name, ast.Attribute)):
        # Stored back where it was read, so later calls share its state; a receiver read
        # from an element or a call's result (`helpers[0]`, `make()`) is met afresh.
        interp.assign_to(func.value, instance, node)
    return interp.call_function(node, method, interp.eval_arguments(node), instance)


# Per interpreter, which runs one analysis root over one program's class table: a root
# asks about the same method at every pass of its loops (68,507 questions over the
# training and library corpora). The answers end with the run, so an edit that adds or
# removes a definer is seen by the next one.
_ANSWERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _kept_sole_definer(interp, method: str):
    answers = _ANSWERS.get(interp)
    if answers is None:
        answers = _ANSWERS[interp] = {}
    if method not in answers:
        answers[method] = sole_definer(interp.classes, method)
    return answers[method]
