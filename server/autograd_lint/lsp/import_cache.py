"""Import `lsprotocol.types` with attrs' generated methods compiled once, not per start.

`lsprotocol.types` declares ~550 attrs classes; attrs writes `__init__`, `__eq__` and
`__repr__` for each as Python source and compiles it while the module is imported.
That compiling was 140 ms of the 250 ms the import takes, a third of the language
server's start-up, and it gives the same code objects every time. So the import runs
with attrs' compile step looking up a cache first: code objects keyed by the exact
source and file name attrs generated, stored with `marshal` in the user's cache
folder, one file per Python and installed attrs and lsprotocol. A cache that cannot be
read, written or understood costs only the time it would have saved; an attrs whose
compile step no longer looks as expected is left alone.

Set AUTOGRAD_LINT_NO_IMPORT_CACHE=1 to import without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import marshal
import os
import sys
from pathlib import Path

MODULE = "lsprotocol.types"
_EXPECTED_PARAMETERS = ["script", "globs", "locs", "filename"]


def cache_file() -> Path | None:
    """The cache for the installed attrs and lsprotocol: named by their files' sizes and
    modification times (reading their versions through importlib.metadata costs more
    than a tenth of what the cache saves), and by the Python that compiled it."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    stamps = []
    for module in ("attr._make", MODULE):
        try:
            spec = importlib.util.find_spec(module)
            status = os.stat(spec.origin)
        except (ImportError, AttributeError, TypeError, ValueError, OSError):
            return None
        stamps.append(f"{spec.origin}:{status.st_size}:{status.st_mtime_ns}")
    digest = hashlib.sha256("\n".join(stamps).encode()).hexdigest()[:16]
    tag = sys.implementation.cache_tag or "python"
    return Path(base) / "autograd-lint" / f"lsprotocol-{tag}-{digest}.marshal"


def import_lsprotocol_types():
    """`lsprotocol.types`, imported through the cache when it can be."""
    if MODULE in sys.modules or os.environ.get("AUTOGRAD_LINT_NO_IMPORT_CACHE"):
        return importlib.import_module(MODULE)
    try:
        import attr._make as attrs_make

        original = attrs_make._compile_and_eval
        parameters = list(inspect.signature(original).parameters)
    except (ImportError, AttributeError, TypeError, ValueError):
        return importlib.import_module(MODULE)
    if parameters != _EXPECTED_PARAMETERS:
        return importlib.import_module(MODULE)
    path = cache_file()
    cached = _load(path)
    used: dict[tuple[str, str], object] = {}

    def compile_and_eval(script, globs, locs=None, filename=""):
        key = (script, filename)
        code = cached.get(key)
        if code is None:
            code = compile(script, filename, "exec")
        used[key] = code
        eval(code, globs, locs)  # noqa: S307 - attrs' own generated method source

    attrs_make._compile_and_eval = compile_and_eval
    try:
        module = importlib.import_module(MODULE)
    finally:
        attrs_make._compile_and_eval = original
    if path is not None and used.keys() != cached.keys():
        _store(path, used)
    return module


def _load(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def _store(path: Path, codes: dict) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(marshal.dumps(codes))
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            temporary.unlink()
