"""Walks an autograd graph before a backward call and finds nodes it would fail on.

Probing a node's saved-tensor attributes (`_saved_self`, `_saved_result`, ... and a custom
Function's `saved_tensors`) unpacks them without running backward; in torch 2.13 that
raises the very RuntimeError backward would ("Trying to backward through the graph a second
time (or directly access saved tensors after they have already been freed)"), or "... has
been modified by an inplace operation" when the saved tensor's version moved on.

Loaded by the harness from its file path; standard library and torch only.
"""

from __future__ import annotations

import types
from collections import deque

_SAVED_ATTRIBUTES = {}
NODE_LIMIT = 1_000_000
# Values whose attributes are code or configuration, never a script's training state.
_NOT_CONTAINERS = (
    str,
    bytes,
    int,
    float,
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
)


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, (list, tuple)) and not hasattr(value, "node"):
        return list(value)
    return [value]


def _node_of(torch, item, for_input):
    if isinstance(item, torch.Tensor):
        if for_input:
            return torch.autograd.graph.get_gradient_edge(item).node
        return item.grad_fn
    return getattr(item, "node", None)  # a GradientEdge


def gradient_roots(torch, kind, args, kwargs):
    """Root nodes, the input nodes gradients are wanted for (None = all), and root devices."""
    if kind == "grad":
        outputs = args[0] if args else kwargs.get("outputs")
        inputs = args[1] if len(args) > 1 else kwargs.get("inputs")
    elif kind == "tensor.backward":
        outputs = args[0] if args else kwargs.get("self")
        inputs = args[4] if len(args) > 4 else kwargs.get("inputs")
    else:
        outputs = args[0] if args else kwargs.get("tensors")
        inputs = args[5] if len(args) > 5 else kwargs.get("inputs")
    outputs = _as_list(outputs)
    roots = [n for n in (_node_of(torch, o, False) for o in outputs) if n is not None]
    devices = [o.device for o in outputs if isinstance(o, torch.Tensor)]
    input_nodes = None
    if inputs is not None:
        try:
            input_nodes = [_node_of(torch, i, True) for i in _as_list(inputs)]
            input_nodes = [n for n in input_nodes if n is not None]
        except Exception:
            input_nodes = None  # let the real call report a malformed argument
    return roots, input_nodes, devices


def walk(roots, input_nodes=None):
    """Nodes reachable from the roots, breadth first; only those leading to `input_nodes` if given."""
    order = []
    index = {}
    children = []
    queue = deque(roots)
    while queue and len(order) < NODE_LIMIT:
        node = queue.popleft()
        if id(node) in index:
            continue
        index[id(node)] = len(order)
        order.append(node)
        kids = [n for n, _ in node.next_functions if n is not None]
        children.append(kids)
        queue.extend(k for k in kids if id(k) not in index)
    if not input_nodes:
        return order
    wanted = {id(n) for n in input_nodes}
    reaches = [id(n) in wanted for n in order]
    changed = True
    while changed:  # a DAG: settles in a few passes over reverse breadth-first order
        changed = False
        for i in range(len(order) - 1, -1, -1):
            if not reaches[i] and any(reaches[index[id(k)]] for k in children[i] if id(k) in index):
                reaches[i] = changed = True
    return [node for i, node in enumerate(order) if reaches[i]]


def _saved_attributes(node):
    kind = type(node)
    names = _SAVED_ATTRIBUTES.get(kind)
    if names is None:
        names = [n for n in dir(node) if n.startswith("_saved_")]
        if hasattr(node, "_raw_saved_tensors"):
            names.append("saved_tensors")  # a custom autograd.Function
        _SAVED_ATTRIBUTES[kind] = names
    return names


def _has_unpack_hook(raw):
    # Freeing a saved tensor drops its hooks, so a hooked one is alive; don't run its unpack
    # hook (save_on_cpu would copy back to the GPU, checkpointing would recompute).
    items = raw if isinstance(raw, (list, tuple)) else [raw]
    return any(getattr(item, "unpack_hook", None) is not None for item in items)


def classify(message):
    if "backward through the graph a second time" in message or "already been freed" in message:
        return "freed"
    if "modified by an inplace operation" in message:
        return "inplace"
    return None


def probe(node):
    """("freed" | "inplace", message) when backward through `node` would fail, else None."""
    for name in _saved_attributes(node):
        raw_name = "_raw_saved_tensors" if name == "saved_tensors" else "_raw" + name
        try:
            if _has_unpack_hook(getattr(node, raw_name, None)):
                continue
            getattr(node, name)
        except RuntimeError as error:
            problem = classify(str(error))
            if problem is not None:
                return problem, str(error)
        except Exception:
            continue
    return None


def find_broken_node(nodes):
    """The first node, nearest the roots, that backward would fail on: (node, problem, message)."""
    for node in nodes:
        found = probe(node)
        if found is not None:
            return (node,) + found
    return None


def _tensors(torch, value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def _storage_key(tensor):
    try:
        storage = tensor.untyped_storage()
        return (str(tensor.device), storage.data_ptr()), storage.nbytes()
    except Exception:  # sparse, nested or meta tensors: no plain storage to count
        return None, 0


def inspect(torch, nodes):
    """Probes every node: (the first broken node nearest the roots as `find_broken_node`
    gives it, or None; the bytes of the live saved tensors, each storage counted once).

    The bytes are what the graph keeps alive beyond its nodes: a graph kept across steps
    grows by them. Parameters saved by a node count too, but they are the same storages
    at every step, so they never show up as growth."""
    broken = None
    storages = {}
    for node in nodes:
        for name in _saved_attributes(node):
            raw_name = "_raw_saved_tensors" if name == "saved_tensors" else "_raw" + name
            try:
                if _has_unpack_hook(getattr(node, raw_name, None)):
                    continue
                value = getattr(node, name)
            except RuntimeError as error:
                problem = classify(str(error))
                if problem is not None and broken is None:
                    broken = (node, problem, str(error))
                continue
            except Exception:
                continue
            for tensor in _tensors(torch, value):
                key, size = _storage_key(tensor)
                if key is not None:
                    storages[key] = size
    return broken, sum(storages.values())


def graph_roots_in(torch, values, limit=100_000):
    """grad_fn nodes of the tensors held by `values`, looking into containers and plain
    objects' attributes two levels down (what a training script keeps alive between steps)."""
    roots, seen = [], set()
    stack = [(v, 0) for v in values]
    visited = 0
    while stack and visited < limit:
        value, depth = stack.pop()
        visited += 1
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            if value.grad_fn is not None:
                roots.append(value.grad_fn)
            continue
        if depth >= 3 or isinstance(value, _NOT_CONTAINERS):
            continue
        if isinstance(value, dict):
            items = list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset, deque)):
            items = list(value)
        elif isinstance(getattr(value, "__dict__", None), dict):
            items = list(vars(value).values())
        else:
            continue
        stack.extend((item, depth + 1) for item in items[:limit])
    return roots
