"""Line tracing of the user's script: loop iteration markers and a map from autograd
sequence numbers to the script line that was running when each node was created.

Autograd numbers the nodes it creates from a per-thread counter
(`torch._C._autograd._get_sequence_nr()` peeks at the next number; `node._sequence_nr()`
reads a node's). Recording the counter at each traced line and at each pass over a loop's
first line lets us say, for any node, which line built it and in which iteration, without
anomaly mode's per-node traceback capture.

Loaded by the harness from its file path; standard library only, Python 3.8 syntax.
"""

from __future__ import annotations

import bisect
import builtins
import sys


class ScriptTracer:
    def __init__(self, script, loops, next_sequence_nr):
        self.script = script
        self.next_sequence_nr = next_sequence_nr
        self.loops = sorted(set(loops))
        self.counts = {start: 0 for start, _ in self.loops}
        # loop start -> parallel lists: sequence number at each pass, iteration it began
        self.markers = {start: ([], []) for start, _ in self.loops}
        self.nested = {
            start: [s for s, e in self.loops if start <= s <= e <= end and (s, e) != (start, end)]
            for start, end in self.loops
        }
        self.loop_code = {}
        self.line_seqs = []  # strictly increasing
        self.line_numbers = []
        self.importing = None  # the interpreter's __import__, which ours wraps
        self.tracing = False
        self.recording = None  # the _lines module, when the script was compiled with calls

    def start(self):
        # While a module loads, no line of the script runs, yet with a trace function set
        # CPython 3.11 runs *all* Python code on its slow tracing path: an import (the
        # script's `import lightning`, the optimizer's first `import torch._dynamo`) took
        # about 1.45 times as long. Imports run untraced; nodes they build stay the
        # importing line's, as they were (library lines are never recorded).
        self.importing = builtins.__import__
        builtins.__import__ = self.untraced_import
        self.tracing = True
        sys.settrace(self.global_trace)

    def start_recording(self, lines, loop_lines):
        """Records through the calls `_lines.py` compiled into the script (whose loop
        statements start at `loop_lines`): no trace function is set, so nothing else the
        process runs pays for it."""
        self.recording = lines
        lines.install(self, loop_lines)

    def stop(self):
        if self.recording is not None:
            self.recording.uninstall()
            self.recording = None
        self.tracing = False
        sys.settrace(None)
        if self.importing is not None and builtins.__import__ == self.untraced_import:
            builtins.__import__ = self.importing

    def untraced_import(self, *args, **kwargs):
        if not self.tracing or sys.gettrace() != self.global_trace:
            return self.importing(*args, **kwargs)  # nested, stopped, or another tracer's
        sys.settrace(None)
        try:
            return self.importing(*args, **kwargs)
        finally:
            if self.tracing and sys.gettrace() is None:
                sys.settrace(self.global_trace)

    # -- tracing --------------------------------------------------------------------------

    def global_trace(self, frame, event, arg):
        if frame.f_code.co_filename != self.script:
            return None
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if event == "line":
            line = frame.f_lineno
            self.record(line)
            if line in self.counts:
                self.mark(frame, line)
        elif event == "return":
            # Nodes the caller creates after this returns belong to the caller's line.
            caller = frame.f_back
            while caller is not None and caller.f_code.co_filename != self.script:
                caller = caller.f_back
            if caller is not None:
                self.record(caller.f_lineno)
        return self.local_trace

    def record(self, line):
        seq = self.next_sequence_nr()
        if self.line_seqs and self.line_seqs[-1] == seq:
            self.line_numbers[-1] = line  # no node was created on the previous line
        else:
            self.line_seqs.append(seq)
            self.line_numbers.append(line)

    def mark(self, frame, start):
        # A comprehension or lambda on the loop's first line runs in another code object.
        code = self.loop_code.setdefault(start, frame.f_code)
        if code is not frame.f_code:
            return
        self.counts[start] += 1
        for inner in self.nested[start]:
            self.counts[inner] = 0
        seqs, iterations = self.markers[start]
        seqs.append(self.next_sequence_nr())
        iterations.append(self.counts[start])

    # -- queries --------------------------------------------------------------------------

    def line_of(self, seq):
        index = bisect.bisect_right(self.line_seqs, seq) - 1
        return self.line_numbers[index] if index >= 0 else None

    def iteration_at(self, loop, seq):
        """The iteration of `loop` that was running when node `seq` was made; 0 = before it."""
        seqs, iterations = self.markers[loop]
        index = bisect.bisect_right(seqs, seq) - 1
        return iterations[index] if index >= 0 else 0

    def runs_loop(self, frame, start):
        """Whether `frame` runs the loop at `start` (a function defined inside a loop's body
        lies within its lines but runs in a frame of its own)."""
        code = self.loop_code.get(start)
        return code is None or code is frame.f_code

    def pass_at(self, loop, seq):
        """How many passes over `loop`'s first line had begun when node `seq` was made."""
        return bisect.bisect_right(self.markers[loop][0], seq)

    def enclosing_loop(self, stack):
        """The innermost given loop around the innermost script frame that sits in one."""
        for line, frame in stack:
            holding = [
                (end - start, start)
                for start, end in self.loops
                if start <= line <= end and self.runs_loop(frame, start)
            ]
            if holding:
                return min(holding)[1]
        return None
