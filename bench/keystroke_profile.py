"""Where one keystroke's time goes inside the language server, without stdio.

    python bench/keystroke_profile.py                 # both scenarios, top 25 by own time
    python bench/keystroke_profile.py --scenario broken --sort cumulative --top 40

It builds bench/latency.py's training file and edits, opens the file in a server made by
`create_server()` (its writer a sink), and replays each edit through the server's own
didChange handler, then analyses and publishes as the debounced task would. It prints the
CPU per keystroke (p50/p95 of `time.process_time`) and a cProfile of all the keystrokes of
the scenario (the first open excluded). The numbers are the server's work alone: no
JSON-RPC reading, no event loop, no waiting.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time

from autograd_lint.lsp.server import create_server
from latency import keystrokes, parses_after_each, percentile, training_file, typing_broken
from lsprotocol import types


class Sink:
    """The server's writer: keeps the last message written."""

    last = b""

    def write(self, data) -> None:
        self.last = data


def open_server(uri: str, text: str):
    server = create_server()
    server.protocol.writer = Sink()
    server.settings_loaded.set()
    server.pull_diagnostics = True  # no debounce task: the replay analyses itself
    server.related_information = True  # as bench/latency.py's client asks
    did_open = server.protocol.fm.features[types.TEXT_DOCUMENT_DID_OPEN]
    did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    document = server.documents.get(uri)
    server.analyse(document)
    server.publish(document)
    return server, document


def replay(server, document, edits, profile: cProfile.Profile | None, each=None) -> list[float]:
    """CPU seconds of each edit, didChange to the publish; `each(version)` is called after
    each publish."""
    did_change = server.protocol.fm.features[types.TEXT_DOCUMENT_DID_CHANGE]
    cpu = []
    for version, (line, start, end_line, end, new_text) in enumerate(edits, start=2):
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, start), types.Position(end_line, end)),
            text=new_text,
        )
        params = types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=document.uri, version=version), [change]
        )
        began = time.process_time()
        if profile is not None:
            profile.enable()
        did_change(params)
        server.analyse(document)
        server.publish(document)
        if profile is not None:
            profile.disable()
        cpu.append(time.process_time() - began)
        if each is not None:
            each(version)
    return cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", choices=["valid", "broken", "both"], default="both")
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-profile", action="store_true", help="CPU numbers only")
    args = parser.parse_args()
    text = training_file(args.lines)
    lines = text.split("\n")
    scenarios = {
        "valid": lambda: keystrokes(lines, args.edits),
        "broken": lambda: typing_broken(lines),
    }
    for name, make_edits in scenarios.items():
        if args.scenario not in (name, "both"):
            continue
        edits = make_edits()
        server, document = open_server(f"file:///bench/{name}.py", text)
        replay(server, document, edits[:5], None)  # warm what a first edit builds
        profile = None if args.no_profile else cProfile.Profile()
        cpu = replay(server, document, edits[5:], profile)
        ms = [value * 1000 for value in cpu]
        parses = parses_after_each(lines, edits)[5:]
        print(f"{name}: {len(ms)} keystrokes, CPU p50 {percentile(ms, 0.5):.1f} ms, "
              f"p95 {percentile(ms, 0.95):.1f} ms")  # fmt: skip
        for kind, wanted in (("parse", True), ("do not parse", False)):
            part = [value for value, ok in zip(ms, parses, strict=True) if ok == wanted]
            if part:
                print(f"  {len(part)} versions that {kind}: p50 {percentile(part, 0.5):.1f} ms, "
                      f"p95 {percentile(part, 0.95):.1f} ms")  # fmt: skip
        if profile is not None:
            pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
