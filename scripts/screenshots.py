"""Publish the VS Code e2e screenshots into docs/screenshots/, small enough to keep in git.

    SESSIONS="ui notebook offline shots" scripts/vscode-e2e.sh test   # writes .e2e/*.png
    python3 scripts/screenshots.py [ARTIFACTS]                          # default .e2e

The e2e drivers save full 1400x900 RGB screenshots (~220 KB each). A 64-colour palette keeps
the workbench's text legible at ~60 KB. The index, docs/screenshots/README.md, is written from
the "shots" session's shots.json, so what it says about each hover (its height, whether the
Fix line is inside the 250 px box, the quick fixes offered) is what the driver measured in
the live workbench, not what we typed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "screenshots"
# The pictures a reader of the docs needs: each rule's hover and light bulb, the first run of
# the offline VSIX, the correct DCGAN with nothing underlined, and the notebook editor.
WANTED = (
    [f"shot-AG00{n}-{kind}.png" for n in range(1, 8) for kind in ("hover", "quickfix")]
    + ["offline-first-run.png", "offline-hover.png", "offline-quickfix.png"]
    + ["offline-dcgan-quiet.png", "notebook-hover.png", "notebook-fixed.png"]
)
COLOURS = 64


def shrink(source: Path, target: Path) -> int:
    image = Image.open(source).convert("RGB")
    image.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
    return target.stat().st_size


def index(shots: list[dict], published: list[str]) -> str:
    lines = [
        "# Screenshots",
        "",
        "Taken by the VS Code e2e drivers (`client/e2e/`) in code-server's live workbench, with",
        "the packaged VSIX installed; published by `scripts/screenshots.py`. Regenerate:",
        "",
        "```sh",
        'SESSIONS="ui notebook offline shots" scripts/vscode-e2e.sh test',
        "python3 scripts/screenshots.py",
        "```",
        "",
        "## One sample per rule: hover and quick-fix menu",
        "",
        "| rule | sample | hover height (px) | Fix line at (px) | Fix visible in 250 px | quick fixes offered |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for shot in shots:
        offered = [o for o in shot["offered"] if o != "Quick Fix"]
        code = shot["code"]
        lines.append(
            f"| [{code}](shot-{code}-hover.png) ([menu](shot-{code}-quickfix.png)) "
            f"| `samples/{shot['file']}:{shot['line']}` | {shot['height']} | {shot['fixTop']} "
            f"| {'yes' if shot['fixVisible'] else '**no**'} | {'; '.join(offered)} |"
        )
    lines += ["", "## Other sessions", ""]
    captions = {
        "offline-first-run.png": "the offline VSIX's first run: no network, no pip source, a bare python3",
        "offline-hover.png": "the offline first run's hover",
        "offline-quickfix.png": "the offline first run's quick-fix menu",
        "offline-dcgan-quiet.png": "a correct DCGAN: no squiggle with the default settings",
        "notebook-hover.png": "a notebook cell's finding in the notebook editor",
        "notebook-fixed.png": "the same cell after its quick fix",
    }
    for name, caption in captions.items():
        if name in published:
            lines.append(f"- [{name}]({name}): {caption}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    artifacts = Path(argv[0]) if argv else ROOT / ".e2e"
    missing = [name for name in WANTED if not (artifacts / name).is_file()]
    if missing:
        print(f"missing in {artifacts}: {', '.join(missing)}", file=sys.stderr)
        return 1
    TARGET.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in WANTED:
        total += shrink(artifacts / name, TARGET / name)
    shots = json.loads((artifacts / "shots.json").read_text())
    (TARGET / "README.md").write_text(index(shots, list(WANTED)))
    print(f"{len(WANTED)} screenshots, {total / 1e6:.2f} MB, in {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
