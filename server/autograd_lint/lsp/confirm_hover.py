"""What a runtime run measured, in the hover of the finding it answered: the figures of
each step (the graph each backward walked, the graph the script kept, their saved
bytes) and, for Markdown clients, a small chart of them as an inline SVG image.

The hover itself is features.py's; `register` wraps it (pygls takes one handler per
method) and appends this section when the cursor is on a finding with a verdict.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:  # the runtime is imported by the first run, not with the server
    from ..runtime.verdict import RuntimeVerdict

MAX_ROWS = 12  # steps shown in the table; the chart shows them all
CHART_WIDTH, CHART_HEIGHT = 240, 60


def runtime_section(verdict: RuntimeVerdict, markdown: bool) -> str:
    """The hover's runtime part for one verdict."""
    from ..runtime.verdict import format_verdict

    heading = "**At runtime:** " if markdown else "At runtime: "
    text = heading + format_verdict(verdict)
    steps = verdict.steps
    if not steps:
        return text
    rows = [
        "| call | line | nodes walked | saved bytes | nodes kept | kept bytes |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows += [
        f"| {s.get('call')} | {s.get('line')} | {s.get('nodes')} | {s.get('savedBytes')} "
        f"| {s.get('liveNodes')} | {s.get('liveBytes')} |"
        for s in steps[:MAX_ROWS]
    ]
    if len(steps) > MAX_ROWS:
        rows.append(f"| … {len(steps) - MAX_ROWS} more | | | | | |")
    if not markdown:
        plain = [
            f"  call {s.get('call')} (line {s.get('line')}): {s.get('nodes')} nodes walked, "
            f"{s.get('liveNodes')} kept, {s.get('liveBytes')} bytes kept"
            for s in steps[:MAX_ROWS]
        ]
        return "\n".join([text, *plain])
    section = [text, "", *rows]
    chart = chart_svg(steps)
    if chart is not None:
        data = base64.b64encode(chart.encode()).decode()
        section += ["", f"![graph size per step](data:image/svg+xml;base64,{data})"]
    return "\n".join(section)


def chart_svg(steps: list[dict]) -> str | None:
    """Nodes walked (solid) and kept (dashed) at each step, scaled to the largest."""
    from ..runtime.growth import growth

    if len(steps) < 2:
        return None
    walked = [int(s.get("nodes") or 0) for s in steps]
    kept = [int(s.get("liveNodes") or 0) for s in steps]
    top = max(walked + kept) or 1
    x_step = (CHART_WIDTH - 10) / (len(steps) - 1)

    def points(values: list[int]) -> str:
        return " ".join(
            f"{5 + i * x_step:.1f},{CHART_HEIGHT - 5 - (v / top) * (CHART_HEIGHT - 10):.1f}"
            for i, v in enumerate(values)
        )

    grew = growth(steps)
    title = grew.message() if grew is not None else "graph nodes per backward call"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" '
        f'height="{CHART_HEIGHT}"><title>{_escape(title)}</title>'
        f'<polyline fill="none" stroke="#3794ff" stroke-width="2" points="{points(walked)}"/>'
        f'<polyline fill="none" stroke="#cca700" stroke-width="2" stroke-dasharray="4 2" '
        f'points="{points(kept)}"/></svg>'
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def register(server, confirmations) -> None:
    """Wraps the hover handler features.py registered, to append the runtime section."""
    features = server.protocol.fm.features
    hover = features.get(types.TEXT_DOCUMENT_HOVER)
    if hover is None:
        return

    async def hover_with_runtime(params: types.HoverParams):
        answer = await hover(params)
        verdicts = confirmations.verdicts_at(params.text_document.uri, params.position)
        if not verdicts:
            return answer
        markdown = server.markdown_hover
        extra = "\n\n".join(runtime_section(v, markdown) for v in verdicts)
        if answer is None:
            kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
            return types.Hover(contents=types.MarkupContent(kind=kind, value=extra))
        contents = answer.contents
        if isinstance(contents, types.MarkupContent):
            value = (
                f"{contents.value}\n\n---\n\n{extra}"
                if markdown
                else f"{contents.value}\n\n{extra}"
            )
            return types.Hover(
                contents=types.MarkupContent(kind=contents.kind, value=value), range=answer.range
            )
        return answer

    features[types.TEXT_DOCUMENT_HOVER] = hover_with_runtime
