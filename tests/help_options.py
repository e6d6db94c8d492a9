"""The options an argparse `--help` declares, as whole words.

The docs tests check that every option a page names exists. Asking whether the option's
text occurs in the help passes a misspelt prefix (`--confirm` is in `--confirm-args`), so
they compare whole options against the usage lines, where argparse lists every option it
accepts (the descriptions below may name options only in prose).
"""

from __future__ import annotations

import re

OPTION = re.compile(r"(?<![\w-])--\w[\w-]*")


def named_options(text: str) -> list[str]:
    """Each `--option` of `text` whole: `--confirm=always` names `--confirm`."""
    return OPTION.findall(text)


def declared_options(help_text: str) -> set[str]:
    usage = help_text.split("\n\n", 1)[0]
    assert usage.startswith("usage:"), help_text[:200]
    return set(named_options(usage))
