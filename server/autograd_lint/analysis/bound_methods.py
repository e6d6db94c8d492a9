"""A library object's method read without a call, and called later, does what its row says.

`policy.backward_hook = accelerator.backward` hands a model the accelerator's backward to
call from inside its forward (`self.backward_hook(segment_loss)`): the call happens far
from the object, through an attribute, yet it is `Accelerator.backward(loss)` all the same
(its row: `loss.backward()`). Reading `obj.method` of an object of a library class whose
method has a row gives a bound method that remembers the row's qualified name; calling
it, wherever it went, applies the row, as calling `obj.method(...)` at once would.
A method without a row stays what reading an unknown attribute gave before: nothing.

Such a hook is usually guarded (`if self.backward_hook is not None:`). Where the value
read is the bound method on every path (values.join_vals marks one joined with anything
else `maybe`), the guard is decided: only the branch it takes runs, so the backward in it
surely happened, as it does when the program runs. Pure: no library is imported.
"""

from __future__ import annotations

import ast
import logging
from functools import lru_cache
from pathlib import Path

from .call_notes import note_call
from .values import EMPTY, OBJECT, BoundMethod, Val

log = logging.getLogger(__name__)


def bound_library_method(owner: Val, attr: str) -> Val | None:
    """`accelerator.backward` (not called): a bound method of the row, or None."""
    # Late: library_calls imports the interpreter's parts, which import this module.
    from .library_calls import is_extern, row_for

    if owner.kind != OBJECT or not is_extern(owner.ref):
        return None
    qualified = f"{owner.ref[1]}.{attr}"
    if row_for(qualified) is None:
        return None
    return Val(EMPTY, OBJECT, BoundMethod(qualified))


def call_bound_method(interp, node: ast.Call, callee: Val, args: list[Val]) -> Val | None:
    """What calling a bound library method does (its row), or None for any other callee."""
    if not isinstance(callee.ref, BoundMethod):
        return None
    from .library_calls import row_for

    qualified = callee.ref.qualified
    row = row_for(qualified)
    if row is not None:
        backward = row.effect("backward-of-argument") is not None
        inside = (lambda: backward_in_library(qualified, row.says)) if backward else None
        note_call(node, f"`{qualified}`", inside)
    found = interp.modelled_result(node, callee.ref.qualified, args)
    return found if found is not None else interp.union(args, node, assumed=True)


def decide_set_test(interp, test: ast.expr) -> bool | None:
    """Evaluate the test of `if test:` (its one evaluation) and say whether it surely
    takes its body (True) or its else (False): when the test is `x`, `x is not None` or
    `x is None` of an `x` that holds a bound library method on every path; None when it is
    anything else."""
    left, taken = test, True
    if isinstance(test, ast.Compare):
        if not (
            len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            left = None
        else:
            left, taken = test.left, isinstance(test.ops[0], ast.IsNot)
    if not isinstance(left, (ast.Name, ast.Attribute)) or interp.state is None:
        interp.ev(test)
        return None
    # The comparison's `None` is a constant: evaluating `x` is evaluating the test.
    ref = interp.ev(left).ref
    return taken if isinstance(ref, BoundMethod) and not ref.maybe else None


def backward_in_library(qualified: str, says: str):
    """(site, message): the line of the installed library's method that calls
    `backward()` (accelerate's `loss.backward(**kwargs)` in `Accelerator.backward`), for
    the evidence; None when its source cannot be found."""
    from .library_distributions import source_site
    from .library_layers import current_summaries

    owner, _, method = qualified.rpartition(".")
    try:
        summaries = current_summaries()
        for defined in summaries.class_chain(owner):
            module, _, name = defined.rpartition(".")
            path = summaries.environment.resolve_module_file(module)
            line = _backward_line(str(path), _mtime(path), name, method) if path else None
            site = source_site(str(path), line) if line is not None else None
            if site is not None:
                return site, f"`{name}.{method}`: {says}"
    except Exception:  # noqa: BLE001 - evidence we cannot find costs only its step
        log.exception("autograd-lint: could not find %s in its library", qualified)
    return None


def _mtime(path) -> float:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return 0.0


@lru_cache(maxsize=64)
def _backward_line(path: str, mtime: float, class_name: str, method: str) -> int | None:
    """The line of `class_name.method` in the file that calls `.backward(` (of the
    method's first argument if one does), else the `def` line."""
    try:
        tree = ast.parse(Path(path).read_bytes(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if (
                    isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and item.name == method
                ):
                    # `loss.backward(**kwargs)` of its own argument first, then any other.
                    given = [a.arg for a in item.args.args[1:2]]
                    calls = sorted(
                        (not (isinstance(n.func.value, ast.Name) and n.func.value.id in given),
                         n.lineno)
                        for n in ast.walk(item)
                        if isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute)
                        and n.func.attr == "backward"
                    )  # fmt: skip
                    return calls[0][1] if calls else item.lineno
    return None
