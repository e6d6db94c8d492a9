"""Library layers no row describes, as their own source says (library_summaries.py).

When the code builds an object of an installed library's class (`EvolveGCNO(4)`), the
class's summary says which `self` attributes its `forward` keeps between calls, and from
what: the module's own parameters (EvolveGCNO's weight, evolved by a GRU from the last
one) or its inputs. Such a layer is run like a keeps-state row's: each call reads what
the previous call kept, so a loop across epochs back-propagates the first epoch's graph
again. The kept attributes are the object's own (`layer.weight`): assigning them
(`model.recurrent.weight = model.recurrent.weight.detach()`, `= None`) resets them, as
does a method of the class that sets them to a constant or detaches them
(`reinitialize_weight()`).

State kept from the inputs only (Qwen's `rope_deltas`, from integer ids) carries only
what the inputs carry: nothing, for token ids. Only classes of an installed distribution
are asked about (not torch, not the project, not the standard library), only for names
that look like classes, and each answer is cached by the summaries (memory and disk).

Which environment's libraries: the summaries `summaries_from(...)` installs for the
analysis (a workspace's, whose interpreter the CLI's `--python` or the editor chose), else
the running interpreter's.
"""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

log = logging.getLogger(__name__)

_SUMMARIES: ContextVar = ContextVar("autograd_lint_library_summaries", default=None)
_DEFAULT = None  # the running interpreter's summaries, made on first use
NOT_ASKED = frozenset({"torch"})  # its classes are modelled by the analysis itself


@contextmanager
def summaries_from(summaries):
    """Analyse with these library summaries (None: the running interpreter's)."""
    token = _SUMMARIES.set(summaries)
    try:
        yield
    finally:
        _SUMMARIES.reset(token)


def summaries_of(workspace):
    """The summaries to analyse a workspace's file with: its own where its interpreter is
    another than the one running us (`--python`, the editor's choice), else None (the
    running interpreter's, one set for the whole process)."""
    environment = getattr(workspace, "environment", None)
    if environment is None or environment.python == sys.executable:
        return None
    return workspace.library_summaries


def current_summaries():
    global _DEFAULT
    found = _SUMMARIES.get()
    if found is not None:
        return found
    if _DEFAULT is None:
        from ..environment import Environment
        from ..library_summaries import LibrarySummaries

        _DEFAULT = LibrarySummaries(Environment(None))
    return _DEFAULT


@dataclass(frozen=True)
class SummaryState:
    """What a summarised class keeps, shaped like a keeps-state effect where it is read."""

    qualified: str
    kept: tuple  # of library_models.state.KeptAttribute
    resets: tuple[str, ...] = ()  # ".method" names that reset the kept attributes
    parameters: tuple[str, ...] = ()  # forward's positional parameters, self left out

    def get(self, name: str, default=None):
        if name == "attributes":
            return tuple(k.name for k in self.kept)
        if name == "reset-by":
            return self.resets
        return default

    @property
    def from_module(self) -> bool:
        return any(k.with_module for k in self.kept)


def is_installed_class(qualified: str | None) -> bool:
    """Whether the name looks like a class (`snntorch.Leaky`) of an installed distribution
    other than torch: the only classes whose source is read."""
    if not qualified or "." not in qualified:
        return False
    top, last = qualified.partition(".")[0], qualified.rpartition(".")[2]
    if top in NOT_ASKED or not last[:1].isupper():
        return False
    environment = current_summaries().environment
    top_file = environment.resolve_module_file(top)
    return top_file is not None and environment.distribution_of(top_file) is not None


def _class_state(qualified: str | None):
    """The summary of an installed library's class (None: not one, or not found)."""
    if not is_installed_class(qualified):
        return None
    return current_summaries().class_state(qualified)


def is_library_module(qualified: str | None) -> bool:
    """Whether an installed library's class has a `forward` of its own or inherited (a
    layer: spikingjelly's `layer.Conv2d`), so its objects are modules."""
    try:
        state = _class_state(qualified)
    except Exception:  # noqa: BLE001 - a library we cannot read costs its findings only
        log.exception("autograd-lint: could not summarise %s", qualified)
        return False
    return state is not None and bool(state.parameters)


def summary_state(qualified: str | None) -> SummaryState | None:
    """The state an installed library's class keeps between forward calls, or None."""
    summaries = current_summaries()
    try:
        state = _class_state(qualified)
        if state is None or not state.kept:
            return None
        resets = summaries.reset_methods(qualified, tuple(k.name for k in state.kept))
    except Exception:  # noqa: BLE001 - a library we cannot read costs its findings only
        log.exception("autograd-lint: could not summarise %s", qualified)
        return None
    resets = tuple(f".{m}" for m in resets)
    return SummaryState(qualified, state.kept, resets, state.parameters)


def bound_inputs(call, args: list, parameters: tuple[str, ...]) -> dict[str, object] | None:
    """forward's parameter name -> the argument passed for it ("*": the rest), or None
    when the values do not line up with the call's text."""
    if call is None or len(args) != len(call.args) + len(call.keywords):
        return None
    if any(type(a).__name__ == "Starred" for a in call.args):
        return None
    bound: dict[str, list] = {}
    for index, value in enumerate(args[: len(call.args)]):
        name = parameters[index] if index < len(parameters) else "*"
        bound.setdefault(name, []).append(value)
    for keyword, value in zip(call.keywords, args[len(call.args) :]):
        bound.setdefault(keyword.arg or "*", []).append(value)
    return bound
