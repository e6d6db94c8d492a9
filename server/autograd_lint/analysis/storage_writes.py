"""AG007 from the interpreter: an in-place write into a tensor an object keeps (a queue, a
buffer, a memory) after a pending graph saved it — the tensor itself, a view of it, or its
`.detach()`, which shares its storage *and its version counter*.

`torch.einsum("nc,ck->nk", q, self.queue.detach())` saves the detached queue for the
gradient of `q`; `self.queue[:, i:j] = keys.T` (under `no_grad` or not) bumps the version
both share, and the backward that needs the saved value raises "one of the variables
needed for gradient computation has been modified by an inplace operation" (MoCo's queue,
facebookresearch/moco issue 21: the fix is `self.queue.clone().detach()`, a copy).
`.data` has a version counter of its own (a write through it goes unseen by autograd:
AG006), so neither a save nor a write through `.data` counts; a `.clone()` is a new
storage. Which op saves which operand is `checks/inplace_table.py`'s "cross" rule (the
gradient of `a * b` for `b` is `a`), checked against torch there and, for einsum, in
tests/test_storage_writes.py.

Only attributes the interpreter tracks on a known object (`register_buffer`, `self.x =
...`) are storages here: a plain name may be rebound to anything between the two points.
"""

from __future__ import annotations

import ast
import functools

from .model import Role
from .report import RawFinding, RawStep, call_steps, call_text, source_of
from .values import Origin, Site, Stepped, next_creation

CODE = "AG007"
KIND = "saved-input"  # an op saved its input, an in-place write changed it (checks/inplace.py)
ERROR_TEXT = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)
# torch functions that save each operand for the gradient of the others.
SAVING_FUNCTIONS = frozenset({"matmul", "mm", "bmm", "mul", "div", "einsum"})
# What shares the storage and the version counter of its receiver, always (no copy).
SHARING_METHODS = frozenset(
    {"detach", "view", "view_as", "t", "transpose", "permute", "unsqueeze", "squeeze",
     "expand", "expand_as", "narrow", "select", "diagonal", "movedim", "swapaxes", "unfold"}
)  # fmt: skip
SHARING_ATTRIBUTES = frozenset({"T", "mT"})
STORAGE = "storage"  # first element of a storage's key in State.stepped


def _basic_index(index: ast.AST) -> bool:
    """Slices and integers (`[:, a:b]`, `[0]`): a view; any other index may copy."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(
        isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and type(p.value) is int)
        for p in parts
    )


def storage_of(interp, node: ast.AST) -> tuple | None:
    """The kept tensor whose storage `node`'s value shares: `(STORAGE, object key, attr)`
    for `self.queue`, `self.queue.detach()`, `self.queue[:, 1:].T`; None otherwise."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr not in SHARING_METHODS:
                return None
            node = node.func.value
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in SHARING_ATTRIBUTES
            or isinstance(node, ast.Subscript)
            and _basic_index(node.slice)
        ):
            node = node.value
        else:
            break
    if not isinstance(node, ast.Attribute) or not isinstance(node.value, (ast.Name, ast.Attribute)):
        return None
    if isinstance(node.value, ast.Attribute) and node.value.attr in ("data", "grad"):
        return None
    if node.attr in ("data", "grad") or interp.state is None:
        return None
    key = interp.heap_key(node.value, interp.ev(node.value))
    if key is None or (key, node.attr) not in interp.state.heap:
        return None
    return (STORAGE, key, node.attr)


class StorageWriteMixin:
    @functools.cached_property
    def storage_saves(self) -> dict:
        """A node that saved kept tensors -> those tensors' storages."""
        return {}

    def note_storages_saved(self, node: ast.AST, operands: list, vals: list, result) -> None:
        """A saving op over `operands` (their syntax and values): each kept tensor among
        them is saved when another operand has history."""
        saved = set()
        for index, operand in enumerate(operands):
            others = any(v.origins for i, v in enumerate(vals) if i != index)
            if others:
                storage = storage_of(self, operand)
                if storage is not None:
                    saved.add(storage)
        if not saved:
            return
        saves = self.storage_saves
        for origin in result.origins:
            if not origin.leaf and origin.site.node is node:
                saves[origin] = saves.get(origin, frozenset()) | saved

    def note_storage_written(self, target: ast.AST, node: ast.AST) -> None:
        """`self.queue[...] = x`, `self.queue += x`, `self.queue.copy_(x)`: a new version."""
        storage = storage_of(self, target) if self.state is not None else None
        if storage is None:
            return
        self.seq = next_creation()
        write = Stepped(self.seq, self.site(node), tuple(self.context))
        self.state.stepped = {**self.state.stepped, storage: write}

    def check_storage_writes(self, call: ast.Call, nodes: list[Origin]) -> None:
        saves = self.storage_saves
        if not saves or self.state is None:
            return
        written = self.state.stepped
        freed = self.state.freed
        found = []
        for origin in nodes:
            if origin in freed or origin not in saves:
                continue  # a freed node raises the freed-graph error first (AG001/AG002)
            writes = [written[s] for s in saves[origin] if s in written]
            writes = [w for w in writes if w.seq > origin.seq]
            if writes:
                found.append((origin, min(writes, key=lambda w: w.seq)))
        if found:
            report(self, call, *min(found, key=lambda pair: pair[0].seq))


def report(interp, call: ast.Call, origin: Origin, write: Stepped) -> None:
    built = origin.site
    fails = Site(interp.frame.block, call)
    steps = [
        RawStep(
            built,
            f"graph built here: `{source_of(built)}` saves a tensor the object keeps "
            "(a `.detach()` or a view of it shares its storage and version counter)",
            Role.BUILT,
        ),
        RawStep(
            write.site,
            f"`{source_of(write.site)}` writes into that tensor in place, after it was saved",
            Role.NOTE,
        ),
    ]
    steps.extend(call_steps(interp.call_chain, "the failing backward runs inside"))
    steps.append(
        RawStep(
            fails,
            f"`{call_text(call)}` needs the saved value and raises: {ERROR_TEXT}",
            Role.FAILS,
        )
    )
    message = (
        "in-place write into a tensor that the graph built at line {0} saved for backward "
        f'(the backward at line {{1}} needs it): it will raise "{ERROR_TEXT}"; save a copy '
        "(`.clone().detach()`), or write after the backward"
    )
    finding = RawFinding(CODE, KIND, message, [built, fails], write.site, steps)
    interp.reporter.findings.setdefault(finding.key, finding)
