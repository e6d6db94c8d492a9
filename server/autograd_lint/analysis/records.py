"""Record classes: a `@dataclass` or a `NamedTuple` of the file keeps what it is built with.

Neither has an `__init__` the interpreter can run, so without this a model's output object
(`SegmentOutput(loss=loss, M_Z=memory)`) forgets its fields, and `outputs.M_Z` fed back
into the next segment reads as plain data. The generated constructor binds positional
arguments to the fields in the order the class body declares them, keywords by name
(Python's dataclass and typing.NamedTuple semantics), and that is all we model: each
field given is stored on the instance; a field left to its default is not (its default
is evaluated once, at class creation, and is no graph of the caller's).
"""

from __future__ import annotations

import ast

from .exprs import dotted_name
from .roles import qualify

DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
NAMED_TUPLE_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})


def _is_record(info) -> bool:
    for decorator in info.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = dotted_name(target)
        if name is not None and qualify(name, info.aliases) in DATACLASS_DECORATORS:
            return True
    return any(qualify(base, info.aliases) in NAMED_TUPLE_BASES for base in info.bases)


def record_fields(info) -> list[str] | None:
    """The field names of a local dataclass or NamedTuple class, in declaration order;
    None for any other class (or one that defines its own `__init__`)."""
    if "__init__" in info.methods or not _is_record(info):
        return None
    fields = []
    for statement in info.node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            annotation = dotted_name(statement.annotation) or ""
            if not annotation.endswith("ClassVar"):
                fields.append(statement.target.id)
    return fields


def bound_fields(fields: list[str], call: ast.Call, args: list) -> dict[str, object]:
    """Field name -> the value the constructor call gives it (`args`: the positional
    values, then the keyword values, as `eval_arguments` lists them)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return {}  # `Record(*parts)`: which value lands where is not known
    given = dict(zip(fields, args[: len(call.args)]))
    for keyword, val in zip(call.keywords, args[len(call.args) :]):
        if keyword.arg in fields:
            given[keyword.arg] = val
    return given
