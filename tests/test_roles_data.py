"""What a function draws with `next()` is data, as what it iterates with `for` is.

StyleMapGAN's train.py (rebuilt in tests/realworld/cases/gan_stylemap_ddp_two_backwards.py)
passes `sample_data(loader)`, a generator defined in another file, to `train`, which
takes each batch with `next(loader)`. The batch reaches the backward as the model's
input; that says nothing of what `sample_data` is: taking it for a module made its result
a graph built once before the loop, and the loop an AG001 it does not have.
"""

from __future__ import annotations

import subprocess

from autograd_lint.analysis import analyze

TRAIN = """import torch
from torch import nn


def train(net, batches, opt, steps):
    for _ in range(steps):
        inputs, targets = next(batches)
        loss = nn.functional.mse_loss(net(inputs), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()


torch.manual_seed(0)
net = nn.Linear(3, 1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]
train(net, sample_data(data), torch.optim.SGD(net.parameters(), lr=0.1), steps=4)
"""
# The generator of the thread's file, which the snippet does not show.
SAMPLE_DATA = """
def sample_data(loader):
    while True:
        yield from loader
"""


def test_a_batch_drawn_with_next_from_an_unseen_callable_is_data():
    assert [f.code for f in analyze(TRAIN, "train.py")] == []


def test_the_completed_program_trains_without_error(torch_python):
    program = TRAIN.replace("\n\ndef train(", SAMPLE_DATA + "\n\ndef train(", 1)
    done = subprocess.run([torch_python, "-c", program], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()


# A function from another package preprocesses each batch inside a step the loop calls;
# the model's two backward passes each build their own graph from its result.
IMPORTED_PREPROCESS = """import torch
from torch import nn
from batchprep import preprocess


def train_step(net, opt, batch):
    x = preprocess(batch)
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    aux = net(x).abs().mean()
    opt.zero_grad()
    aux.backward()
    opt.step()


net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for batch in [torch.randn(4, 3) for _ in range(3)]:
    train_step(net, opt, batch)
"""


def test_an_imported_function_whose_result_reaches_a_backward_is_no_module():
    assert [f.code for f in analyze(IMPORTED_PREPROCESS, "train.py")] == []


def test_the_program_with_a_data_preprocess_trains_without_error(tmp_path, torch_python):
    (tmp_path / "batchprep.py").write_text("def preprocess(batch):\n    return batch * 2\n")
    done = subprocess.run(
        [torch_python, "-c", IMPORTED_PREPROCESS], capture_output=True, timeout=120,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()


# The module-level `encoder` is an nn.Linear; the step's parameter of the same name is
# whatever a caller passes, and the file shows no caller.
PARAMETER_NAMESAKE = """import torch
from torch import nn

encoder = nn.Linear(3, 3)
print(sum(p.numel() for p in encoder.parameters()))


def train_step(encoder, head, opt, batch):
    z = encoder(batch)
    loss = head(z).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    aux = head(z).abs().mean()
    opt.zero_grad()
    aux.backward()
    opt.step()
"""


def test_a_parameter_takes_no_evidence_from_a_global_of_its_name():
    assert [f.code for f in analyze(PARAMETER_NAMESAKE, "step.py")] == []
    # Renamed, the global says nothing of the parameter either way.
    renamed = PARAMETER_NAMESAKE.replace("encoder = nn", "backbone = nn").replace(
        "in encoder.parameters", "in backbone.parameters"
    )
    assert [f.code for f in analyze(renamed, "step.py")] == []


def test_the_step_with_a_plain_function_for_its_parameter_trains_without_error(torch_python):
    program = PARAMETER_NAMESAKE + (
        "head = nn.Linear(3, 1)\n"
        "opt = torch.optim.SGD(head.parameters(), lr=0.1)\n"
        "train_step(torch.tanh, head, opt, torch.randn(4, 3))\n"
    )
    done = subprocess.run([torch_python, "-c", program], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
