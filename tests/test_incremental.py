"""The per-document cache: edits re-analyse only what changed, with identical results."""

import random
from pathlib import Path

from autograd_lint.analysis import analyze
from autograd_lint.analysis.engine import AnalysisCache

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
BUGGY = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text()

HELPER = """

def helper_{n}(model, batches):
    hidden = None
    for x, y in batches:
        out, hidden = model(x, hidden)
        loss = (out - y).pow(2).mean()
        loss.backward()
"""


def as_tuples(findings):
    return [
        (f.code, f.span, f.message, [(s.span, s.message) for s in f.evidence]) for f in findings
    ]


def many_functions(count: int) -> str:
    return "import torch\n" + "".join(HELPER.format(n=n) for n in range(count))


def test_cached_result_equals_fresh_analysis_after_every_edit():
    cache = AnalysisCache()
    source = many_functions(6)
    rng = random.Random(7)
    lines = source.split("\n")
    for _ in range(40):
        index = rng.randrange(1, len(lines))
        action = rng.choice(["insert", "delete", "edit"])
        if action == "insert":
            lines.insert(index, rng.choice(["", "# note", "    x = 1", "def f(:"]))
        elif action == "delete" and len(lines) > 5:
            del lines[index]
        else:
            lines[index] = lines[index] + rng.choice([" ", "  # c", "(", ".detach()"])
        text = "\n".join(lines)
        assert as_tuples(analyze(text, "f.py", cache=cache)) == as_tuples(analyze(text, "f.py"))


def test_an_edit_inside_one_function_reruns_only_that_function():
    cache = AnalysisCache()
    source = many_functions(20)
    first = analyze(source, "f.py", cache=cache)
    assert len([f for f in first if f.code == "AG001"]) == 20
    before = dict(cache.stats)
    edited = source.replace(
        "def helper_7(model, batches):\n    hidden = None",
        "def helper_7(model, batches):\n    hidden = None  # typing",
    )
    again = analyze(edited, "f.py", cache=cache)
    assert as_tuples(again) == as_tuples(first)
    # the edited block alone: the change lies below its first line, so it is its own
    assert cache.stats["blocks_parsed"] - before["blocks_parsed"] == 1
    # only helper_7 runs again: the module's code and the 19 other functions are reused
    assert cache.stats["roots_run"] - before["roots_run"] == 1
    assert cache.stats["roots_reused"] - before["roots_reused"] == 20


def test_lines_added_above_move_cached_findings():
    cache = AnalysisCache()
    source = many_functions(3)
    first = analyze(source, "f.py", cache=cache)
    shifted = analyze("# header\n# more\n" + source, "f.py", cache=cache)
    assert [f.span.start.line + 2 for f in first] == [f.span.start.line for f in shifted]
    assert [s.span.start.line + 2 for s in first[0].evidence] == [
        s.span.start.line for s in shifted[0].evidence
    ]


def test_a_broken_block_keeps_the_other_blocks_findings():
    source = many_functions(3)
    broken = source.replace("def helper_1(model, batches):", "def helper_1(model, batches:")
    for cache in (None, AnalysisCache()):
        if cache is not None:
            analyze(source, "f.py", cache=cache)
        findings = analyze(broken, "f.py", cache=cache)
        codes = sorted(f.code for f in findings)
        assert codes == ["AG000", "AG001", "AG001"], codes
        syntax = [f for f in findings if f.code == "AG000"]
        assert (
            syntax[0].span.start.line
            == broken.split("\n").index("def helper_1(model, batches:") + 1
        )


def test_sample_findings_survive_a_round_trip_through_the_cache():
    cache = AnalysisCache()
    first = analyze(BUGGY, "s.py", cache=cache)
    assert as_tuples(analyze(BUGGY, "s.py", cache=cache)) == as_tuples(first)
    assert [f.code for f in first] == ["AG001"]


def test_pattern_checks_are_cached_per_scope_and_stay_exact():
    scripts = [
        (SAMPLES / name).read_text()
        for name in (
            "ag007_clamp_probs_buggy.py",
            "ag006_manual_sgd_buggy.py",
            "ag005_never_cleared_buggy.py",
        )
    ]
    parts = []
    for index in range(4):
        for script in scripts:
            body = "\n".join("    " + line if line.strip() else line for line in script.split("\n"))
            parts.append(f"def script_{index}_{len(parts)}():\n{body}\n")
    lines = "\n".join(parts).split("\n")
    cache = AnalysisCache()
    first = analyze("\n".join(lines), "f.py", cache=cache)
    assert {"AG005", "AG006", "AG007"} <= {f.code for f in first}
    rng = random.Random(11)
    for step in range(25):
        index = rng.randrange(1, len(lines))
        if step % 5 == 0:
            lines.insert(index, "# a new line moves every scope below it")
        elif step % 3 == 0:
            del lines[index]  # and a deleted one moves them back
        else:
            lines[index] += rng.choice([" ", "  # c", "(", ""])
        text = "\n".join(lines)
        assert as_tuples(analyze(text, "f.py", cache=cache)) == as_tuples(analyze(text, "f.py"))


def test_analysis_leaves_no_reference_cycles():
    """The language server freezes what an analysis keeps and collects cycles only when
    the editor is quiet (lsp/collector.py): a replaced block must be freed by reference
    counting alone, or every edit would keep its old syntax tree alive until then."""
    import gc

    # Classes with local bases and methods, module state; the inserted lines break
    # functions in two (syntax errors).
    source = "\n\n".join(p.read_text() for p in sorted(SAMPLES.glob("*.py")))
    gc.collect()
    gc.disable()
    try:
        cache = AnalysisCache()
        analyze(source, "f.py", cache=cache)
        lines = source.split("\n")
        for index in range(10, len(lines), len(lines) // 7):
            lines.insert(index, "x = 1")
            analyze("\n".join(lines), "f.py", cache=cache)
        analyze(source, "f.py")  # and without a cache
        del cache
        assert gc.collect() == 0
    finally:
        gc.enable()


CLEARED_BY_A_HELPER = """import torch


def reset(optimizer):
    optimizer.zero_grad()


def train(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        reset(optimizer)
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
"""


def test_a_helper_that_stops_clearing_rechecks_its_callers():
    cache = AnalysisCache()
    assert [f.code for f in analyze(CLEARED_BY_A_HELPER, "f.py", cache=cache)] == []
    # The helper still mentions zero_grad, but no longer calls it.
    edited = CLEARED_BY_A_HELPER.replace(
        "    optimizer.zero_grad()", "    pass  # optimizer.zero_grad() moved"
    )
    cached = analyze(edited, "f.py", cache=cache)
    assert as_tuples(cached) == as_tuples(analyze(edited, "f.py"))
    assert [f.code for f in cached] == ["AG005"]


# Lines an editor passes through while typing: brackets, backslashes, decorators, form feeds.
TYPED_LINES = ["", "# note", "    x = 1", "def f(:", "x = 1 \\", "\\", "# c \\", "    y = (", ")",
               "@dec", "'''", "\x0c", "    \\", "if x:", "    pass"]  # fmt: skip
TYPED_ENDINGS = [" ", "  # c", "(", ".detach()", " \\", ")"]


def typing_session(seed: int, steps: int = 30):
    rng = random.Random(seed)
    lines = many_functions(3).split("\n")
    for _ in range(steps):
        index = rng.randrange(1, len(lines))
        action = rng.choice(["insert", "delete", "edit"])
        if action == "insert":
            lines.insert(index, rng.choice(TYPED_LINES))
        elif action == "delete" and len(lines) > 5:
            del lines[index]
        else:
            lines[index] = lines[index] + rng.choice(TYPED_ENDINGS)
        yield "\n".join(lines)


# Seeds 9, 39, 168 and 252 each found a way the cached answer differed from a fresh one
# (a re-cut block's old object lost, a tie between two interpreters' origins, a block's
# line numbers in a message, a piece judged alone that the block above completes).
def test_typing_odd_lines_gives_the_fresh_answer_after_every_keystroke():
    for seed in [9, 39, 168, 252, *range(400, 412)]:
        cache = AnalysisCache()
        for step, text in enumerate(typing_session(seed)):
            cached = as_tuples(analyze(text, "f.py", cache=cache))
            assert cached == as_tuples(analyze(text, "f.py")), (seed, step)


CALLS_A_HELPER = """import torch

def step(model, batches):
    hidden = None
    for x, y in batches:
        out, hidden = carry(model, x, hidden)
        loss = (out - y).pow(2).mean()
        loss.backward()


def carrx(model, x, hidden):
    out, hidden = model(x, hidden)
    return out, hidden.detach()


def unrelated():
    return 1
"""


def test_a_definition_renamed_into_a_called_name_reruns_its_callers():
    """The roots' dependency closures are kept from run to run (Program): a block edited
    into the definer of a name a loop calls (`carrx` renamed `carry`, which detaches the
    state), or one whose body a reached block's changes, is followed again; the cached
    answer equals a fresh one at every step."""
    versions = [
        CALLS_A_HELPER,
        CALLS_A_HELPER.replace("def carrx", "def carr"),
        CALLS_A_HELPER.replace("def carrx", "def carry"),  # now `step` detaches: no AG001
        CALLS_A_HELPER.replace("def carrx", "def carry").replace("return 1", "return 2"),
        CALLS_A_HELPER.replace("def carrx", "def carry").replace("hidden.detach()", "hidden"),
        CALLS_A_HELPER.replace("def carrx", "def carr").replace("hidden.detach()", "hidden"),
        CALLS_A_HELPER.replace("def carrx", "def carry").replace("def unrelated", "def carrx"),
    ]
    cache = AnalysisCache()
    answers = []
    for text in versions:
        cached = as_tuples(analyze(text, "f.py", cache=cache))
        assert cached == as_tuples(analyze(text, "f.py")), text
        answers.append([code for code, *_ in cached])
    assert answers[:3] == [["AG001"], ["AG001"], []]  # the rename decides
    assert answers[4] == ["AG001"]  # carry no longer detaches: the state carries the graph


def test_a_line_typed_below_a_block_is_parsed_with_it():
    """An indented line typed between two functions belongs to the one above: that block
    is parsed again with it (a change inside the next block's body leaves this one be)."""
    cache = AnalysisCache()
    source = many_functions(3)
    analyze(source, "f.py", cache=cache)
    before = cache.stats["blocks_parsed"]
    body_end = "        loss.backward()\n\n\ndef helper_1"
    typed = source.replace(body_end, "        loss.backward()\n    hidden = None\n\n\ndef helper_1")
    assert as_tuples(analyze(typed, "f.py", cache=cache)) == as_tuples(analyze(typed, "f.py"))
    assert cache.stats["blocks_parsed"] - before == 1
    assert cache.blocks[1].text.startswith("def helper_0")
    assert cache.blocks[1].text.endswith("loss.backward()\n    hidden = None")


PASSES_THE_LOSS_ON = """import torch


def warm_up(model, x):
    model(x).sum().backward()


def propagate(loss):
    return loss


def outer(model, batches):
    hidden = None
    for x, y in batches:
        out, hidden = model(x, hidden)
        propagate((out - y).pow(2).mean())
"""


def test_a_helper_that_starts_calling_backward_makes_its_caller_a_root_again():
    """Which functions are analysis roots is kept from run to run (Program) while the
    edited functions stay the same in what decides it; `propagate` typed into a backward
    makes `outer`, which calls it, a root (AG001: its state carries the graph), and so
    does `outer` calling it again after a misspelt call."""
    propagating = PASSES_THE_LOSS_ON.replace("    return loss", "    loss.backward()")
    misspelt = "propagat((out"  # the call no longer names the helper
    versions = [
        PASSES_THE_LOSS_ON,
        PASSES_THE_LOSS_ON.replace("return loss", "return loss  # typing"),
        propagating,
        propagating.replace("loss.backward()", "loss.backward()  # typing"),
        PASSES_THE_LOSS_ON.replace("propagate((out", misspelt),
        propagating.replace("propagate((out", misspelt),
        propagating,  # only the caller's text changed: it names the helper again
        PASSES_THE_LOSS_ON,
    ]
    cache = AnalysisCache()
    answers = []
    for text in versions:
        cached = as_tuples(analyze(text, "f.py", cache=cache))
        assert cached == as_tuples(analyze(text, "f.py")), text
        answers.append([code for code, *_ in cached])
    assert answers == [[], [], ["AG001"], ["AG001"], [], [], ["AG001"], []]


def test_a_long_typing_session_keeps_the_caches_bounded():
    """Each keystroke re-makes the edited block; what the caches keep of the earlier
    versions stays within a few times the file's blocks, not one entry per keystroke."""
    from autograd_lint.analysis import checks

    cache = AnalysisCache()
    source = many_functions(10)
    anchor = "def helper_4(model, batches):\n    hidden = None"
    typed = ""
    for step in range(300):
        typed += "abcdefghij"[step % 10]
        analyze(source.replace(anchor, f"{anchor}  # {typed}"), "f.py", cache=cache)
    bound = 2 * len(cache.blocks) + 16
    for name, value in cache.checks.items():
        if isinstance(value, dict):
            assert len(value) <= bound, name
    for held in (cache.results, cache.definitions):
        assert len(held) <= bound
    assert len(checks._WANTS) <= checks._TEXT_MEMO_BOUND + 1
    assert len(checks._NAMES) <= checks._TEXT_MEMO_BOUND + 1
