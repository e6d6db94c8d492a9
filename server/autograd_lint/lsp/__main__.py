"""`python -m autograd_lint.lsp [--tcp HOST:PORT]`: the language server without the CLI."""

import argparse
import sys

from .server import main

parser = argparse.ArgumentParser(prog="python -m autograd_lint.lsp")
parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
sys.exit(main(parser.parse_args()))
