"""`--confirm*` options of `autograd-lint check`, and confirming a whole check's findings."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Mapping
from pathlib import Path

from ..analysis.model import Finding
from ..rules import CONFIRMABLE  # the codes whose failure a run can show (each rule says)


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "runtime confirmation",
        f"Run each file that has {'/'.join(sorted(CONFIRMABLE))} findings (it must be a script) "
        "for a few steps under instrumentation, and say whether the failure happens. This runs your code.",
    )
    group.add_argument(
        "--confirm", action="store_true", help="confirm findings by running the scripts"
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
        "--confirm-max-steps",
        type=int,
        default=5,
        metavar="N",
        help="backward calls to watch before calling it not reproduced (default: 5)",
    )


def options_from_args(args: argparse.Namespace):
    from .runner import RuntimeOptions

    device = getattr(args, "confirm_device", "auto")
    if device not in ("auto", "cpu") and not (device.startswith("cuda:") and device[5:].isdigit()):
        raise ValueError(f"--confirm-device: expected auto, cpu or cuda:N, not {device!r}")
    return RuntimeOptions(
        python=getattr(args, "confirm_python", None),
        args=shlex.split(getattr(args, "confirm_args", "") or ""),
        device=device,
        max_steps=getattr(args, "confirm_max_steps", 5),
        timeout_seconds=getattr(args, "confirm_timeout", 120.0),
    )


def confirm_findings(
    findings_by_path: Mapping[str | Path, list[Finding]], args: argparse.Namespace
) -> dict[Finding, object]:
    """A RuntimeVerdict per confirmable finding, keyed by the finding; {} without --confirm.

    Each file with such findings is run once, as a script, one file after another.
    """
    from ..notebook import is_notebook
    from ..notebook.runtime import confirm_notebook
    from .runner import confirm

    if not getattr(args, "confirm", False):
        return {}
    options = options_from_args(args)
    verdicts = {}
    for path, findings in findings_by_path.items():
        wanted = [f for f in findings if f.code in CONFIRMABLE]
        if wanted and is_notebook(path):  # its cells run as one script (notebook/runtime.py)
            verdicts.update(zip(wanted, confirm_notebook(Path(path), wanted, options), strict=True))
        elif wanted:
            verdicts.update(zip(wanted, confirm(Path(path), wanted, options), strict=True))
    return verdicts
