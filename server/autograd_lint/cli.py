"""The `autograd-lint` command: `check` files, list `rules`, run the language server (`lsp`).

Exit status: 0 when nothing is found, 1 when there are findings, 2 on a usage or
configuration error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from . import __version__
from .cache import CACHE_DIR_NAME, ResultCache
from .checker import check_path, check_source, file_problem, iter_python_files
from .config import (
    ConfigError,
    Settings,
    find_project_root,
    find_pyproject,
    parse_codes,
    read_pyproject,
)
from .environment import find_python
from .jobs import FileTask, check_files, default_jobs
from .notebook import is_notebook
from .output import FORMATS, Report
from .resolved_paths import FolderResolver
from .rules import RULES
from .runtime.cli_options import add_cli_arguments as add_runtime_arguments
from .runtime.cli_options import confirm_check
from .workspace import Workspace, find_root

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
# The severities, most severe first: `--fail-on warning` fails on errors and warnings.
FAIL_LEVELS = ("error", "warning", "info")

POSITIONS_NOTE = """\
Positions: text, github and sarif output give 1-based lines and 1-based columns;
json output gives 1-based lines and 0-based columns (as the analysis does).
Columns count Unicode code points.

Exit status: 0 when no finding is reported, 1 when any is (with --fail-on, any at
that severity or above; 0 with --exit-zero), 2 on a usage or configuration error."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return args.handler(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="autograd-lint",
        description="Find PyTorch autograd graph-lifetime bugs without running the code.",
    )
    parser.add_argument("--version", action="version", version=f"autograd-lint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_check(commands)
    _add_rules(commands)
    # -- commands whose implementation lives in another component --------------------------
    _add_lsp(commands)
    return parser


# -- check ----------------------------------------------------------------------------------


def _codes_argument(text: str) -> list[str]:
    try:
        return parse_codes(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes, got {text!r}")
    return int(text)


def _jobs_argument(text: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of processes, got {text!r}")
    return int(text)


def _add_check(commands) -> None:
    check = commands.add_parser(
        "check",
        help="check files and directories",
        description="Check Python files and Jupyter notebooks; directories are searched "
        "for *.py and *.ipynb files.",
        epilog=POSITIONS_NOTE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    check.add_argument(
        "--format", choices=list(FORMATS), default="text", help="output format (default: text)"
    )
    check.add_argument(
        "--select",
        type=_codes_argument,
        metavar="CODES",
        help="comma-separated codes or prefixes to report (replaces the configured select)",
    )
    check.add_argument(
        "--ignore",
        type=_codes_argument,
        metavar="CODES",
        help="comma-separated codes or prefixes not to report (added to the configured ignore)",
    )
    check.add_argument(
        "--config",
        type=Path,
        metavar="PYPROJECT",
        help="read [tool.autograd-lint] from this file instead of the nearest pyproject.toml",
    )
    check.add_argument("--no-color", action="store_true", help="never colour the text output")
    check.add_argument(
        "--exit-zero", action="store_true", help="exit with 0 even when there are findings"
    )
    check.add_argument(
        "--fail-on",
        choices=FAIL_LEVELS,
        default="info",
        help="exit with 1 only for findings of this severity or above; the others are still "
        "reported (default: info, any finding)",
    )
    check.add_argument(
        "--max-file-size",
        type=_positive_int,
        metavar="BYTES",
        help="skip (and report) files larger than this (default: the configured "
        "max-file-size, else 5000000)",
    )
    check.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter whose installed libraries imports resolve into "
        "(default: the one running autograd-lint)",
    )
    check.add_argument(
        "--jobs",
        "-j",
        type=_jobs_argument,
        default=None,
        metavar="N",
        help="check files in N processes (default: the number of CPU cores; --fix and "
        "--diff check in one)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help=f"neither read nor write the result cache ({CACHE_DIR_NAME}/ in the project "
        "root, or the configured cache-dir)",
    )
    fixing = check.add_mutually_exclusive_group()
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="apply the preferred fix of every finding in place; report what remains",
    )
    fixing.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff; change nothing"
    )
    add_runtime_arguments(check)
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    logging.basicConfig(format="autograd-lint: %(levelname)s: %(message)s")
    paths = [Path(p) for p in args.paths] or [Path(".")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        return _usage_error(f"no such file or directory: {', '.join(missing)}")
    if args.config is not None and not args.config.is_file():
        return _usage_error(f"config file not found: {args.config}")
    if args.python is not None and not os.path.isfile(find_python(args.python)):
        return _usage_error(f"no such interpreter: {args.python}")

    settings_of = _SettingsResolver(args)
    fixes = None
    if args.fix or args.diff:
        from .fixes.cli_support import FixSession  # libcst: slow to import, only for fixes

        fixes = FixSession(write=args.fix)
    findings = []
    seen: set[Path] = set()
    checked: list[Path] = []  # as shown; --confirm=always runs each of them
    workspaces: dict[Path, Workspace] = {}
    folders = FolderResolver()  # a run's files are resolved a folder at a time
    tasks: list[FileTask] = []
    try:
        for path in paths:
            settings = settings_of(path)
            root = find_root(path)
            # Imports resolve within the project the path belongs to (one index per root).
            if root not in workspaces:
                workspaces[root] = Workspace(root, settings.max_file_size, args.python)
            workspace = workspaces[root]
            for file in iter_python_files(path, settings):
                identity = _identity(file, folders)
                if identity in seen:
                    continue
                seen.add(identity)
                shown = _display_path(file)
                checked.append(shown)
                cacheable = fixes is None and not is_notebook(file)
                tasks.append(FileTask(file, shown, settings, workspace, cacheable))
        cache = None if args.no_cache or fixes is not None else _result_cache(args, paths, folders)
    except ConfigError as exc:
        return _usage_error(str(exc))
    jobs = 1 if fixes is not None else (args.jobs or default_jobs())
    check_one = lambda task: _check_file(task.file, task.settings, task.workspace, fixes)  # noqa: E731
    for found in check_files(tasks, check_one, jobs, cache):
        findings.extend(found)
    if cache is not None:
        cache.prune()

    if fixes is not None:
        sys.stderr.write(fixes.summary())
        if args.diff:
            _write(fixes.diff())
            return (
                EXIT_FINDINGS
                if (fixes.changed or _failing(findings, args)) and not args.exit_zero
                else EXIT_CLEAN
            )
    findings.sort(key=lambda f: f.sort_key())
    by_path: dict[str, list] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    try:
        # Nothing runs unless --confirm: then the user's scripts run, and a failing backward
        # no finding predicted becomes a finding "found at runtime".
        verdicts, found_at_runtime = confirm_check(by_path, checked, args)
    except ValueError as exc:
        return _usage_error(str(exc))
    if found_at_runtime:
        # The file's select, ignore and severity settings hold for what a run found too.
        for found in found_at_runtime:
            verdict = verdicts.pop(found)
            for kept in settings_of(Path(found.path)).apply([found]):
                findings.append(kept)
                verdicts[kept] = verdict
        findings.sort(key=lambda f: f.sort_key())
    report = Report(findings, files_checked=len(seen), verdicts=verdicts)
    color = args.format == "text" and not args.no_color and _stdout_wants_color()
    _write(FORMATS[args.format](report, color=color))
    if _failing(findings, args) and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _failing(findings, args) -> bool:
    """Whether any finding is at `--fail-on`'s severity or above."""
    worst = FAIL_LEVELS.index(args.fail_on)
    return any(FAIL_LEVELS.index(f.severity.value) <= worst for f in findings)


def _result_cache(
    args: argparse.Namespace, paths: list[Path], folders: FolderResolver
) -> ResultCache:
    """The cache of this run: `cache-dir` of the first path's settings (relative to its
    pyproject.toml), else .autograd-lint-cache/ in its project root (else here)."""
    settings = _SettingsResolver(args)(paths[0])
    base = settings.root or find_project_root(paths[0].absolute()) or Path.cwd()
    directory = Path(settings.cache_dir) if settings.cache_dir else Path(CACHE_DIR_NAME)
    # Besides each file's settings, what changes findings: the interpreter imports resolve in.
    return ResultCache(base / directory, repr(args.python), settings.max_file_size, folders)


def _identity(path: Path, folders: FolderResolver) -> Path:
    """The file a path names, to check each once; a symlink loop names only itself."""
    try:
        return folders.resolve(path)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        return path.absolute()


def _check_file(file: Path, settings: Settings, workspace: Workspace, fixes) -> list:
    shown = _display_path(file)
    try:
        if is_notebook(file):  # cells as one program, findings by cell (notebook/)
            from .notebook.check import check_notebook  # with the engine: when one is checked

            return check_notebook(
                shown,
                settings,
                resolver=workspace.resolve,
                fixes=fixes,
                root=find_project_root(file) or file.absolute().parent,
            )
        found = check_path(shown, settings, resolver=workspace.resolve)
        if fixes is not None:
            found = fixes.file(
                shown,
                found,
                lambda text, name: check_source(text, name, settings, resolver=workspace.resolve),
                # The project the path lies in as named, links not followed: a link
                # in a clone to a file elsewhere must not make elsewhere the project.
                root=find_project_root(file) or file.absolute().parent,
                limit=settings.max_file_size,
            )
    except Exception as exc:  # noqa: BLE001 - one path must never cost the run the others
        logging.getLogger(__name__).exception("internal error while checking %s", shown)
        return [file_problem(shown, f"not checked: internal error ({type(exc).__name__})")]
    return found


class _SettingsResolver:
    """Settings for each PATH argument: its nearest pyproject.toml (or --config), plus options."""

    def __init__(self, args: argparse.Namespace):
        self._args = args
        self._by_file: dict[Path | None, Settings] = {}

    def __call__(self, path: Path) -> Settings:
        pyproject = self._args.config or find_pyproject(path)
        key = pyproject.absolute() if pyproject else None
        if key not in self._by_file:
            base = read_pyproject(pyproject) if pyproject else Settings()
            extra_ignore = self._args.ignore or []
            self._by_file[key] = base.merged(
                select=self._args.select,
                ignore=[*base.ignore, *extra_ignore] if extra_ignore else None,
                max_file_size=self._args.max_file_size,
            )
        return self._by_file[key]


def _display_path(path: Path) -> Path:
    """Paths under the working directory are shown relative to it."""
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd())
        except ValueError:
            return path
    return path


def _stdout_wants_color() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def _write(text: str) -> None:
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:  # a console that cannot show a character of a message
        encoding = sys.stdout.encoding or "ascii"
        sys.stdout.write(text.encode(encoding, "backslashreplace").decode(encoding))
    sys.stdout.flush()


def _usage_error(message: str) -> int:
    print(f"autograd-lint: error: {message}", file=sys.stderr)
    return EXIT_USAGE


# -- rules ----------------------------------------------------------------------------------


def _add_rules(commands) -> None:
    rules = commands.add_parser("rules", help="list the rules", description="List the rules.")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=run_rules)


def run_rules(args: argparse.Namespace) -> int:
    if args.format == "json":
        # The same description the language server gives a client in `initialize`.
        listing = [r.to_json() for r in RULES.values()]
        _write(json.dumps(listing, indent=2) + "\n")
        return EXIT_CLEAN
    name_width = max((len(r.name) for r in RULES.values()), default=0)
    lines = [
        f"{r.code}  {r.name:<{name_width}}  {r.severity.value:<7}  {r.summary}"
        for r in RULES.values()
    ]
    _write("\n".join(lines) + "\n")
    return EXIT_CLEAN


# -- lsp: implemented by autograd_lint.lsp.server:main(args) --------------------------------


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def _add_lsp(commands) -> None:
    lsp = commands.add_parser(
        "lsp",
        help="run the language server",
        description="Run the language server (over stdin/stdout unless --tcp is given).",
    )
    transport = lsp.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    transport.add_argument(
        "--tcp", type=_host_port, metavar="HOST:PORT", help="listen on HOST:PORT instead"
    )
    # Some clients pass their process id; accepted so that they can start the server.
    lsp.add_argument("--clientProcessId", type=int, help=argparse.SUPPRESS)
    lsp.set_defaults(handler=run_lsp)


def run_lsp(args: argparse.Namespace) -> int:
    """Hands over to `autograd_lint.lsp.server.main(args)`.

    `args.stdio` is a bool, `args.tcp` is None or a `(host, port)` tuple.
    """
    try:
        from .lsp.server import main as lsp_main
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.lsp.server":
            raise
        return _usage_error("the language server is not available in this installation")
    return lsp_main(args) or EXIT_CLEAN
