"""The floor under the language server's startup: pygls with nothing of ours.

bench/latency.py starts this beside `python -m autograd_lint.lsp` and times both from
process start to the `initialize` response. It is pygls' own `LanguageServer` on stdio
with no feature registered, and `lsprotocol.types` imported as our server imports it:
through our import cache (autograd_lint/lsp/import_cache.py; AUTOGRAD_LINT_NO_IMPORT_CACHE=1
turns it off). The startup our server takes beyond this process's is our code's.
"""

import autograd_lint.lsp  # noqa: F401 - its __init__ is the import cache and nothing else
from pygls.lsp.server import LanguageServer

LanguageServer("pygls-floor", "0").start_io()
