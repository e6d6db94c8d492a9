"""`autograd-lint check --fix` and `--diff` on real files."""

from __future__ import annotations

import shutil
from pathlib import Path

from autograd_lint.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
# A finding for which no rewrite is known: the decoder state is rebound in the loop.
NO_REWRITE = ROOT / "tests" / "corpus" / "forum_seq2seq_per_step_backward.py"


def copy(tmp_path: Path, *names: str) -> list[Path]:
    out = []
    for name in names:
        target = tmp_path / Path(name).name
        shutil.copy(SAMPLES / name if "/" not in name else name, target)
        out.append(target)
    return out


def test_fix_rewrites_files_and_reports_what_changed_and_what_remains(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    rnn, gan, untouched = copy(
        tmp_path,
        "ag001_rnn_hidden_buggy.py",
        "ag002_gan_fake_buggy.py",
        str(NO_REWRITE),
    )
    before = untouched.read_bytes()
    status = main(["check", "--fix", "--no-color", "."])
    out, err = capsys.readouterr()
    assert "hidden = hidden.detach()\n" in rnn.read_text()
    assert "discriminator(fake.detach())" in gan.read_text()
    assert untouched.read_bytes() == before  # no rewrite is known for it
    assert (
        "ag001_rnn_hidden_buggy.py:36: AG001 fixed: Detach `hidden` at the start of each iteration"
        in err
    )
    assert "ag002_gan_fake_buggy.py" in err and "AG002 fixed" in err
    # What remains is reported as usual, and decides the exit status.
    assert NO_REWRITE.name in out and "rnn_hidden" not in out
    assert status == 1
    assert main(["check", "--fix", "ag001_rnn_hidden_buggy.py"]) == 0


def test_diff_shows_the_fixes_and_changes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (rnn,) = copy(tmp_path, "ag001_rnn_hidden_buggy.py")
    before = rnn.read_bytes()
    status = main(["check", "--diff", "ag001_rnn_hidden_buggy.py"])
    out, _ = capsys.readouterr()
    assert rnn.read_bytes() == before
    assert out.startswith("--- a/ag001_rnn_hidden_buggy.py\n+++ b/ag001_rnn_hidden_buggy.py\n")
    assert "\n+    hidden = hidden.detach()\n" in out
    assert status == 1
    fixed = tmp_path / "fixed.py"
    shutil.copy(SAMPLES / "ag001_rnn_hidden_fixed.py", fixed)
    assert main(["check", "--diff", "fixed.py"]) == 0
    assert capsys.readouterr().out == ""


def test_fix_and_diff_exclude_each_other(capsys):
    assert main(["check", "--fix", "--diff", "."]) == 2
