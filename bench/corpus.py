"""Fetch real PyTorch code from PyPI into `.bench-cache/` for the throughput benchmark.

Wheels are zip files of the package's `.py` sources, so a wheel is the quickest way to
get them; an sdist is only used when a package publishes no wheel. Only `*.py` members
are extracted. Nothing here is committed: the cache directory is git-ignored.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = REPO_ROOT / ".bench-cache"
MAX_ARCHIVE_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class PackageSpec:
    name: str  # the label printed in the report
    requirement: str  # what pip downloads; pinned so numbers stay comparable over time
    # Path prefixes inside the archive to leave out (code for other frameworks).
    exclude: tuple[str, ...] = field(default=())


# Packages holding training loops, nn.Modules and metric code, each a quick download.
DEFAULT_PACKAGES: tuple[PackageSpec, ...] = (
    PackageSpec("pytorch-lightning", "pytorch-lightning==2.6.6"),
    PackageSpec("timm", "timm==1.0.31"),
    PackageSpec("torchmetrics", "torchmetrics==1.9.0"),
    PackageSpec("torchvision", "torchvision==0.29.1"),
    PackageSpec("pytorch-ignite", "pytorch-ignite==0.5.5"),
    PackageSpec("skorch", "skorch==1.4.0"),
    PackageSpec("accelerate", "accelerate==1.15.0"),
    PackageSpec("fastai", "fastai==2.8.12"),
    PackageSpec("d2l", "d2l==1.0.3", exclude=("d2l/jax.py", "d2l/mxnet.py", "d2l/tensorflow.py")),
)

# Known but not fetched by default: large enough to dominate the run time.
OPTIONAL_PACKAGES: tuple[PackageSpec, ...] = (PackageSpec("transformers", "transformers==5.24.0"),)


def find_spec(name_or_requirement: str) -> PackageSpec:
    """A known package by name, or an ad-hoc one from a pip requirement (`pkg` or `pkg==1.2`)."""
    for spec in DEFAULT_PACKAGES + OPTIONAL_PACKAGES:
        if name_or_requirement in (spec.name, spec.requirement):
            return spec
    label = name_or_requirement.split("==")[0].split(">")[0].split("<")[0].strip()
    return PackageSpec(label, name_or_requirement)


def _pip_download(requirement: str, dest: Path, *, binary: bool) -> Path | None:
    before = set(dest.iterdir())
    mode = ["--only-binary", ":all:"] if binary else ["--no-binary", ":all:"]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", *mode]
    command += ["--dest", str(dest), requirement]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        return None
    new = set(dest.iterdir()) - before
    if new:
        return max(new, key=lambda p: p.stat().st_mtime)
    # Already downloaded earlier: pip leaves the file alone and reports nothing new.
    stem = requirement.split("==")[0].replace("-", "_").lower()
    candidates = [p for p in dest.iterdir() if p.name.replace("-", "_").lower().startswith(stem)]
    return max(candidates, key=lambda p: p.stat().st_mtime) if candidates else None


def _python_members(archive: Path) -> list[tuple[str, bytes]]:
    """(relative path, contents) of every .py file in a wheel or sdist."""
    members: list[tuple[str, bytes]] = []
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                if info.filename.endswith(".py") and not info.is_dir():
                    members.append((info.filename, zipped.read(info)))
    else:
        with tarfile.open(archive) as tarred:
            for info in tarred.getmembers():
                if info.isfile() and info.name.endswith(".py"):
                    handle = tarred.extractfile(info)
                    if handle is not None:
                        # sdists nest everything under "<name>-<version>/".
                        relative = str(PurePosixPath(*PurePosixPath(info.name).parts[1:]))
                        members.append((relative, handle.read()))
    return members


def _is_safe(relative: str) -> bool:
    path = PurePosixPath(relative)
    return not path.is_absolute() and ".." not in path.parts


def fetch(spec: PackageSpec, cache_dir: Path = CACHE_DIR, *, log=print) -> Path | None:
    """Download and extract one package's .py files; returns the source folder or None."""
    archives = cache_dir / "archives"
    sources = cache_dir / "src" / spec.requirement.replace("==", "-").replace("/", "_")
    done_marker = sources / ".complete"
    if done_marker.exists():
        return sources
    archives.mkdir(parents=True, exist_ok=True)
    archive = _pip_download(spec.requirement, archives, binary=True)
    if archive is None:
        archive = _pip_download(spec.requirement, archives, binary=False)
    if archive is None:
        log(f"skip {spec.name}: pip could not download {spec.requirement!r}")
        return None
    if archive.stat().st_size > MAX_ARCHIVE_BYTES:
        log(f"skip {spec.name}: {archive.name} is over {MAX_ARCHIVE_BYTES >> 20} MiB")
        return None
    count = 0
    for relative, data in _python_members(archive):
        if not _is_safe(relative) or relative.startswith(spec.exclude):
            continue
        target = sources / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        count += 1
    sources.mkdir(parents=True, exist_ok=True)
    done_marker.write_text(f"{archive.name}\n{count} files\n")
    return sources


def read_sources(folder: Path) -> list[tuple[Path, str]]:
    """Every decodable .py file under `folder`, sorted by path."""
    files = []
    for path in sorted(folder.rglob("*.py")):
        try:
            files.append((path, path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    return files
