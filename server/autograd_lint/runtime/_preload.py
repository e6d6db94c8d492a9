"""What a warm harness child imports before it is asked to run a script (see warm.py).

Loaded by harness.py as a sibling in the user's interpreter: standard library only,
Python 3.8 syntax. The runner hands it the script's leading import block (module names, in
order); it imports them up to the first one that is not an installed library, so that
nothing of the user's own runs early and the import order the script will see is unchanged.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import site
import sys
import sysconfig


def installed_roots():
    """The folders installed modules are imported from: the standard library, its
    extension folder and every site-packages (the user's too)."""
    paths = sysconfig.get_paths()
    roots = [paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    if paths.get("platstdlib"):
        roots.append(os.path.join(paths["platstdlib"], "lib-dynload"))
    with_site = getattr(site, "getsitepackages", lambda: [])()
    roots += list(with_site)
    user = getattr(site, "getusersitepackages", lambda: None)()
    if user:
        roots.append(user)
    return {os.path.realpath(root) for root in roots if root}


def _path_entries(spec):
    """The sys.path folders a top-level module's spec was found in."""
    if spec.origin in ("built-in", "frozen"):
        return []
    if spec.submodule_search_locations is not None:  # a package: the folder holding it
        return [os.path.dirname(os.path.realpath(p)) for p in spec.submodule_search_locations]
    if spec.origin:
        return [os.path.dirname(os.path.realpath(spec.origin))]
    return [None]


def is_installed(name, script_dir, roots):
    """Whether `name` resolves, for a script in `script_dir`, to an installed module: one
    found in the standard library or a site-packages folder, never next to the script (its
    folder comes first on sys.path, as in `python script.py`), on PYTHONPATH or in an
    editable install's source tree (the user's own code)."""
    top = name.partition(".")[0]
    if top in sys.builtin_module_names:
        return True
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: finding it runs no code
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    here = os.path.realpath(script_dir)
    entries = _path_entries(spec)
    return all(entry is not None and entry != here and entry in roots for entry in entries)


def import_leading(names, script_dir):
    """Imports `names` in order up to the first that is not installed.

    Returns (the names imported, a problem or None): a problem when an installed module's
    import raised, after which the child is not used (the script's own import would have
    raised there, after whatever the module had done)."""
    roots = installed_roots()
    imported = []
    for name in names:
        if not is_installed(name, script_dir, roots):
            break
        try:
            importlib.import_module(name)
        except BaseException as error:  # noqa: BLE001 - any failure makes the child unusable
            return imported, f"importing {name} failed: {type(error).__name__}: {error}"
        imported.append(name)
    return imported, None


def warm_torch(torch):
    """The parts of torch a training script pulls in lazily: creating its first optimizer
    imports torch._dynamo (about 2 s of CPU). Nothing here draws a random number or keeps
    a tensor."""
    import torch._dynamo  # noqa: F401
    import torch.optim

    parameter = torch.zeros(1, requires_grad=True)
    torch.optim.Adam([parameter])
    torch.optim.SGD([parameter], lr=0.1)
