"""Graph growth per step, from the harness's step figures (AG003 and AG004 at runtime).

Each backward call the harness watches records two graphs: the one the call walks (from
its roots) and the one the script's variables keep alive at that moment (a loss summed
for logging is never walked, but keeps every step's graph). A graph that is dropped at
the end of each step has about the same size at every step; one carried or accumulated
across steps grows by the same amount each time. No torch here: the figures are numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

# A series must grow at each of this many steps in a row to count as growth: a graph whose
# size merely varies (data-dependent lengths) rises and falls.
MIN_STEPS = 3
PROJECTED_STEPS = 1000
# (measure, node count key, saved bytes key, what the graph is)
MEASURES = (
    ("walked", "nodes", "savedBytes", "the graph each backward walks"),
    ("kept", "liveNodes", "liveBytes", "the graph the script keeps alive"),
)


@dataclass(frozen=True)
class Growth:
    line: int | None  # the backward whose steps grew
    measure: str  # walked | kept
    steps: int
    nodes_per_step: float
    bytes_per_step: float
    last_nodes: int
    last_bytes: int

    def projected(self, steps: int = PROJECTED_STEPS) -> tuple[int, int]:
        """Nodes and bytes after `steps` steps at the same rate."""
        more = steps - self.steps
        return (
            round(self.last_nodes + self.nodes_per_step * more),
            round(self.last_bytes + self.bytes_per_step * more),
        )

    def message(self) -> str:
        what = dict((m, text) for m, _, _, text in MEASURES)[self.measure]
        nodes, size = self.projected()
        return (
            f"{what} grows by {_count(self.nodes_per_step)} nodes and "
            f"{_bytes(self.bytes_per_step)} of saved tensors per step; after "
            f"{PROJECTED_STEPS:,} steps: {_count(nodes)} nodes, {_bytes(size)}"
        )

    def to_json(self) -> dict:
        nodes, size = self.projected()
        return {
            "line": self.line,
            "measure": self.measure,
            "steps": self.steps,
            "nodesPerStep": self.nodes_per_step,
            "bytesPerStep": self.bytes_per_step,
            "projected": {"steps": PROJECTED_STEPS, "nodes": nodes, "bytes": size},
            "message": self.message(),
        }


def growth(steps: list[dict]) -> Growth | None:
    """The fastest-growing series of steps (one series per backward line and measure), or
    None when no graph grew at every step."""
    by_line: dict = {}
    for step in steps:
        by_line.setdefault(step.get("line"), []).append(step)
    found = []
    for line, series in by_line.items():
        if len(series) < MIN_STEPS:
            continue
        for measure, nodes_key, bytes_key, _ in MEASURES:
            nodes = [s.get(nodes_key) for s in series]
            sizes = [s.get(bytes_key) for s in series]
            if None in nodes or None in sizes or not _rising(nodes):
                continue
            found.append(
                Growth(
                    line=line,
                    measure=measure,
                    steps=len(series),
                    nodes_per_step=_typical_step(nodes),
                    bytes_per_step=max(0, _typical_step(sizes)),
                    last_nodes=nodes[-1],
                    last_bytes=sizes[-1],
                )
            )
    if not found:
        return None
    return max(found, key=lambda g: (g.bytes_per_step, g.nodes_per_step, g.measure == "walked"))


def growth_json(steps: list[dict]) -> dict | None:
    found = growth(steps)
    return found.to_json() if found is not None else None


def _typical_step(values: list[int]) -> float:
    """The median change from one step to the next: the first step often differs (an
    optimizer's first update makes weights require saving), the later ones repeat."""
    import statistics  # imports fractions and decimal (~8 ms): only once growth is measured

    return statistics.median(b - a for a, b in zip(values, values[1:], strict=False))


def _rising(values: list[int]) -> bool:
    return all(a < b for a, b in zip(values, values[1:], strict=False))


def _count(value: float) -> str:
    if abs(value) >= 10_000:
        return f"{value / 1000:,.0f}k"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.1f}"


def _bytes(value: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} bytes"


def series(steps: list[dict], line: int | None, measure: str = "walked") -> list[tuple[int, int]]:
    """(nodes, bytes) at each step of one backward line, for charts."""
    _, nodes_key, bytes_key, _ = next(m for m in MEASURES if m[0] == measure)
    return [
        (s.get(nodes_key) or 0, s.get(bytes_key) or 0)
        for s in steps
        if line is None or s.get("line") == line
    ]
