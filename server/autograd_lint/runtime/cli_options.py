"""`--confirm*` options of `autograd-lint check`, and confirming a whole check's findings."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Mapping
from pathlib import Path

from ..analysis.model import Finding
from ..rules import CONFIRMABLE  # the codes whose failure a run can show (each rule says)

# Codes whose claim a run measures (a graph growing every step), so their files run too.
MEASURABLE = frozenset({"AG003", "AG004"})
# Without a finding to aim at, a run watches more backward calls: a carried graph may fail
# only in a later epoch (13 calls in the slowest case of the real-world yardstick).
DISCOVERY_STEPS = 20


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "runtime confirmation",
        f"Run each file that has {'/'.join(sorted(CONFIRMABLE))} findings (it must be a script) "
        "for a few steps under instrumentation, and say whether the failure happens. This runs your code.",
    )
    group.add_argument(
        "--confirm",
        dest="confirm",
        action="store_const",
        const="findings",
        help="confirm findings by running the scripts that have them; a failing backward "
        "no finding predicted is reported too, as a finding 'found at runtime'",
    )
    # A literal option string: argparse matches it whole before splitting at '=', so that
    # `--confirm PATH` still reads PATH as a path.
    group.add_argument(
        "--confirm=always",
        dest="confirm",
        action="store_const",
        const="always",
        help="run every script given, with or without findings (runtime discovery)",
    )
    group.add_argument(
        "--confirm-args",
        default="",
        metavar="ARGS",
        help="arguments for the scripts, one shell-quoted string (e.g. '--epochs 1')",
    )
    group.add_argument(
        "--confirm-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="stop a script after this long (default: 120)",
    )
    group.add_argument(
        "--confirm-device",
        default="auto",
        metavar="DEVICE",
        help="auto, cpu or cuda:N (sets CUDA_VISIBLE_DEVICES; default: auto)",
    )
    group.add_argument(
        "--confirm-python",
        default=None,
        metavar="PYTHON",
        help="interpreter that has torch (default: the one running autograd-lint)",
    )
    group.add_argument(
        "--no-confirm-warm",
        dest="confirm_warm",
        action="store_false",
        help="start every script in a fresh interpreter; by default, while one file runs, "
        "the next one's interpreter is started and imports torch and the script's leading "
        "installed libraries (docs/runtime.md, warm runner)",
    )
    group.add_argument(
        "--confirm-max-steps",
        type=int,
        default=None,
        metavar="N",
        help="backward calls to watch before calling it not reproduced (default: 5; "
        f"{DISCOVERY_STEPS} with --confirm=always)",
    )


def options_from_args(args: argparse.Namespace):
    from .runner import RuntimeOptions

    device = getattr(args, "confirm_device", "auto")
    if device not in ("auto", "cpu") and not (device.startswith("cuda:") and device[5:].isdigit()):
        raise ValueError(f"--confirm-device: expected auto, cpu or cuda:N, not {device!r}")
    max_steps = getattr(args, "confirm_max_steps", None)
    default_steps = DISCOVERY_STEPS if getattr(args, "confirm", None) == "always" else 5
    return RuntimeOptions(
        python=getattr(args, "confirm_python", None),
        args=shlex.split(getattr(args, "confirm_args", "") or ""),
        device=device,
        max_steps=max_steps if max_steps is not None else default_steps,
        timeout_seconds=getattr(args, "confirm_timeout", 120.0),
        discover=True,
        warm=getattr(args, "confirm_warm", True),
    )


def confirm_findings(
    findings_by_path: Mapping[str | Path, list[Finding]], args: argparse.Namespace
) -> dict[Finding, object]:
    """A RuntimeVerdict per confirmable finding, keyed by the finding; {} without --confirm."""
    return confirm_check(findings_by_path, [], args)[0]


def confirm_check(
    findings_by_path: Mapping[str | Path, list[Finding]],
    files: list[str | Path],
    args: argparse.Namespace,
) -> tuple[dict[Finding, object], list[Finding]]:
    """Runs the scripts `--confirm` asks for, one after another, each once: the verdict of
    each finding run (finding -> RuntimeVerdict), and the findings only a run found.

    `--confirm`: the files with AG001/AG002/AG007 (or AG003/AG004) findings (notebooks:
    AG001/AG002/AG007); `--confirm=always`: every one of `files` too.
    """
    mode = getattr(args, "confirm", None)
    if not mode:
        return {}, []
    from .warm import POOL  # with the runner and asyncio: imported only when a run is asked for

    options = options_from_args(args)
    verdicts, found = {}, []
    paths = {str(path): list(findings) for path, findings in findings_by_path.items()}
    if mode == "always":
        for file in files:
            paths.setdefault(str(file), [])
    try:
        _confirm_each(paths, mode, options, verdicts, found)
    finally:
        POOL.close()  # a warm child started for a file that did not run
    return verdicts, found


def _scripts_to_run(paths: dict[str, list[Finding]], mode: str) -> list[str]:
    from ..notebook import is_notebook

    return [
        path
        for path, findings in paths.items()
        if not is_notebook(path)
        and (mode == "always" or any(f.code in CONFIRMABLE | MEASURABLE for f in findings))
    ]


def _confirm_each(paths, mode, options, verdicts, found) -> None:
    from ..notebook import is_notebook
    from ..notebook.runtime import discover_notebook
    from .discovery import runtime_findings, without_duplicates
    from .matching import verdict_for
    from .runner import run_harness
    from .warm import POOL

    scripts = set(_scripts_to_run(paths, mode))
    following, upcoming = {}, None  # each file -> the next script to run after it
    for path in reversed(list(paths)):
        following[path] = upcoming
        if path in scripts:
            upcoming = path
    for path, findings in paths.items():

        def warm_next(upcoming=following[path]) -> None:
            # Once this file's run has its process (a warm child of the same folder and
            # imports would otherwise be taken by it), the next script's interpreter
            # imports torch and its libraries while this one runs (warm.py).
            if upcoming is not None and options.warm:
                POOL.prestart(Path(upcoming), options)

        if is_notebook(path):  # its cells run as one script (notebook/runtime.py)
            warm_next()
            wanted = [f for f in findings if f.code in CONFIRMABLE]
            if not wanted and mode != "always":
                continue
            answers, by_cell = discover_notebook(Path(path), wanted, options)
            verdicts.update(zip(wanted, answers, strict=True))
            for finding, verdict in without_duplicates(by_cell):
                found.append(finding)
                verdicts[finding] = verdict
            continue
        wanted = [f for f in findings if f.code in CONFIRMABLE | MEASURABLE]
        if not wanted and mode != "always":
            continue
        run = run_harness(Path(path), wanted, options, on_start=warm_next)
        verdicts.update((finding, verdict_for(finding, run)) for finding in wanted)
        try:
            source = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for finding, verdict in without_duplicates(runtime_findings(path, source, run, findings)):
            found.append(finding)
            verdicts[finding] = verdict
