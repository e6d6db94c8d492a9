"""AG007 fixes: leave the tensor a pending backward saved as it was.

- `probs.clamp_(a, b)` on its own line: the out-of-place op, `probs = probs.clamp(a, b)`
  (preferred; for the in-place methods below, whose out-of-place twin takes the same
  arguments - tests/fixes/test_fix_tables.py runs each pair under torch);
  `x += y` (a name): `x = x + y`.
- any in-place change of a name (`weights[mask] = 0`, `x.relu_()`, `x.copy_(y)`):
  `weights = weights.clone()` right before it, so the change lands on a copy and the
  gradient still flows through the clone.
- `F.relu(h, inplace=True)` (any call given the tensor first and `inplace=True`):
  `inplace=False`.

The tensor is the name the finding's evidence says was modified; anything else (an
attribute, an element of a list, a view) gets no rewrite.

An optimizer step that changes weights a pending graph saved: for a carried graph see
`retain`; within one step (a GAN's `d_fake = D(fake)` reused by the generator's loss after
`d_opt.step()`), run that forward again right after the step, so the later loss uses the
updated weights - what the generator should be trained against. Offered only when the
analysis of the result is clean of the finding (and of any new error). With one optimizer
in the file and two backward passes over one forward (`retain_graph=True` on the first),
the step moves after the second pass: both feed the one step, as the retain meant.
"""

from __future__ import annotations

import ast

from ..analysis.model import Role
from .common import names_bound, names_read
from .context import Candidate, Context
from .retain import retain_fixes
from .verify import RETAIN_TOO, finding_gone

# In-place tensor methods whose out-of-place twin (the name without "_") takes the same
# arguments and returns what the in-place one leaves in the tensor.
OUT_OF_PLACE = frozenset(
    {
        "abs_", "add_", "addcdiv_", "addcmul_", "ceil_", "clamp_", "clamp_max_",
        "clamp_min_", "clip_", "cos_", "div_", "exp_", "floor_", "index_add_",
        "index_fill_", "log_", "masked_fill_", "masked_scatter_", "mul_", "nan_to_num_",
        "neg_", "pow_", "reciprocal_", "relu_", "round_", "scatter_", "scatter_add_",
        "sigmoid_", "sign_", "sin_", "sqrt_", "sub_", "tanh_", "tril_", "triu_",
    }
)  # fmt: skip
_OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@",
}  # fmt: skip


def inplace_fixes(ctx: Context) -> list[Candidate]:
    if ctx.finding.kind == "optimizer-step":
        return retain_fixes(ctx) or _forward_again_after_step(ctx) or _step_after_backward(ctx)
    if ctx.finding.kind not in ("saved-output", "saved-input"):
        return []
    notes = [s for s in ctx.steps(Role.NOTE) if s.name]
    if not notes:
        return []
    name = notes[-1].name
    statement = ctx.statement_for(notes[-1].span)
    if statement is None or not name.isidentifier():
        return []
    keyword = _inplace_keyword(ctx, notes[-1].span, name)
    if keyword is not None:
        return [keyword]
    statement_cst = ctx.doc.cst_statement(statement)
    if statement_cst is None or not _changes_name(statement, name):
        return []
    out = []
    out_of_place = _out_of_place(ctx, statement, name)
    if out_of_place is not None:
        plan = ctx.plan()
        new = ctx.doc.parse_statements(out_of_place + "\n")[0]
        # The statement's own comments (above it and after it) stay with it.
        new = new.with_changes(
            leading_lines=statement_cst.leading_lines,
            trailing_whitespace=statement_cst.trailing_whitespace,
        )
        plan.replace(statement_cst, new)
        title = f"Use the out-of-place op: `{out_of_place}`"
        out.append(ctx.candidate(title, plan, True, "out-of-place"))
    plan = ctx.plan()
    plan.insert_before(statement_cst, f"{name} = {name}.clone()\n")
    title = f"Clone `{name}` before changing it in place (the saved tensor stays as it was)"
    out.append(ctx.candidate(title, plan, not out, "clone-before-inplace"))
    return out


def _changes_name(statement: ast.stmt, name: str) -> bool:
    """The statement is an in-place change of the plain name `name` and nothing else."""

    def is_name(node) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return isinstance(func, ast.Attribute) and is_name(func.value) and func.attr.endswith("_")
    if isinstance(statement, ast.AugAssign):
        target = statement.target
        return is_name(target) or (isinstance(target, ast.Subscript) and is_name(target.value))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        return isinstance(target, ast.Subscript) and is_name(target.value)
    return False


def _out_of_place(ctx: Context, statement: ast.stmt, name: str) -> str | None:
    doc = ctx.doc
    if isinstance(statement, ast.Expr):
        call = statement.value
        method = call.func.attr
        if method not in OUT_OF_PLACE or _spans_lines(statement):
            return None
        arguments = doc.text(call)[len(doc.text(call.func)) :]
        return f"{name} = {name}.{method[:-1]}{arguments}"
    if (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.target, ast.Name)
        and type(statement.op) in _OPERATORS
        and not _spans_lines(statement)
    ):
        value = doc.text(statement.value)
        if not isinstance(statement.value, (ast.Name, ast.Constant, ast.Attribute, ast.Call)):
            value = f"({value})"
        return f"{name} = {name} {_OPERATORS[type(statement.op)]} {value}"
    return None


def _spans_lines(statement: ast.stmt) -> bool:
    return statement.end_lineno != statement.lineno


def _forward_again_after_step(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    built, notes = ctx.steps(Role.BUILT), ctx.steps(Role.NOTE)
    if not built or not notes:
        return []
    forward = ctx.call_at(built[-1].span)
    binding = ctx.statement_for(built[-1].span)
    step = ctx.statement_for(notes[-1].span)
    if forward is None or not isinstance(binding, ast.Assign) or binding.value is not forward:
        return []
    if len(binding.targets) != 1 or not isinstance(binding.targets[0], ast.Name):
        return []
    name = binding.targets[0].id
    try:
        body = doc.block_of(binding)[2]
    except LookupError:
        return []
    if not any(step is s for s in body) or body.index(step) < body.index(binding):
        return []
    between = body[body.index(binding) + 1 : body.index(step)]
    after = body[body.index(step) + 1 :]
    # The forward must mean the same thing after the step (its inputs not rebound), and
    # something after the step must read what it gave.
    if names_bound(between) & names_read([forward]) or name not in names_read(after):
        return []
    step_cst = doc.cst_statement(step)
    if step_cst is None:
        return []
    plan = ctx.plan()
    plan.insert_after(step_cst, f"{name} = {doc.text(forward)}\n")
    fixed = plan.new_source()
    if not finding_gone(ctx, fixed, RETAIN_TOO):
        return []
    title = f"Run `{doc.text(forward)}` again after `{doc.text(step)}`: the later loss uses the updated weights"
    return [ctx.candidate(title, fixed, True, "forward-again-after-step")]


def _inplace_keyword(ctx: Context, span, name: str) -> Candidate | None:
    """`F.relu(h, inplace=True)` at the change: the same call with `inplace=False`."""
    node = ctx.doc.expression_at(span)
    if not isinstance(node, ast.Call):
        return None
    first = node.args[0] if node.args else None
    flag = next((k for k in node.keywords if k.arg == "inplace"), None)
    if not (isinstance(first, ast.Name) and first.id == name) or flag is None:
        return None
    if not (isinstance(flag.value, ast.Constant) and flag.value.value is True):
        return None
    value = ctx.doc.cst_expression(flag.value)
    if value is None:
        return None
    plan = ctx.plan()
    plan.replace(value, ctx.doc.parse_expression("False"))
    title = f"Use `{ctx.doc.text(node.func)}({name}, inplace=False)`: it leaves `{name}` as it was"
    return ctx.candidate(title, plan, True, "inplace-false")


def _step_after_backward(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    notes, fails = ctx.steps(Role.NOTE), ctx.steps(Role.FAILS)
    if not notes or not fails:
        return []
    step, backward = ctx.statement_for(notes[-1].span), ctx.statement_for(fails[-1].span)
    if step is None or backward is None or len(_optimizers_built(doc.tree)) != 1:
        return []
    try:
        body = doc.block_of(step)[2]
    except LookupError:
        return []
    if not any(backward is s for s in body) or body.index(backward) < body.index(step):
        return []
    between = body[body.index(step) + 1 : body.index(backward)]
    clears = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "zero_grad"
        for s in between
        for n in ast.walk(s)
    )
    step_cst, backward_cst = doc.cst_statement(step), doc.cst_statement(backward)
    if clears or step_cst is None or backward_cst is None:
        return []
    plan = ctx.plan()
    plan.remove(step_cst)
    plan.insert_after(backward_cst, doc.text(step) + "\n")
    fixed = plan.new_source()
    if not finding_gone(ctx, fixed, RETAIN_TOO):
        return []
    title = f"Move `{doc.text(step)}` after `{doc.text(backward)}`: both passes feed the one step"
    return [ctx.candidate(title, fixed, True, "step-after-backward")]


def _optimizers_built(tree: ast.AST) -> list[ast.Call]:
    """Calls that build an optimizer: `torch.optim.Adam(...)`, `optim.SGD(...)`."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and ast.unparse(node.func.value) in ("torch.optim", "optim")
    ]
