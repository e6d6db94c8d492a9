"""The harness's instrumentation: the wrapped `backward`/`autograd.grad` calls, what each
call's graph shows (walked and probed before it runs), and the failures and verdict they add
up to. Loaded by harness.py as a sibling (the user's interpreter may not have autograd-lint
installed): standard library only, Python 3.8 syntax; torch and the `_graph`, `_calls` and
tracer helpers are handed in by harness.main().
"""

from __future__ import annotations

import bisect
import contextlib
import sys
import threading
import time
import traceback


class HarnessStop(BaseException):
    """Unwinds the user's script once the verdict is written; `except Exception` won't catch it."""


class Instrumentation:
    def __init__(self, torch, graph, args, script, channel, tracer, call_helpers):
        self.torch = torch
        self.graph = graph
        self.call_helpers = call_helpers  # the `_calls` sibling: call sites, frames, memory
        self.args = args
        self.script = script
        self.channel = channel
        self.tracer = tracer
        self.calls = 0
        self.graph_nodes = []
        self.site_calls = {}  # call line -> [sequence number at each call]
        self.cuda_device = None
        self.device = "cpu"
        self.verdict_sent = False
        self.local = threading.local()
        self.failures = []  # distinct failing backwards, in the order they were met
        self.skipped = 0  # failing backward calls skipped so far (--keep-going)
        self.freed_by = {}  # node sequence number -> the call that freed its saved tensors
        self.steps = []  # per backward call: the graph it walks and what the script keeps
        self.graph_seconds = 0.0  # CPU time spent walking and probing graphs so far

    # -- verdicts -------------------------------------------------------------------------

    def finish(self, status, detail, **fields):
        if self.verdict_sent:
            return
        self.verdict_sent = True
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        self.channel.send(
            "verdict",
            status=status,
            detail=detail,
            device=self.device,
            backward_calls=self.calls,
            graph_nodes=self.graph_nodes,
            peak_memory_bytes=self.call_helpers.peak_memory(self.torch, self.cuda_device),
            steps=self.steps,
            **fields,
        )

    def finish_run(self, status, detail, **fields):
        """The verdict at the end of the run: confirmed when any backward failed."""
        if not self.failures:
            self.finish(status, detail, **fields)
            return
        first = dict(self.failures[0])
        more = len(self.failures) - 1
        text = first.pop("detail")
        if more:
            text += f"; and {more} more failing backward{'s' if more > 1 else ''}"
        if status == "error":  # the script went on after a skipped backward, then crashed
            first["after_skip_error"] = detail
        self.finish("confirmed", text, failures=self.failures, **first)

    # -- the wrapped entry points ---------------------------------------------------------

    def wrap(self, original, kind):
        instrumentation = self

        def wrapper(*args, **kwargs):
            # Nested calls (Tensor.backward -> autograd.backward, reentrant checkpointing) and
            # calls from autograd's device threads belong to the call already checked.
            nested = getattr(instrumentation.local, "depth", 0)
            if nested or threading.current_thread() is not threading.main_thread():
                return original(*args, **kwargs)
            if instrumentation.verdict_sent:
                raise HarnessStop()
            if instrumentation.args.bare_stop:
                return instrumentation.bare_call(original, args, kwargs)
            instrumentation.local.depth = 1
            try:
                return instrumentation.checked_call(original, kind, args, kwargs)
            finally:
                instrumentation.local.depth = 0

        wrapper.__wrapped__ = original
        wrapper.__name__ = getattr(original, "__name__", kind)
        wrapper.__doc__ = getattr(original, "__doc__", None)
        return wrapper

    def bare_call(self, original, args, kwargs):
        """--bare-stop: count the calls, stop before the Nth; nothing else is measured."""
        self.calls += 1
        if self.calls >= self.args.bare_stop:
            self.channel.send("bare-stop", call=self.calls, cpu_seconds=time.process_time())
            self.finish("not-reproduced", f"bare run stopped before backward call {self.calls}")
            raise HarnessStop()
        return original(*args, **kwargs)

    def checked_call(self, original, kind, args, kwargs):
        graph = self.graph
        started = time.process_time()
        frame = sys._getframe(2)
        line, stack = self.call_helpers.call_site(self.script, self.args.lines, frame)
        self.calls += 1
        iteration, loop = self.iteration_of(line, stack)
        try:
            roots, inputs, devices = graph.gradient_roots(self.torch, kind, args, kwargs)
            nodes = graph.walk(roots, inputs)
            self.note_device(devices)
            broken, saved_bytes = graph.inspect(self.torch, nodes)
            self.measure(line, iteration, nodes, saved_bytes, stack)
        except Exception:
            # A harness bug must not change what the script does: let the call run as is.
            self.channel.send("harness-error", line=line, detail=traceback.format_exc())
            nodes, broken = [], None
        self.graph_seconds += time.process_time() - started
        self.graph_nodes.append(len(nodes))
        self.channel.send(
            "backward", call=self.calls, line=line, iteration=iteration, nodes=len(nodes)
        )
        where = (line, iteration, loop, stack)
        if broken is not None and not self.args.no_intercept:
            node, problem, message = broken
            self.fail(where, node, problem, message, intercepted=True)
            return self.skip_or_stop(kind, args, kwargs)
        try:
            result = original(*args, **kwargs)
        except RuntimeError as error:
            problem = graph.classify(str(error))
            if problem is None:
                raise
            # Name the node the probe found; after the failure backward has freed more.
            node = broken[0] if broken is not None else None
            inner = self.call_helpers.traceback_frames(self.script, error)
            self.fail(where, node, problem, str(error), intercepted=False, inner=inner)
            return self.skip_or_stop(kind, args, kwargs)
        if broken is not None:
            # The probe predicted a failure that did not happen: worth knowing when checking it.
            self.channel.send("probe-mismatch", line=line, node=type(broken[0]).__name__)
        if not self.call_helpers.retains_graph(kind, args, kwargs):
            freeing = (line, iteration, self.loop_pass(loop))
            for node in nodes:
                self.freed_by[node._sequence_nr()] = freeing
        if self.calls >= self.args.max_steps:
            self.finish_run(
                "not-reproduced",
                f"not reproduced in {self.calls} steps",
                iteration=iteration,
                line=line,
            )
            raise HarnessStop()
        return result

    def skip_or_stop(self, kind, args, kwargs):
        """After a failure: with --keep-going, the call is skipped (it returns as if it had
        run, computing nothing) until --max-steps calls; else the script stops here."""
        if self.args.keep_going and self.calls < self.args.max_steps:
            try:
                result = self.call_helpers.skipped_result(self.torch, kind, args, kwargs)
            except Exception:  # inputs we cannot make zeros for: stop here instead
                self.finish_run("confirmed", "")
                raise HarnessStop() from None
            self.skipped += 1
            return result
        self.finish_run("confirmed", "")
        raise HarnessStop()

    def measure(self, line, iteration, nodes, saved_bytes, stack):
        """The step's figures: the graph this backward walks, and the whole graph the
        script's variables keep alive (a graph accumulated for logging is never walked)."""
        held = []
        if stack:
            outermost = stack[-1][1]
            held.extend(outermost.f_globals.values())
            for _, frame in stack:
                if frame is not outermost:
                    held.extend(frame.f_locals.values())
        live = self.graph.walk(self.graph.graph_roots_in(self.torch, held))
        _, live_bytes = self.graph.inspect(self.torch, live)
        step = {
            "call": self.calls,
            "line": line,
            "iteration": iteration,
            "nodes": len(nodes),
            "savedBytes": saved_bytes,
            "liveNodes": len(live),
            "liveBytes": live_bytes,
        }
        if self.cuda_device is not None:
            with contextlib.suppress(Exception):
                step["deviceBytes"] = int(self.torch.cuda.max_memory_allocated(self.cuda_device))
                self.torch.cuda.reset_peak_memory_stats(self.cuda_device)
        self.steps.append(step)

    def loop_pass(self, loop):
        """How many passes over the loop's first line have begun (never reset, unlike counts)."""
        if loop is None or self.tracer is None:
            return None
        return len(self.tracer.markers[loop][0])

    def note_device(self, devices):
        cuda = [d for d in devices if d.type == "cuda"]
        if cuda:
            self.cuda_device = cuda[0]
            self.device = self.call_helpers.physical_device(cuda[0])

    def iteration_of(self, line, stack):
        """The iteration the call runs in: of the innermost given loop holding it, else by call count."""
        loop = self.tracer.enclosing_loop(stack) if self.tracer else None
        if loop is not None:
            return self.tracer.counts[loop], loop
        seqs = self.site_calls.setdefault(line, [])
        seqs.append(self.torch._C._autograd._get_sequence_nr())
        return len(seqs), None

    def built_iteration(self, seq, line, loop):
        if loop is not None:
            return self.tracer.iteration_at(loop, seq)
        # Without a loop, the calls from this line mark the iterations: a node built before
        # the first call belongs to iteration 1.
        return bisect.bisect_left(self.site_calls.get(line, []), seq) + 1

    def fail(self, where, node, problem, message, intercepted, inner=()):
        line, iteration, loop, stack = where
        loop_start, loop_end = self.loop_span(loop)

        def runs_loop(frame_line, frame):
            in_lines = loop is not None and loop_start <= frame_line <= loop_end
            return in_lines and self.tracer.runs_loop(frame, loop)

        frames = list(inner) + self.call_helpers.frame_chain(stack, runs_loop)
        # Inside a custom Function's backward, the failing line is the script's own line there.
        failing_line = inner[0]["line"] if inner else line
        fields = {
            "line": failing_line,
            "iteration": iteration,
            "problem": problem,
            "intercepted": intercepted,
            "exception": None if intercepted else message,
            "frames": frames,
            "loop": [loop_start, loop_end] if loop is not None else None,
            "after_skip": self.skipped > 0,
        }
        if node is not None:
            seq = node._sequence_nr()
            built_line = self.tracer.line_of(seq) if self.tracer else None
            fields.update(
                node=type(node).__name__,
                built_line=built_line,
                built_iteration=self.built_iteration(seq, line, loop),
            )
            freed = self.freed_by.get(seq)
            if freed is not None:
                fields.update(freed_line=freed[0], freed_iteration=freed[1])
            fields["same_step"] = self.same_step(seq, freed, loop)
        key = (failing_line, problem, fields.get("built_line"))
        for earlier in self.failures:
            if (earlier["line"], earlier["problem"], earlier.get("built_line")) == key:
                earlier["repeats"] = earlier.get("repeats", 1) + 1
                return
        where_text = f"line {failing_line}, iteration {iteration}"
        if problem == "inplace":
            detail = (
                f"backward at {where_text} needs a saved tensor that was later modified in place"
            )
        else:
            detail = (
                f"backward at {where_text} reaches a graph whose saved tensors were already freed"
            )
        if node is not None:
            built = f"built at line {fields['built_line']} in iteration {fields['built_iteration']}"
            detail += f" ({fields['node']} {built})"
        if not intercepted:
            detail += ": " + message.splitlines()[0]
        fields["detail"] = detail
        self.failures.append(fields)
        # CPU seconds of this process so far (torch's import included): what the verdict
        # cost, whatever else the machine was doing, and how much of it went on walking
        # graphs (bench/runtime_discovery.py compares it with a --bare-stop run).
        self.channel.send(
            "failure",
            cpu_seconds=time.process_time(),
            graph_seconds=self.graph_seconds,
            call=self.calls,
            **fields,
        )

    def loop_span(self, loop):
        if loop is None or self.tracer is None:
            return None, None
        return loop, dict(self.tracer.loops)[loop]

    def same_step(self, seq, freed, loop):
        """Whether the graph was freed (or, not freed, built) in the loop pass that fails on it."""
        if loop is None or self.tracer is None:
            return True
        now = self.loop_pass(loop)
        if freed is not None and freed[2] is not None:
            return freed[2] == now
        return self.tracer.pass_at(loop, seq) == now


def install(torch, instrumentation):
    torch.autograd.backward = instrumentation.wrap(torch.autograd.backward, "backward")
    torch.autograd.grad = instrumentation.wrap(torch.autograd.grad, "grad")
    torch.Tensor.backward = instrumentation.wrap(torch.Tensor.backward, "tensor.backward")
