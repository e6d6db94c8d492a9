"""Run Python programs and report whether their optimizers really changed their parameters.

    python fix_runner.py PROGRAM.py [PROGRAM.py ...]
    -> one JSON object per program on stdout, in order:
    {"program": ..., "error": null | "RuntimeError: ...",
     "optimizers": [{"class": "SGD", "steps": N, "changed": bool | null}, ...]}

torch is imported once; each program then runs in a forked child, so one crash or
hang costs only that program. Every optimizer the program builds is recorded (through
Optimizer.__init__, in the order they are built); the parameters each one owns are
copied before its first `step()` and after its last (through torch's global optimizer
hooks, so subclasses that override `step` are covered too), and `changed` says whether
they differ. `changed` is null for an optimizer that never stepped.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import tempfile
import time
import traceback

TIMEOUT_S = 240


def run_one(program: str) -> dict:
    import torch
    from torch.optim.optimizer import (
        register_optimizer_step_post_hook,
        register_optimizer_step_pre_hook,
    )

    built: list = []
    first: dict[int, list] = {}
    last: dict[int, list] = {}
    steps: dict[int, int] = {}
    init = torch.optim.Optimizer.__init__

    def recording_init(optimizer, *args, **kwargs):
        init(optimizer, *args, **kwargs)
        built.append(optimizer)

    def owned(optimizer) -> list:
        return [p.detach().clone() for group in optimizer.param_groups for p in group["params"]]

    def before_step(optimizer, args, kwargs):
        steps[id(optimizer)] = steps.get(id(optimizer), 0) + 1
        first.setdefault(id(optimizer), owned(optimizer))

    def after_step(optimizer, args, kwargs):
        last[id(optimizer)] = owned(optimizer)

    torch.optim.Optimizer.__init__ = recording_init
    register_optimizer_step_pre_hook(before_step)
    register_optimizer_step_post_hook(after_step)
    error = None
    os.chdir(os.path.dirname(os.path.abspath(program)))
    sys.argv = [program]
    try:
        runpy.run_path(program, run_name="__main__")
    except BaseException as exc:  # noqa: BLE001 - the report says what it was
        error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc(file=sys.stderr)
    optimizers = []
    for optimizer in built:
        key = id(optimizer)
        changed = None
        if key in last:
            changed = any(not torch.equal(now, then) for now, then in zip(last[key], first[key]))
        optimizers.append(
            {"class": type(optimizer).__name__, "steps": steps.get(key, 0), "changed": changed}
        )
    return {"program": program, "error": error, "optimizers": optimizers}


def run_forked(program: str) -> dict:
    handle, report = tempfile.mkstemp(suffix=".json")
    os.close(handle)
    pid = os.fork()
    if pid == 0:  # the child: its prints go to stderr, stdout carries the reports
        os.dup2(2, 1)
        code = 0
        try:
            with open(report, "w") as out:
                json.dump(run_one(program), out)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            os.unlink(report)
            return {"program": program, "error": "timeout", "optimizers": []}
        time.sleep(0.05)
    try:
        with open(report) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {"program": program, "error": "no report", "optimizers": []}
    finally:
        os.unlink(report)


def main(programs: list[str]) -> int:
    import torch  # imported once, before the forks

    # The first optimizer step imports more of torch lazily (seconds of CPU): pay for it
    # here, once, not in every child. The random state is put back as a fresh start has it.
    rng = torch.random.get_rng_state()
    model = torch.nn.Linear(2, 1)
    for optimizer in (
        torch.optim.SGD(model.parameters(), lr=0.1),
        torch.optim.Adam(model.parameters()),
    ):
        model(torch.ones(1, 2)).sum().backward()
        optimizer.step()
    torch.random.set_rng_state(rng)
    del model, optimizer

    for program in programs:
        print(json.dumps(run_forked(program)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
