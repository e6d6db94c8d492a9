"""Run a sample with `Tensor.backward` wrapped, and print what each backward left behind.

Usage: python lifetime_probe.py SCRIPT ACCUMULATOR_NAME
For every backward call it prints one JSON line: how many autograd nodes are reachable
from the script's global ACCUMULATOR_NAME, and whether the graph just back-propagated
still holds its saved tensors afterwards (i.e. it was retained).
"""

import json
import runpy
import sys

import torch


def reachable_nodes(value) -> int:
    roots = []
    if isinstance(value, torch.Tensor):
        roots.append(value.grad_fn)
    elif isinstance(value, (list, tuple)):
        roots.extend(v.grad_fn for v in value if isinstance(v, torch.Tensor))
    seen, todo = set(), [r for r in roots if r is not None]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        todo.extend(n for n, _ in node.next_functions if n is not None)
    return len(seen)


def saved_tensors_alive(root) -> bool:
    todo, seen = [root.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    value = getattr(node, name)
                except RuntimeError:
                    return False  # freed by the backward
                if isinstance(value, torch.Tensor):
                    return True
        todo.extend(n for n, _ in node.next_functions)
    return False


def main() -> None:
    script, accumulator = sys.argv[1], sys.argv[2]
    original = torch.Tensor.backward

    def probed(self, *args, **kwargs):
        caller = sys._getframe(1).f_globals
        before = reachable_nodes(caller.get(accumulator))
        result = original(self, *args, **kwargs)
        record = {"accumulated_nodes": before, "retained": saved_tensors_alive(self)}
        print("PROBE " + json.dumps(record), flush=True)
        return result

    torch.Tensor.backward = probed
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
