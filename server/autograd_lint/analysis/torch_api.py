"""What the analysis knows about PyTorch's API, by name (no torch import).

These tables are the transfer rules' vocabulary. The cut and factory tables are checked
against torch row by row in `tests/test_torch_api_tables.py`; the transfer rules' other
claims in `tests/test_torch_api_claims.py`.
"""

from __future__ import annotations

# Every row below is checked against torch, row by row from the table, in
# tests/test_torch_api_tables.py. Rows torch contradicted were removed: `as_tensor(t)`,
# `Tensor(t)` and the typed constructors (`FloatTensor(t)`...) alias a tensor argument
# with its history, `normal(mean, std)` and `bernoulli(p)` are differentiable in their
# arguments; such calls are ordinary calls (a graph exactly when an argument has one).

# Tensor methods whose result has no autograd history (and the nn.Module / mapping
# methods that hand out modules, detached state or keys).
CUT_METHODS = frozenset(
    {
        "detach", "item", "tolist", "numpy", "size", "dim", "numel", "nelement",
        "argmax", "argmin", "argsort", "eq", "ne", "gt", "ge", "lt", "le", "isnan", "isinf",
        "isfinite", "nonzero", "data_ptr", "element_size", "stride", "is_contiguous",
        "bool", "long", "int", "byte", "short",
        "any", "all", "count_nonzero", "equal", "allclose", "isclose", "bincount", "get_device",
        "__len__", "keys", "state_dict", "named_modules", "modules", "children",
        "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor",
    }
)  # fmt: skip

# Attributes that are plain data, never a graph.
CUT_ATTRIBUTES = frozenset(
    {
        "data", "grad", "shape", "dtype", "device", "ndim", "requires_grad", "is_leaf",
        "grad_fn", "is_cuda", "layout", "training", "__class__", "__name__",
        "indices",  # of a topk/max result: integer positions
    }
)  # fmt: skip

# Bare-name calls (builtins, and names imported from torch, logging, NumPy or tqdm) whose
# result has no history.
CUT_FUNCTIONS = frozenset(
    {
        "float", "int", "bool", "str", "repr", "len", "print", "isinstance", "hasattr",
        "callable", "type", "id", "range", "format", "hash", "open", "input", "vars",
        "argmax", "argmin", "argsort", "numel", "is_tensor", "is_grad_enabled",
        "manual_seed", "seed", "save", "load", "device", "set_grad_enabled",
        "no_grad", "inference_mode", "enable_grad", "tqdm", "log", "info", "debug", "warning",
        "asarray", "array", "eq", "ne", "equal",
        "isnan", "isinf", "isfinite", "count_nonzero", "bincount", "randperm",
        "multinomial", "randint", "randint_like", "nonzero",
    }
)  # fmt: skip

# Calls creating fresh tensors: history only with a literal `requires_grad=True`.
FACTORIES = frozenset(
    {
        "tensor", "from_numpy", "zeros", "ones", "empty", "full", "rand", "randn",
        "randn_like", "rand_like", "zeros_like", "ones_like", "empty_like", "full_like",
        "arange", "linspace", "logspace", "eye",
    }
)  # fmt: skip

# Methods that only configure a module / optimizer and return it (or None).
MODULE_PLUMBING = frozenset(
    {
        "train", "eval", "to", "cuda", "cpu", "double", "float", "half", "bfloat16",
        "zero_grad", "apply", "register_buffer", "register_parameter", "load_state_dict",
        "requires_grad_", "share_memory", "add_module", "register_forward_hook",
        "register_full_backward_hook", "step", "add_param_group", "state_dict",
    }
)  # fmt: skip

# Methods that hand out a module's parameters (leaves).
PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})

# Container methods that put their arguments into the receiver.
CONTAINER_ADDERS = frozenset({"append", "extend", "insert", "add", "appendleft", "update", "push", "put"})  # fmt: skip
# The adders that only lists and deques have: safe to trust on an object we did not see built.
LIST_ADDERS = frozenset({"append", "extend", "insert", "appendleft"})

# Constructors (last dotted part) of torch.distributions objects.
DISTRIBUTIONS = frozenset(
    {
        "Normal", "Categorical", "Bernoulli", "Beta", "MultivariateNormal", "Independent",
        "OneHotCategorical", "RelaxedOneHotCategorical", "Dirichlet", "Gamma", "Laplace",
        "LogNormal", "Uniform", "TransformedDistribution", "Poisson", "Exponential",
        "Binomial", "Geometric", "StudentT", "Cauchy", "LowRankMultivariateNormal",
    }
)  # fmt: skip

# Container methods that empty the receiver.
CONTAINER_CLEARERS = frozenset({"clear"})

OPTIMIZER_CLASSES = frozenset(
    {
        "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
        "LBFGS", "SparseAdam", "ASGD", "Rprop", "Adafactor", "Lion", "Optimizer",
    }
)  # fmt: skip

# Losses and modules built from torch.nn whose call result is a graph when inputs are.
NN_NAMESPACES = ("torch.nn.",)  # qualified names (name_fallback.conventional_module)
OPTIM_NAMESPACES = ("torch.optim.",)
NO_GRAD_CONTEXTS = frozenset({"no_grad", "inference_mode"})
ENABLE_GRAD_CONTEXTS = frozenset({"enable_grad"})

# Non-differentiable torch functions (last dotted part).
CUT_TORCH_FUNCTIONS = frozenset(
    {"argmax", "argmin", "argsort", "eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf",
     "equal", "allclose", "isclose", "is_tensor", "numel",
     "no_grad", "manual_seed", "randperm", "bucketize", "searchsorted"}
)  # fmt: skip


def last_part(dotted: str) -> str:
    return dotted.rpartition(".")[2]


# torch functions that keep a weight operand for the gradient of the other (see stepped.py).
# Each row is checked against torch by tests/test_stepped_weights.py.
WEIGHT_SAVING_FUNCTIONS = frozenset({"matmul", "mm", "bmm", "mv", "mul", "linear"})
# torch.nn layers that keep their weights even over plain data (each step's state, which
# has history, meets the weights again in the next step).
RECURRENT_LAYERS = frozenset({"RNN", "LSTM", "GRU"})
# List methods after which an element's position is no longer known from the text.
LIST_REORDERERS = frozenset({"pop", "popleft", "remove", "sort", "reverse", "rotate"})

# Tensor methods whose backward node keeps no tensor (only sizes, dtypes, devices): a
# second backward through them alone cannot fail, so their result reaches just what the
# receiver reaches. Each row is checked against torch by tests/test_torch_api_tables.py.
NON_SAVING_METHODS = frozenset(
    {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type", "view", "view_as",
     "reshape", "reshape_as", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "t",
     "expand", "expand_as", "contiguous", "clone"}
)  # fmt: skip
