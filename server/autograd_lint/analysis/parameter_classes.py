"""The class of a parameter no caller passes, from the file's own classes and its calls.

A training function is often a root: nothing in the file calls it (`train(model, opt,
loader)` is called from another script), so its `model` is a value we know nothing of,
and an unknown module passes its inputs' graphs to its output — the memory a model
detaches before handing it out looks carried (a false error), and the state a layer of
the file keeps on `self` between calls is never seen (a miss).

What a reader of such a file uses is structural evidence, never a name: the parameter's
annotation when it names a class of the file, else the calls the function makes on it
(`model(ids, labels)`, `model(input_ids=..., M_Z=...)`) matched against the `forward`
signatures of the file's *top* module classes — those no other class of the file builds
as a part. Exactly one class must accept every call, as Python would bind it; with two
candidates, or none, or a call Python could not bind, the parameter stays unknown.
"""

from __future__ import annotations

import ast
import weakref

from .exprs import walk

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def accepts(definition: ast.FunctionDef, call: ast.Call, bound_self: bool = True) -> bool:
    """Whether Python binds `call`'s arguments to `definition`'s parameters (without
    `self` when `bound_self`): counts, keyword names, and every required one given."""
    arguments = definition.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if bound_self:
        positional = positional[1:]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False  # `*args`/`**kw` at the call: what it binds is not known
    if len(call.args) > len(positional) and arguments.vararg is None:
        return False
    by_name = {p.arg for p in positional[len(call.args) :]} | {p.arg for p in arguments.kwonlyargs}
    given = set()
    for keyword in call.keywords:
        if keyword.arg not in by_name and arguments.kwarg is None:
            return False
        given.add(keyword.arg)
    without_default = positional[len(call.args) : len(positional) - len(arguments.defaults)]
    if any(p.arg not in given for p in without_default):
        return False
    required_keywords = [
        p.arg for p, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is None
    ]
    return all(name in given for name in required_keywords)


def _calls_by_name(function: ast.FunctionDef) -> dict[str, list[ast.Call]]:
    """The function's calls of a bare name, by name: one walk per definition, kept while
    its tree lives (every parameter of every root asks)."""
    found = _CALLS.get(function)
    if found is None:
        found = {}
        for node in walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                found.setdefault(node.func.id, []).append(node)
        _CALLS[function] = found
    return found


def _called_names(class_node: ast.ClassDef) -> frozenset[str]:
    """The bare names a class's body calls (`Block(d)`), kept while its tree lives."""
    found = _CALLED.get(class_node)
    if found is None:
        found = _CALLED[class_node] = frozenset(_calls_by_name(class_node))
    return found


_CALLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CALLED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _built_as_part(info, classes: dict) -> bool:
    """Whether another class of the file constructs `info` (it is a part, not a model)."""
    return any(
        other is not info and _may_name(other, info.name) and info.name in _called_names(other.node)
        for other in classes.values()
    )


def _may_name(info, name: str) -> bool:
    """Whether the block `info` is defined in may call `name`. A call names it, so in text
    of plain ASCII (where the parser normalises no identifier) the block's identifiers say
    so without walking the class: most classes name few others, and the first analysis of
    a 5,000-line file walked every class of it."""
    block = info.block
    names = getattr(block, "names", None)  # a Block's identifiers (a property)
    return not isinstance(names, frozenset) or name in names or not _is_ascii(block)


def _is_ascii(block) -> bool:
    """Whether the block's text is plain ASCII, asked once per block: every class of a file
    is asked about every other's name (20,000 questions in a 5,000-line file)."""
    memo = getattr(block, "memo", None)
    if memo is None:
        return block.text.isascii()
    found = memo.get("text_is_ascii")
    if found is None:
        found = memo["text_is_ascii"] = block.text.isascii()
    return found


def classes_signature(classes: dict) -> tuple:
    """What every answer of `parameter_class` rests on besides the root function's own
    tree: the file's classes by name, in order, with the text of the block of each (its
    `forward`, its parts, the local bases it names). The imports are not needed: a class
    with a `forward` of its own or of a local base is a module whatever its other bases."""
    return tuple((name, info.block.key) for name, info in classes.items())


class ClassTable:
    """What `parameter_class` asks of the file's classes, worked out once per program: the
    top module classes' `forward` and which classes another builds. Every parameter of
    every root asked it of every class again (a fifth of the root setup's time in a
    5,000-line file, where ~100 module classes each took a pass over all the others)."""

    def __init__(self, classes: dict):
        self.classes = classes
        self._forwards: list | None = None
        self._parts: dict[int, bool] = {}

    def forwards(self) -> list:
        """(class, its `forward` definition) of each module class, in the table's order."""
        if self._forwards is None:
            found = []
            for info in self.classes.values():
                forward = info.find_method("forward")
                if forward is None or not isinstance(forward.node, FUNCTIONS):
                    continue
                if info.is_module:
                    found.append((info, forward.node))
            self._forwards = found
        return self._forwards

    def built_as_part(self, info) -> bool:
        found = self._parts.get(id(info))
        if found is None:
            found = self._parts[id(info)] = _built_as_part(info, self.classes)
        return found


def parameter_class(
    function: ast.FunctionDef, param: ast.arg, classes: dict, table: ClassTable | None = None
):
    """The file's class `param` of a root `function` is an instance of, or None; `table`:
    the program's ClassTable over `classes`, shared by its roots."""
    annotation = param.annotation
    if isinstance(annotation, ast.Name) and annotation.id in classes:
        return classes[annotation.id]
    if annotation is not None:
        return None  # annotated with something else: not ours to guess
    calls = _calls_by_name(function).get(param.arg) if classes else None
    if not calls:
        return None
    if table is None or table.classes is not classes:
        table = ClassTable(classes)
    candidates = [
        info
        for info, forward in table.forwards()
        if all(accepts(forward, call) for call in calls) and not table.built_as_part(info)
    ]
    return candidates[0] if len(candidates) == 1 else None
