"""Language-server latency over real stdio: startup, first open, keystrokes, memory.

    python bench/latency.py                  # 5,000-line file, 200 edits, 100 files
    python bench/latency.py --files 20 --edits 100 --json

A raw JSON-RPC client (no pygls on this side, so the numbers are the server's) starts
`python -m autograd_lint.lsp`, and measures:

- startup: process start until the `initialize` response (median of --starts runs), and
  once with the server's import cache off (a first start after installing);
- first open: didOpen of a generated training file until its publishDiagnostics, in each
  of the --starts servers and the one that goes on to the keystrokes (median);
- keystrokes: --edits single-character edits inside one function (typing a line,
  then deleting it), each timed from didChange to the publishDiagnostics of that
  version, with --gap seconds between keystrokes (typing speed);
- typing into code that does not parse: a statement with nested calls and brackets typed
  into a function one character at a time and deleted again (most versions of the file do
  not parse), timed per version and reported apart for the versions that parse and those
  that do not; then the same file and edits sent to `ruff server` (default rules), for which
  the same numbers are printed beside ours (skipped with --no-ruff or without ruff);
- memory: the server's RSS after opening --files such files;
- beside startup, the floor under it: a pygls `LanguageServer` with no feature of ours
  (bench/pygls_floor.py, the same Python, pygls and lsprotocol) from process start to its
  `initialize` response, median of --starts runs, with our lsprotocol import cache and
  without it; what our code adds is the difference;
- beside startup, first open and keystrokes, the server's own CPU time for them (from
  /proc/PID/task/*/schedstat), which a busy shared machine disturbs far less; ruff
  server's too; and the machine's load average at the start and the end of the run.

The file repeats the samples' models and training loops as functions with new names
until it has --lines lines. Targets (wall time, on a quiet machine; the closing summary
block says met or MISSED for each, with the CPU time beside it): keystroke p95 <= 30 ms,
typing into broken code p95 <= 20 ms, first open <= 300 ms, startup <= 400 ms, RSS <= 150 MB.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import itertools
import json
import os
import re
import shutil
import statistics
import sys
import textwrap
import time
from pathlib import Path

from machine_load import load_average

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SERVER = [sys.executable, "-m", "autograd_lint.lsp"]
PYGLS_FLOOR = [sys.executable, str(Path(__file__).resolve().parent / "pygls_floor.py")]
CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
        "hover": {"contentFormat": ["markdown"]},
    },
}


# -- the generated training file ------------------------------------------------------


def sample_as_functions(source: str, suffix: str) -> tuple[list[str], str]:
    """(import lines, code): the sample's classes and functions renamed with `suffix`,
    its module-level statements moved into `def main{suffix}():`."""
    tree = ast.parse(source)
    lines = source.split("\n")
    imports, definitions, statements = [], [], []
    for node in tree.body:
        segment = "\n".join(lines[node.lineno - 1 : node.end_lineno])
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.append(segment)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            definitions.append("\n".join(lines[start - 1 : node.end_lineno]))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            statements.append(segment)
    defined = [n.name for n in tree.body if hasattr(n, "name")]
    body = textwrap.indent("\n".join(statements), "    ") or "    pass"
    code = "\n\n\n".join([*definitions, f"def main{suffix}():\n{body}"])
    for name in defined:
        code = re.sub(rf"\b{re.escape(name)}\b", f"{name}{suffix}", code)
    return imports, code


def training_file(min_lines: int) -> str:
    samples = sorted(SAMPLES.glob("*.py"))
    imports: dict[str, None] = {}
    parts: list[str] = []
    total = 0
    for index in itertools.count():
        sample = samples[index % len(samples)]
        sample_imports, code = sample_as_functions(sample.read_text(encoding="utf-8"), f"_{index}")
        imports.update(dict.fromkeys(sample_imports))
        parts.append(code)
        total += code.count("\n") + 3
        if total >= min_lines:
            break
    return "\n".join(imports) + "\n\n\n" + "\n\n\n".join(parts) + "\n"


# -- a minimal JSON-RPC client ------------------------------------------------------------


class Client:
    def __init__(self, process: asyncio.subprocess.Process):
        self.process = process
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future] = {}
        self.published: dict[tuple[str, int | None], float] = {}
        self.publish_event = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, command: list[str] = SERVER, **extra_env: str) -> Client:
        # As an editor starts it: with bytecode caching on, whatever this shell says (the
        # first of the --starts runs writes the .pyc files the others read).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(extra_env)
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**26,
            env=env,
        )
        return cls(process)

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    async def request(self, method: str, params) -> dict:
        request_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self.send({"id": request_id, "method": method, "params": params})
        return await future

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    async def _read(self) -> None:
        stdout = self.process.stdout
        while True:
            length = None
            while (header := await stdout.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if header == b"" or length is None:
                return
            message = json.loads(await stdout.readexactly(length))
            now = time.perf_counter()
            if "id" in message and "method" not in message:
                self.pending.pop(message["id"]).set_result(message)
            elif message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                self.published[(params["uri"], params.get("version"))] = now
                self.publish_event.set()
            elif "id" in message:  # a request from the server: answer with nothing
                self.send({"id": message["id"], "result": None})

    async def published_at(self, uri: str, version: int) -> float:
        while (uri, version) not in self.published:
            self.publish_event.clear()
            await asyncio.wait_for(self.publish_event.wait(), 120)
        return self.published[(uri, version)]

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        self.process.stdin.close()  # as editors do: the server's reader thread sees EOF
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except asyncio.TimeoutError:
            print("the server did not exit within 30 s after `exit`", file=sys.stderr)
            self.process.kill()
        self.reader.cancel()


async def initialized_client(command: list[str] = SERVER, **extra_env: str) -> tuple[Client, float]:
    started = time.perf_counter()
    client = await Client.start(command, **extra_env)
    await client.request(
        "initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": CAPABILITIES}
    )
    elapsed = time.perf_counter() - started
    client.startup_cpu = cpu_seconds(client.process.pid)
    client.notify("initialized", {})
    return client, elapsed


def open_document(client: Client, uri: str, text: str) -> float:
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    return time.perf_counter()


# -- measurements -----------------------------------------------------------------------


def keystrokes(lines: list[str], count: int) -> list[tuple[int, int, int, int, str]]:
    """(line, start, end_line, end, text) edits: type a statement into a function in the
    middle of the file one character at a time, then delete it, until `count` edits."""
    middle = len(lines) // 2
    anchor = next(i for i in range(middle, len(lines)) if lines[i].strip().startswith("loss"))
    indent = lines[anchor][: len(lines[anchor]) - len(lines[anchor].lstrip())]
    statement = "probe = loss.detach().mean()"
    edits = [(anchor, 0, anchor, 0, indent + "\n")]  # a new, empty line in the function
    typed = len(indent)
    while len(edits) < count:
        for char in statement:
            edits.append((anchor, typed, anchor, typed, char))
            typed += 1
        for _ in statement:
            edits.append((anchor, typed - 1, anchor, typed, ""))
            typed -= 1
    return edits[:count]


# Most prefixes of it leave a bracket open: typed char by char, the file mostly does not parse.
BROKEN_STATEMENT = "probe = torch.stack([loss.detach().mean(), (loss * 2).sum(dim=0)], dim=0)"


def typing_broken(lines: list[str]) -> list[tuple[int, int, int, int, str]]:
    """Edits that type BROKEN_STATEMENT into a function on a new line, one character at a
    time, then delete it character by character."""
    anchor = next(
        i for i in range(len(lines) // 3, len(lines)) if lines[i].strip().startswith("loss")
    )
    indent = lines[anchor][: len(lines[anchor]) - len(lines[anchor].lstrip())]
    edits = [(anchor, 0, anchor, 0, indent + "\n")]
    typed = len(indent)
    for char in BROKEN_STATEMENT:
        edits.append((anchor, typed, anchor, typed, char))
        typed += 1
    for _ in BROKEN_STATEMENT:
        edits.append((anchor, typed - 1, anchor, typed, ""))
        typed -= 1
    return edits


def parses_after_each(lines: list[str], edits) -> list[bool]:
    """Whether the file parses after each edit (single-line edits, as typing_broken makes)."""
    current = list(lines)
    out = []
    for line, start, _end_line, end, new_text in edits:
        text = current[line]
        edited = (text[:start] + new_text + text[end:]).split("\n")
        current[line : line + 1] = edited
        try:
            compile("\n".join(current), "<bench>", "exec", ast.PyCF_ONLY_AST)
            out.append(True)
        except SyntaxError:
            out.append(False)
    return out


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    """CPU time the server's threads have run (ns-exact, from the scheduler): unlike wall
    time, it does not count the moments a shared machine gives the server no CPU."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024


async def type_edits(client: Client, uri: str, edits, first_version: int, gap: float):
    """(latencies in s, server CPU seconds) of each edit, didChange to its publish."""
    latencies, cpu_times = [], []
    for version, (line, start, end_line, end, new_text) in enumerate(edits, start=first_version):
        change = {
            "range": {
                "start": {"line": line, "character": start},
                "end": {"line": end_line, "character": end},
            },
            "text": new_text,
        }
        cpu = cpu_seconds(client.process.pid)
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        sent = time.perf_counter()
        latencies.append(await client.published_at(uri, version) - sent)
        cpu_times.append(cpu_seconds(client.process.pid) - cpu)
        await asyncio.sleep(gap)
    return latencies, cpu_times


def split_summary(latencies, cpu_times, parses: list[bool]) -> dict:
    """p50/p95/max (ms) over the versions that do not parse and over those that do."""
    out = {}
    for name, wanted in (("broken", False), ("valid", True)):
        ms = [value * 1000 for value, ok in zip(latencies, parses, strict=True) if ok == wanted]
        cpu = [value * 1000 for value, ok in zip(cpu_times, parses, strict=True) if ok == wanted]
        if ms:
            out[name] = {
                "count": len(ms),
                "p50": percentile(ms, 0.50),
                "p95": percentile(ms, 0.95),
                "max": max(ms),
                "cpu_p50": percentile(cpu, 0.50),
                "cpu_p95": percentile(cpu, 0.95),
            }
    return out


# ruff's default rules, stated so that no configuration file near the bench changes them:
# what an editor runs while one types (with ALL, ruff answers a version that parses in
# ~120 ms here).
RUFF_OPTIONS = {
    "settings": {
        "configurationPreference": "editorOnly",
        "lint": {"select": ["E4", "E7", "E9", "F"]},
    }
}


async def ruff_typing(text: str, edits, parses: list[bool], gap: float) -> dict | None:
    """The same file and edits sent to `ruff server`, timed the same way."""
    ruff = shutil.which("ruff")
    if ruff is None:
        return None
    process = await asyncio.create_subprocess_exec(
        ruff,
        "server",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=2**26,
    )
    client = Client(process)
    await client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": None,
            "capabilities": CAPABILITIES,
            "initializationOptions": RUFF_OPTIONS,
        },
    )
    client.notify("initialized", {})
    uri = "file:///bench/ruff/train_0.py"
    open_document(client, uri, text)
    await client.published_at(uri, 1)
    latencies, cpu_times = await type_edits(client, uri, edits, 2, gap)
    await client.stop()
    return split_summary(latencies, cpu_times, parses)


async def pygls_floor(starts: int) -> dict:
    """Process start to `initialize` answered by a pygls server with nothing of ours
    (median of `starts`, wall and CPU ms), with our lsprotocol import cache and without."""
    floor = {}
    for name, env in (("cached", {}), ("uncached", {"AUTOGRAD_LINT_NO_IMPORT_CACHE": "1"})):
        walls, cpus = [], []
        for _ in range(starts):
            client, elapsed = await initialized_client(PYGLS_FLOOR, **env)
            walls.append(elapsed)
            cpus.append(client.startup_cpu)
            await client.stop()
        floor[name] = statistics.median(walls) * 1000
        floor[f"{name}_cpu"] = statistics.median(cpus) * 1000
    return floor


async def measure(args) -> dict:
    load_at_start = load_average()
    text = training_file(args.lines)
    lines = text.split("\n")
    # Without the import cache: what a first start after installing costs.
    client, uncached = await initialized_client(AUTOGRAD_LINT_NO_IMPORT_CACHE="1")
    await client.stop()
    uri = "file:///bench/train_0.py"
    startups, first_opens = [], []
    first_open_cpu, startup_cpu = [], []
    for index in range(args.starts + 1):
        # Each start opens the file once in a fresh server; the last server goes on.
        client, elapsed = await initialized_client()
        if index < args.starts:
            startups.append(elapsed)
            startup_cpu.append(client.startup_cpu)
        cpu = cpu_seconds(client.process.pid)
        opened = open_document(client, uri, text)
        first_opens.append(await client.published_at(uri, 1) - opened)
        first_open_cpu.append(cpu_seconds(client.process.pid) - cpu)
        if index < args.starts:
            await client.stop()

    floor = await pygls_floor(args.starts)

    edits = keystrokes(lines, args.edits)
    latencies, cpu_times = await type_edits(client, uri, edits, 2, args.gap)

    # Typing into broken code, in a document of its own (the same text).
    broken_edits = typing_broken(lines)[: args.broken_edits or None]
    parses = parses_after_each(lines, broken_edits)
    broken_uri = "file:///bench/typing_0.py"
    open_document(client, broken_uri, text)
    await client.published_at(broken_uri, 1)
    typed = await type_edits(client, broken_uri, broken_edits, 2, args.gap)
    typing = split_summary(*typed, parses)
    client.notify("textDocument/didClose", {"textDocument": {"uri": broken_uri}})
    ruff = None
    if not args.no_ruff:
        ruff = await ruff_typing(text, broken_edits, parses, args.gap)

    for index in range(1, args.files):
        other = f"file:///bench/train_{index}.py"
        open_document(client, other, text)
        await client.published_at(other, 1)
    memory = rss_mb(client.process.pid)
    await client.stop()
    ms = [value * 1000 for value in latencies]
    return {
        "file_lines": len(lines),
        "startup_ms_median": statistics.median(startups) * 1000,
        "startup_ms_without_import_cache": uncached * 1000,
        "startup_cpu_ms_median": statistics.median(startup_cpu) * 1000,
        "pygls_floor_ms": floor,
        "first_open_ms": statistics.median(first_opens) * 1000,
        "first_open_ms_each": [round(value * 1000, 1) for value in first_opens],
        "first_open_cpu_ms": statistics.median(first_open_cpu) * 1000,
        "keystroke_ms": {
            "count": len(ms),
            "p50": percentile(ms, 0.50),
            "p95": percentile(ms, 0.95),
            "max": max(ms),
            "cpu_p50": percentile([value * 1000 for value in cpu_times], 0.50),
            "cpu_p95": percentile([value * 1000 for value in cpu_times], 0.95),
        },
        "typing_into_broken_code_ms": typing,
        "ruff_server_ms": ruff,
        "files_open": args.files,
        "rss_mb": memory,
        "load_average": {"start": load_at_start, "end": load_average()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=5000, help="lines of the training file")
    parser.add_argument("--edits", type=int, default=200, help="single-character edits")
    parser.add_argument("--gap", type=float, default=0.08, help="seconds between keystrokes")
    parser.add_argument("--files", type=int, default=100, help="files open for the RSS number")
    parser.add_argument("--starts", type=int, default=3, help="server starts for the median")
    parser.add_argument(
        "--broken-edits", type=int, default=0, help="edits of the broken-code typing (0: all)"
    )
    parser.add_argument("--no-ruff", action="store_true", help="skip the ruff server run")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    numbers = asyncio.run(measure(args))
    if args.json:
        print(json.dumps(numbers, indent=2))
        return 0
    keys = numbers["keystroke_ms"]
    print(f"training file          {numbers['file_lines']} lines")
    print(
        f"startup → initialize   {numbers['startup_ms_median']:.0f} ms (median of {args.starts}; "
        f"{numbers['startup_ms_without_import_cache']:.0f} ms without the import cache); "
        f"server CPU {numbers['startup_cpu_ms_median']:.0f} ms"
    )
    floor = numbers["pygls_floor_ms"]
    print(
        f"  an empty pygls server {floor['cached']:.0f} ms with our lsprotocol import cache "
        f"({floor['uncached']:.0f} ms without); CPU {floor['cached_cpu']:.0f} ms"
    )
    each = ", ".join(f"{value:.0f}" for value in numbers["first_open_ms_each"])
    print(
        f"first open → publish   {numbers['first_open_ms']:.0f} ms (median of {each}); "
        f"server CPU {numbers['first_open_cpu_ms']:.0f} ms"
    )
    print(
        f"keystroke → publish    p50 {keys['p50']:.1f} ms, p95 {keys['p95']:.1f} ms, "
        f"max {keys['max']:.1f} ms ({keys['count']} edits); "
        f"server CPU p50 {keys['cpu_p50']:.1f} ms, p95 {keys['cpu_p95']:.1f} ms"
    )
    ruff = numbers["ruff_server_ms"] or {}
    for kind in ("broken", "valid"):
        ours = numbers["typing_into_broken_code_ms"].get(kind)
        if ours is None:
            continue
        theirs = ruff.get(kind)
        beside = (
            f"; ruff server p50 {theirs['p50']:.1f} ms, p95 {theirs['p95']:.1f} ms "
            f"(ours/ruff p95 {ours['p95'] / theirs['p95']:.1f}x)"
            if theirs
            else ("; ruff server not run" if args.no_ruff else "; ruff not found")
        )
        print(
            f"typing, {kind:6} code    p50 {ours['p50']:.1f} ms, p95 {ours['p95']:.1f} ms, "
            f"max {ours['max']:.1f} ms ({ours['count']} versions), "
            f"CPU p95 {ours['cpu_p95']:.1f} ms{beside}"
        )
    print(f"RSS with {args.files} files    {numbers['rss_mb']:.0f} MB")
    print_summary(numbers, args.files)
    return 0


TARGETS_MS = {"startup": 400, "first_open": 300, "keystroke_p95": 30, "broken_p95": 20}
TARGET_RSS_MB = 150


def print_summary(numbers: dict, files: int) -> None:
    """Every target in one block: the wall time (the target) and the server's CPU beside it."""

    def line(name: str, wall: float, cpu: float, target: float, beside: str = "") -> None:
        verdict = "met" if wall <= target else "MISSED"
        print(f"  target: {name} <= {target:g} ms -> {verdict} ({wall:.1f} ms wall; server CPU "
              f"{cpu:.1f} ms){beside}")  # fmt: skip

    load = numbers["load_average"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"summary ({cores} cores; load average 1/5/15 min {load['start']} at the start, "
          f"{load['end']} at the end):")  # fmt: skip
    floor = numbers["pygls_floor_ms"]
    line("startup", numbers["startup_ms_median"], numbers["startup_cpu_ms_median"],
         TARGETS_MS["startup"], f"; an empty pygls server: {floor['cached']:.1f} ms wall, "
         f"CPU {floor['cached_cpu']:.1f} ms")  # fmt: skip
    line("first open", numbers["first_open_ms"], numbers["first_open_cpu_ms"],
         TARGETS_MS["first_open"])  # fmt: skip
    keys = numbers["keystroke_ms"]
    line("keystroke p95", keys["p95"], keys["cpu_p95"], TARGETS_MS["keystroke_p95"])
    broken = numbers["typing_into_broken_code_ms"].get("broken")
    if broken is not None:
        theirs = (numbers["ruff_server_ms"] or {}).get("broken")
        beside = ""
        if theirs:
            beside = (f"; ruff server p95 {theirs['p95']:.1f} ms wall, CPU {theirs['cpu_p95']:.1f}"
                      f" ms: ours/ruff {broken['p95'] / theirs['p95']:.1f}x wall")  # fmt: skip
        line("typing into broken code p95", broken["p95"], broken["cpu_p95"],
             TARGETS_MS["broken_p95"], beside)  # fmt: skip
    rss = numbers["rss_mb"]
    verdict = "met" if rss <= TARGET_RSS_MB else "MISSED"
    print(f"  target: RSS with {files} files <= {TARGET_RSS_MB} MB -> {verdict} ({rss:.0f} MB)")


if __name__ == "__main__":
    sys.exit(main())
