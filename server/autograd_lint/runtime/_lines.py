"""The script compiled with a recording call before each statement, instead of a trace function.

With `sys.settrace` set, CPython (3.11 and earlier) runs every line of Python, the
libraries' included, on its slow tracing path, whether or not the trace function looks at
it: a Lightning script reached its first backward 1.3 s later than it does alone. The
tracer only needs the script's own lines, so the script's syntax tree gets, before each of
its statements, a call that records the line (`ScriptTracer.record`), at the top of each
loop body one that counts the pass, and around each function body a `finally` that gives
the caller's line back when the function returns. Nothing else changes: the statements,
their line and column numbers (tracebacks, `inspect`), docstrings and `from __future__`
imports stay where they were; the calls are looked up in builtins under names no program
uses, and return nothing.

Loaded by the harness from its file path; standard library only, Python 3.8 syntax.
"""

from __future__ import annotations

import ast
import builtins
import runpy
import sys

RECORD = "__autograd_lint_line__"
PASS = "__autograd_lint_pass__"
RETURN = "__autograd_lint_return__"
VALUE = "__autograd_lint_value__"
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_WITH_DOCSTRING = (ast.Module, ast.ClassDef) + _FUNCTIONS
# Dynamo cannot trace a recording call: a script function given to torch.compile would run
# eagerly instead, with a warning. Such scripts are traced the old way.
_COMPILED = (b"torch.compile", b"_dynamo", b"import compile")


def _call(name, line, at, *arguments):
    call = ast.Expr(ast.Call(ast.Name(name, ast.Load()), [ast.Constant(a) for a in arguments], []))
    for node in ast.walk(call):
        node.lineno, node.col_offset = line, at.col_offset
        node.end_lineno, node.end_col_offset = line, at.col_offset
    return call


def _kept_first(statements, parent):
    """How many leading statements must stay first: a docstring, `from __future__` imports."""
    kept = 0
    if isinstance(parent, _WITH_DOCSTRING) and statements:
        first = statements[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            kept = 1 if isinstance(first.value.value, str) else 0
    if isinstance(parent, ast.Module):
        while kept < len(statements):
            statement = statements[kept]
            if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
                break
            kept += 1
    return kept


class _Instrument(ast.NodeTransformer):
    def __init__(self):
        self.loop_lines = set()  # the first lines of the script's loop statements

    def visit_Lambda(self, node):
        # No statements: `lambda: f(x)` becomes `lambda: VALUE(RECORD(line), f(x))`, which
        # records the lambda's line, then the caller's once the body's value is known.
        self.generic_visit(node)
        record = _call(RECORD, node.lineno, node, node.lineno).value
        value = ast.Call(ast.Name(VALUE, ast.Load()), [record, node.body], [])
        node.body = ast.copy_location(value, node.body)
        for part in (value, value.func):
            ast.copy_location(part, node.body)
        return node

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            is_block = isinstance(statements, list) and statements
            if is_block and all(isinstance(s, ast.stmt) for s in statements):
                setattr(node, field, self.statements(node, field, statements))
        return node

    def statements(self, parent, field, statements):
        kept = _kept_first(statements, parent) if field == "body" else 0
        out = list(statements[:kept])
        if field == "body" and isinstance(parent, _LOOPS):
            self.loop_lines.add(parent.lineno)
            out.append(_call(PASS, parent.lineno, parent, parent.lineno))
        for statement in statements[kept:]:
            out.append(_call(RECORD, statement.lineno, statement, statement.lineno))
            out.append(statement)
        if field == "body" and isinstance(parent, _FUNCTIONS) and len(out) > kept:
            body = out[kept:]
            first = body[0]
            done = _call(RETURN, first.lineno, first)
            wrapped = ast.Try(body=body, handlers=[], orelse=[], finalbody=[done])
            ast.copy_location(wrapped, first)
            wrapped.end_lineno, wrapped.end_col_offset = first.lineno, first.col_offset
            out = out[:kept] + [wrapped]
        return out


def instrumented_code(script):
    """The script's code with the recording calls and the first lines of its loops; None
    when it cannot be made (then the harness traces instead), e.g. a syntax error, which
    running the script reports."""
    if getattr(runpy, "_run_module_code", None) is None:
        return None
    try:
        with open(script, "rb") as source:
            data = source.read()
        if any(word in data for word in _COMPILED):
            return None
        tree = ast.parse(data, script)
        instrument = _Instrument()
        tree = instrument.visit(tree)
        return compile(tree, script, "exec", dont_inherit=True), instrument.loop_lines
    except Exception:
        return None


def install(tracer, loop_lines):
    """The recording calls, bound to `tracer` (a ScriptTracer), in builtins."""
    script = tracer.script
    # A "loop" on a line that is no loop statement (the optimizer step that calls a closure
    # several times) counts a pass each time its statement runs, as a line event would.
    passes_at = {start for start in tracer.counts if start not in loop_lines}

    def record_line(line):
        tracer.record(line)
        if line in passes_at:
            tracer.mark(sys._getframe(1), line)

    def record_pass(start):
        tracer.record(start)
        if start in tracer.counts:
            tracer.mark(sys._getframe(1), start)

    def back_in_caller(returning):
        # Nodes the caller creates after this returns belong to the caller's line.
        caller = returning.f_back
        while caller is not None and caller.f_code.co_filename != script:
            caller = caller.f_back
        if caller is not None:
            tracer.record(caller.f_lineno)

    def record_return():
        back_in_caller(sys._getframe(1))

    def lambda_value(_, value):
        back_in_caller(sys._getframe(1))
        return value

    setattr(builtins, RECORD, record_line)
    setattr(builtins, PASS, record_pass)
    setattr(builtins, RETURN, record_return)
    setattr(builtins, VALUE, lambda_value)


def uninstall():
    """Leaves the calls in place but recording nothing: code may still run after the stop."""
    for name in (RECORD, PASS, RETURN):
        setattr(builtins, name, _ignore)
    setattr(builtins, VALUE, _value)


def _ignore(*arguments):
    return None


def _value(_, value):
    return value


def run_as_main(code, script):
    """Runs `code` as `runpy.run_path(script, run_name="__main__")` runs a script's."""
    # runpy.run_path's own path for a file: a fresh __main__ module and sys.argv[0] set.
    return runpy._run_module_code(code, None, "__main__", pkg_name="", script_name=script)
