"""Layers inside a library model, read from its installed source (analysis/library_submodules.py).

`BertModel.from_pretrained(...)` is a module of a class whose source is installed:
`bert.embeddings` is the `BertEmbeddings` its `__init__` builds, whose forward feeds its
lookups to `self.LayerNorm`, which saves its weight even over token ids. A value computed
from it once and mixed into every step's loss breaks the next retained backward after an
optimizer step (hiyoung123/SoftMaskedBert#16). The programs load a tiny BERT saved to a
folder (no network) and are run by torch; the analysis must agree with each.
"""

from __future__ import annotations

import importlib.util
import subprocess

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.analysis.library_submodules import saves_over_data, submodule_class
from warm_python import WarmPython

# Skipped without transformers, found without importing it (with torch, seconds per
# collecting worker): the one test that needs it in this process imports it itself.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None, reason="transformers is not installed"
)

INPLACE = "modified by an inplace operation"
BERT = "transformers.models.bert.modeling_bert"


def program(kept: str) -> str:
    """A model that computes `self.fixed` once from a layer of a loaded BERT."""
    return (
        "import sys\n"
        "import torch\n"
        "from torch import nn\n"
        "from transformers import BertModel\n"
        "\n"
        "\n"
        "class Mixer(nn.Module):\n"
        "    def __init__(self, base):\n"
        "        super().__init__()\n"
        "        self.embed = base.embeddings\n"
        "        self.head = nn.Linear(8, 2)\n"
        f"        self.fixed = {kept}\n"
        "\n"
        "    def forward(self, ids):\n"
        "        return self.head(self.embed(ids) + self.fixed).mean()\n"
        "\n"
        "\n"
        "torch.manual_seed(0)\n"
        "net = Mixer(BertModel.from_pretrained(sys.argv[1]))\n"
        "adam = torch.optim.Adam(net.parameters(), lr=1e-3)\n"
        "for _ in range(2):\n"
        "    total = net(torch.randint(0, 50, (2, 5)))\n"
        "    adam.zero_grad()\n"
        "    total.backward(retain_graph=True)\n"
        "    adam.step()\n"
    )


PROGRAMS = {
    "kept from the embeddings": program("self.embed(torch.tensor([[3]]))"),
    "kept detached": program("self.embed(torch.tensor([[3]])).detach()"),
}
RAISES = {"kept from the embeddings"}


@pytest.fixture(scope="module")
def torch_outcomes(tmp_path_factory) -> dict[str, str]:
    from transformers import BertConfig, BertModel

    folder = tmp_path_factory.mktemp("bert")
    config = BertConfig(
        vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16,
    )  # fmt: skip
    BertModel(config).save_pretrained(folder)
    outcomes = {}
    # Each program runs in a child forked from one interpreter that has imported torch and
    # transformers' BERT once (seconds each), instead of a fresh interpreter per program.
    with WarmPython(preload=("transformers", BERT)) as warm:
        for name, text in PROGRAMS.items():
            script = folder / "program.py"
            script.write_text(text, encoding="utf-8")
            done = subprocess.run(
                [warm.shim, str(script), str(folder)], capture_output=True, text=True, timeout=300
            )
            outcomes[name] = "ran" if done.returncode == 0 else done.stderr
    return outcomes


def test_the_summary_reads_the_installed_classes():
    assert submodule_class("transformers.BertModel", "embeddings") == f"{BERT}.BertEmbeddings"
    saved = saves_over_data(f"{BERT}.BertEmbeddings")
    assert saved is not None and saved.layer == "self.LayerNorm"
    with open(saved.path, encoding="utf-8") as source:
        assert "self.LayerNorm(" in source.read().splitlines()[saved.line - 1]
    # BertSelfAttention feeds only its inputs to its Linear layers: over plain data they
    # keep their inputs, not their weights, so nothing is claimed.
    assert saves_over_data(f"{BERT}.BertSelfAttention") is None


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_analysis_agrees_with_torch(name, torch_outcomes):
    text = PROGRAMS[name]
    found = [f for f in analyze(text, "program.py") if f.code in ("AG001", "AG002", "AG007")]
    if name not in RAISES:
        assert torch_outcomes[name] == "ran"
        assert found == []
        return
    assert INPLACE in torch_outcomes[name]
    (finding,) = found
    lines = text.splitlines()
    assert finding.code == "AG007"
    assert lines[finding.span.start.line - 1].strip() == "adam.step()"
    fails = [s.span.start.line for s in finding.evidence if s.role.name == "FAILS"]
    assert [lines[n - 1].strip() for n in fails] == ["total.backward(retain_graph=True)"]
    # The evidence goes into transformers' source, at the LayerNorm call.
    inside = [s for s in finding.evidence if s.path]
    assert len(inside) == 1 and inside[0].path.endswith("modeling_bert.py")
    saved = saves_over_data(f"{BERT}.BertEmbeddings")
    assert inside[0].span.start.line == saved.line
