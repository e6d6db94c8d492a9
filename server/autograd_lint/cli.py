"""Command line entry point (placeholder until the CLI lands)."""

import sys


def main(argv=None) -> int:
    print("autograd-lint: not yet implemented", file=sys.stderr)
    return 2
