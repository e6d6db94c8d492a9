"""Importing lsprotocol with attrs' generated methods cached (lsp/import_cache.py)."""

import json
import os
import subprocess
import sys

# Structures a real client's initialize params, then prints what the server would see.
PROBE = """
import builtins, json, sys
compiled = []
real_compile = builtins.compile
def counting_compile(source, filename, *args, **kwargs):
    if str(filename).startswith("<attrs generated") and " lsprotocol.types." in str(filename):
        compiled.append(filename)
    return real_compile(source, filename, *args, **kwargs)
builtins.compile = counting_compile
from autograd_lint.lsp import import_cache
from autograd_lint.lsp.import_cache import import_lsprotocol_types
types = import_lsprotocol_types()
compiled_by_import = len(compiled)
from lsprotocol.converters import get_converter
converter = get_converter()
params = converter.structure(json.loads(sys.argv[1]), types.InitializeParams)
position = types.Position(line=1, character=2)
print(json.dumps({
    "roundTrip": converter.unstructure(params),
    "repr": repr(position),
    "equal": position == types.Position(line=1, character=2),
    "cache": str(import_cache.cache_file()),
    "compiled": compiled_by_import,
}))
"""
PARAMS = {
    "processId": 1,
    "rootUri": None,
    "capabilities": {
        "general": {"positionEncodings": ["utf-32", "utf-16"]},
        "textDocument": {"publishDiagnostics": {"relatedInformation": True}},
    },
}


def probe(cache_home, *, disabled=False):
    environment = {k: v for k, v in os.environ.items() if k != "AUTOGRAD_LINT_NO_IMPORT_CACHE"}
    environment["XDG_CACHE_HOME"] = str(cache_home)
    if disabled:
        environment["AUTOGRAD_LINT_NO_IMPORT_CACHE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(PARAMS)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_cache_is_written_once_and_gives_the_same_classes(tmp_path):
    plain = probe(tmp_path / "off", disabled=True)
    assert not (tmp_path / "off").exists()

    first = probe(tmp_path)
    cache = tmp_path / "autograd-lint"
    files = list(cache.iterdir())
    assert [str(f) for f in files] == [first["cache"]]
    written = files[0].stat().st_mtime_ns

    second = probe(tmp_path)  # from the cache
    assert files[0].stat().st_mtime_ns == written  # read, not rewritten
    # attrs compiled its methods without the cache and to fill it, not from it.
    assert plain["compiled"] > 500 and first["compiled"] > 500
    assert second["compiled"] == 0
    same = ("roundTrip", "repr", "equal")
    assert [first[k] for k in same] == [second[k] for k in same] == [plain[k] for k in same]
    assert second["roundTrip"]["capabilities"]["general"]["positionEncodings"] == [
        "utf-32",
        "utf-16",
    ]
    assert second["equal"] is True


def test_a_damaged_cache_is_replaced(tmp_path):
    first = probe(tmp_path)
    cache = tmp_path / "autograd-lint" / os.path.basename(first["cache"])
    cache.write_bytes(b"not marshal data")
    again = probe(tmp_path)
    assert again["compiled"] > 500 and again["roundTrip"] == first["roundTrip"]
    assert cache.stat().st_size > 100_000  # written again, whole
