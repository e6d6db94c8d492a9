"""The layers inside a library model, and whether their forward saves parameters over data.

`BertModel.from_pretrained(...)` is a module of a class whose source is installed, so
`bert.embeddings` is what that class's `__init__` assigns there:
`self.embeddings = BertEmbeddings(config)` (transformers/models/bert/modeling_bert.py).
Called on token ids, a plain `nn.Linear` would keep only its input, and a graph over it
survives an optimizer step; `BertEmbeddings.forward` is another thing: it adds up its
embedding lookups, which carry its own parameters' history, and feeds the sum to
`self.LayerNorm`, which saves its weight for that history's gradient. A value computed
from it once (`self.mask_vec = self.embeddings(mask_id)` in a constructor) and mixed into
every step's loss then breaks the next retained backward after `optimizer.step()`
(hiyoung123/SoftMaskedBert#16: "modified by an inplace operation").

What is read, and only that: the class and its bases as the library summaries find them
(`class_chain`), their `__init__` assignments `self.<name> = <Class>(...)` resolved through
the defining module's imports, and `forward`'s straight reading: which names carry the
module's parameters (the result of one of its torch layers) and whether a torch layer with
weights is called on one of them. A layer of another class, a helper function or any
branch we cannot read adds no claim: silence, never a guess.
"""

from __future__ import annotations

import ast
import logging
import weakref
from dataclasses import dataclass

from .library_distributions import _parse, source_site
from .library_layers import NOT_ASKED, current_summaries
from .values import EMPTY, MODULE, NOTHING, Val

log = logging.getLogger(__name__)

LIBRARY_MODULE = "library module"  # the first element of such a module object's key
# torch.nn layers whose output carries their parameters' history, and which save their
# weight for the gradient of an input that has history.
WEIGHTED = frozenset(
    {
        "Linear",
        "Bilinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "LayerNorm",
        "GroupNorm",
        "RMSNorm",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
    }
)
# Lookups: their output carries their weight's history, their input (indices) none.
LOOKUPS = frozenset({"Embedding", "EmbeddingBag"})
TORCH_NN = ("torch.nn.", "torch.nn.modules.")


@dataclass(frozen=True)
class SavedOverData:
    """Where a library class's forward saves its parameters for an input's gradient."""

    qualified: str  # the class
    path: str
    line: int
    layer: str  # `self.LayerNorm`


def is_library_module(ref) -> bool:
    return isinstance(ref, tuple) and ref[:1] == (LIBRARY_MODULE,)


def library_module(qualified_class: str, node: ast.AST, context) -> Val:
    return Val(EMPTY, MODULE, (LIBRARY_MODULE, qualified_class, id(node), tuple(context)))


def _classes(qualified: str):
    """(module name, module tree, path, class node) of the class and its bases.

    torch's own classes are read too: a library model's `nn.Embedding` is found by its
    `__init__`'s `self.weight = Parameter(...)` like any library layer (skipping torch left
    the weight of a loaded BERT's word embeddings a value without history)."""
    if not qualified:
        return []
    summaries = current_summaries()
    found = []
    for name in summaries.class_chain(qualified):
        module, _, cls = name.rpartition(".")
        path = summaries.environment.resolve_module_file(module)
        parsed = _parse(path) if path is not None else None
        if parsed is None:
            continue
        tree = parsed[1]
        node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if node is not None:
            found.append((module, tree, str(path), node))
    return found


def _self_assignments(classes) -> dict[str, str]:
    """`self.<name> = <Class>(...)` in the classes' `__init__`: name -> qualified class."""
    summaries = current_summaries()
    found: dict[str, str] = {}
    for module, _tree, _path, cls in classes:
        init = next(
            (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
        )
        if init is None:
            continue
        for statement in ast.walk(init):
            if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
                continue
            made = summaries.qualified_in(module, statement.value.func)
            for target in statement.targets:
                if (
                    made is not None
                    and "." in made  # a class of some module (a sentinel `object()` is none)
                    and isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    found.setdefault(target.attr, made)
    return found


# Answers per library environment (the LibrarySummaries of the interpreter a workspace
# runs): another interpreter may hold another version of the library.
_ANSWERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _answers() -> dict:
    return _ANSWERS.setdefault(current_summaries(), {})


def submodule_class(qualified_class: str, attribute: str) -> str | None:
    """The class a library class's `__init__` makes `self.<attribute>` of, or None."""
    answers, key = _answers(), ("submodule", qualified_class, attribute)
    if key not in answers:
        try:
            made = _self_assignments(_classes(qualified_class)).get(attribute)
        except Exception:  # noqa: BLE001 - a library we cannot read costs its findings only
            log.exception("autograd-lint: could not read %s", qualified_class)
            made = None
        answers[key] = made if made is not None and made[:1].isalpha() else None
    return answers[key]


def _layer_kind(made: str | None) -> str | None:
    if made is None or not made.startswith(TORCH_NN):
        return None
    last = made.rpartition(".")[2]
    return "weighted" if last in WEIGHTED else "lookup" if last in LOOKUPS else None


def saves_over_data(qualified_class: str) -> SavedOverData | None:
    """Where the class's forward, given inputs without history, saves its own parameters
    for backward (a torch layer with weights fed the output of another of its layers);
    None when its source does not show it."""
    answers, key = _answers(), ("saves", qualified_class)
    if key not in answers:
        try:
            answers[key] = _saves_over_data(qualified_class)
        except Exception:  # noqa: BLE001 - a library we cannot read costs its findings only
            log.exception("autograd-lint: could not read %s", qualified_class)
            answers[key] = None
    return answers[key]


def _saves_over_data(qualified_class: str) -> SavedOverData | None:
    classes = _classes(qualified_class)
    layers = {name: _layer_kind(made) for name, made in _self_assignments(classes).items()}
    for _module, _tree, path, cls in classes:
        forward = next(
            (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None
        )
        if forward is not None:
            return _first_save(qualified_class, path, forward, layers)
    return None


def _own_layer(call: ast.AST, layers: dict) -> str | None:
    func = call.func if isinstance(call, ast.Call) else None
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        return layers.get(func.attr)
    return None


def _first_save(qualified, path: str, forward: ast.FunctionDef, layers) -> SavedOverData | None:
    carrying: set[str] = set()  # names holding a value with the parameters' history

    def carries(expression: ast.AST) -> bool:
        return any(
            (isinstance(n, ast.Name) and n.id in carrying) or _own_layer(n, layers) is not None
            for n in ast.walk(expression)
        )

    def saving_call(expression: ast.AST) -> ast.Call | None:
        for n in ast.walk(expression):
            if _own_layer(n, layers) == "weighted" and any(
                carries(a) for a in [*n.args, *(k.value for k in n.keywords)]
            ):
                return n
        return None

    def visit(statements) -> SavedOverData | None:
        for statement in statements:
            value = getattr(statement, "value", None)
            if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)):
                found = saving_call(value) if value is not None else None
                if found is not None:
                    layer = f"self.{found.func.attr}"
                    return SavedOverData(qualified, path, statement.lineno, layer)
                if value is not None and carries(value) and not isinstance(statement, ast.Return):
                    targets = getattr(statement, "targets", None) or [statement.target]
                    for target in targets:
                        for n in ast.walk(target):
                            if isinstance(n, ast.Name):
                                carrying.add(n.id)
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    found = visit(inner)
                    if found is not None:
                        return found
        return None

    return visit(forward.body)


class LibrarySubmoduleMixin:
    def loaded_library_module(self, node: ast.Call, qualified: str) -> Val | None:
        """`BertModel.from_pretrained(...)`: a method a base class's row says returns a
        module (`PreTrainedModel.from_pretrained`), called on an installed library class:
        a module of that class. None for anything else."""
        owner, _, method = qualified.rpartition(".")
        if not owner or not owner.rpartition(".")[2][:1].isupper():
            return None
        if owner.partition(".")[0] in NOT_ASKED:
            return None
        from .library_calls import row_for

        try:
            chain = current_summaries().class_chain(owner)
        except Exception:  # noqa: BLE001 - a library we cannot read costs its findings only
            log.exception("autograd-lint: could not read %s", owner)
            return None
        rows = (row_for(f"{name}.{method}") for name in chain)
        row = next((r for r in rows if r is not None), None)
        if row is None or row.effect("result-module") is None:
            return None
        self.eval_arguments(node)
        return library_module(owner, node, self.context)

    def library_submodule(self, node: ast.Attribute, owner: Val) -> Val | None:
        """`bert.embeddings` of a library module (loaded, or built from its class): the
        layer its class's __init__ makes."""
        from .library_calls import is_extern

        if not (is_library_module(owner.ref) or is_extern(owner.ref)):
            return None
        made = submodule_class(owner.ref[1], node.attr)
        if made is None:
            # Not a layer its __init__ builds (`vae.config`, a value set elsewhere): of a
            # model we loaded, nothing with history; of another object, what it was.
            return NOTHING if is_library_module(owner.ref) else None
        leaf = frozenset({self.new_origin(node, leaf=True)})
        if made.rpartition(".")[2] == "Parameter":
            return Val(leaf)
        # A layer (torch's too): a module whose own attributes are read the same way.
        return Val(leaf, MODULE, library_module(made, node, self.context).ref)

    def saves_parameters_over_data(self, built, module: Val) -> bool:
        """Whether this call of a library module saves its parameters though its inputs
        have no history (BertEmbeddings' LayerNorm over its lookups), with the evidence."""
        if not is_library_module(module.ref):
            return False
        saved = saves_over_data(module.ref[1])
        if saved is None:
            return False
        from .library_distributions import Note

        cls = saved.qualified.rpartition(".")[2]
        message = (
            f"`{cls}.forward` feeds its own layers' output to `{saved.layer}`, which saves "
            "its weight for backward even when the call's inputs have no history"
        )
        note = Note(
            (saved.qualified, "saves-over-data"),
            message,
            tuple(self.context),
            lambda: source_site(saved.path, saved.line),
        )
        self.library_notes.setdefault(built, note)
        return True
