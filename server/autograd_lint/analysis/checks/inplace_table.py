"""Which common ops save their input or their output for backward (AG007's vocabulary).

An op whose backward formula needs a tensor keeps a reference to it together with the
tensor's version; modifying that tensor in place before the backward makes the backward
raise "one of the variables needed for gradient computation has been modified by an
inplace operation". The table says, per op, what is saved:

- `output`: the result is saved (sigmoid, tanh, exp, relu, softmax, ...): an in-place op on
  the result breaks the backward; an in-place op on the input does not.
- `inputs="self"`: a unary op saves its input when that input requires grad (log, pow, ...).
- `inputs="cross"`: a binary op saves each operand when the *other* one requires grad (the
  gradient of `a * b` with respect to `b` is `a`): `data * w` saves `data` although `data`
  itself needs no gradient.
- `inputs="div"`: as "cross" for the numerator; the divisor is saved when either operand
  requires grad.

Every row is checked against torch by `tests/test_inplace_table.py`, including the claims
that the other tensors are *not* saved.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OpInfo:
    op: str  # torch.<op>, or F.<op> where torch has none; the tests call it by this name
    output: bool = False
    inputs: str = "none"  # "none", "self", "cross", "div"
    functional: bool = False  # also spelled F.<op> (torch.nn.functional)
    method: bool = True  # also spelled x.<op>(...)
    operator: type[ast.operator] | None = None  # also spelled a <op> b
    module: str | None = None  # nn.<Module>() applies it


OPS: tuple[OpInfo, ...] = (
    # Results saved.
    OpInfo("sigmoid", output=True, functional=True, module="Sigmoid"),
    OpInfo("tanh", output=True, functional=True, module="Tanh"),
    OpInfo("exp", output=True),
    OpInfo("sqrt", output=True),
    OpInfo("relu", output=True, functional=True, module="ReLU"),
    OpInfo("softmax", output=True, functional=True, module="Softmax"),
    OpInfo("log_softmax", output=True, functional=True, module="LogSoftmax"),
    # Inputs saved.
    OpInfo("log", inputs="self"),
    OpInfo("sin", inputs="self"),
    OpInfo("cos", inputs="self"),
    OpInfo("abs", inputs="self"),
    OpInfo("pow", inputs="self", operator=ast.Pow),
    OpInfo("mul", inputs="cross", operator=ast.Mult),
    OpInfo("matmul", inputs="cross", operator=ast.MatMult),
    OpInfo("mm", inputs="cross"),
    OpInfo("bmm", inputs="cross"),
    OpInfo("div", inputs="div", operator=ast.Div),
    OpInfo("gelu", inputs="self", functional=True, method=False, module="GELU"),
    OpInfo("silu", inputs="self", functional=True, method=False, module="SiLU"),
    OpInfo("leaky_relu", inputs="self", functional=True, method=False, module="LeakyReLU"),
    OpInfo("elu", inputs="self", functional=True, method=False, module="ELU"),
    # Nothing that an in-place op on input or result would break.
    OpInfo("add", operator=ast.Add),
    OpInfo("sub", operator=ast.Sub),
    OpInfo("sum"),
    OpInfo("mean"),
    OpInfo("neg", operator=None),
    OpInfo("clone"),
)

BY_NAME = {info.op: info for info in OPS}
FUNCTIONAL = {info.op: info for info in OPS if info.functional}
METHODS = {info.op: info for info in OPS if info.method}
OPERATORS = {info.operator: info for info in OPS if info.operator is not None}
MODULES = {info.module: info for info in OPS if info.module}

# Tensor methods whose result shares storage (and so the version counter) with the receiver.
VIEW_METHODS = frozenset(
    {
        "view", "view_as", "reshape", "t", "transpose", "permute", "unsqueeze", "squeeze",
        "expand", "expand_as", "narrow", "select", "flatten", "unflatten", "contiguous",
        "detach", "as_strided", "diagonal", "movedim", "swapaxes", "unfold", "T", "mT",
    }
)  # fmt: skip

# In-place methods that do not change the tensor's values (or its version).
NOT_MODIFYING = frozenset({"requires_grad_", "retain_grad", "share_memory_", "detach_"})

# Modules that modify their input in place when built with `inplace=True`.
INPLACE_MODULES = frozenset(
    {"ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "Hardtanh", "Hardswish",
     "Hardsigmoid", "SiLU", "Mish", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
     "Threshold", "RReLU"}
)  # fmt: skip
