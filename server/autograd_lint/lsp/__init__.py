"""The autograd-lint language server (`autograd-lint lsp`); see docs/editors.md."""

from .import_cache import import_lsprotocol_types

# First, before pygls imports it the slow way (see import_cache.py).
import_lsprotocol_types()
