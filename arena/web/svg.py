"""The pictures, drawn on the server: a rating's interval as an error bar and a bot's rating
history with its band (SVG), the head-to-head matrix as a table in colours.  Every number is
printed (a hover title only repeats it); every name is escaped."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

from arena.events.headtohead import HeadToHead
from arena.web.history import Point


def scale(lo: float, hi: float, width: float, pad: float = 4.0) -> Callable[[float], float]:
    """Values from ``lo`` to ``hi`` as positions from ``pad`` to ``width - pad``."""
    span = (hi - lo) or 1.0
    return lambda value: pad + (value - lo) / span * (width - 2 * pad)


def error_bar(elo: float, low: float | None, high: float | None, axis: tuple[float, float],
              width: int = 160, height: int = 16) -> Markup:
    """The rating as a dot, its 95 % interval as a bar (none when the data is thin)."""
    x = scale(axis[0], axis[1], width)
    mid = height / 2
    parts = [f'<svg class="bar" width="{width}" height="{height}" viewBox="0 0 {width} '
             f'{height}" role="img" aria-label="Elo {elo:.0f}">']
    if low is not None and high is not None:
        parts.append(f'<line x1="{x(low):.1f}" y1="{mid}" x2="{x(high):.1f}" y2="{mid}" '
                     'class="interval"/>')
        for end in (low, high):
            parts.append(f'<line x1="{x(end):.1f}" y1="{mid - 4}" x2="{x(end):.1f}" '
                         f'y2="{mid + 4}" class="interval"/>')
    parts.append(f'<circle cx="{x(elo):.1f}" cy="{mid}" r="3.5" class="elo"/></svg>')
    return Markup("".join(parts))


def axis_of(values: Sequence[tuple[float, float | None, float | None]]) -> tuple[float, float]:
    """The range that holds every (elo, low, high), a little wider."""
    seen = [v for triple in values for v in triple if v is not None]
    if not seen:
        return (1400.0, 1600.0)
    lo, hi = min(seen), max(seen)
    return (lo - 10, hi + 10)


def history_plot(points: Sequence[Point], width: int = 560, height: int = 220) -> Markup:
    """Elo against games stored, the band shaded where it is known."""
    if not points:
        return Markup('<p class="note">No rating history yet.</p>')
    axis = axis_of([(p.elo, p.low, p.high) for p in points])
    left, bottom = 44, 24
    x = scale(0, max(p.games for p in points), width - left)
    y = scale(axis[1], axis[0], height - bottom)
    parts = [f'<svg class="history" viewBox="0 0 {width} {height}" role="img" '
             'aria-label="rating history" preserveAspectRatio="xMinYMin meet">']
    banded = [p for p in points if p.low is not None and p.high is not None]
    if banded:
        upper = " ".join(f"{left + x(p.games):.1f},{y(p.high):.1f}" for p in banded)  # type: ignore[arg-type]
        lower = " ".join(f"{left + x(p.games):.1f},{y(p.low):.1f}"  # type: ignore[arg-type]
                         for p in reversed(banded))
        parts.append(f'<polygon class="band" points="{upper} {lower}"/>')
    line = " ".join(f"{left + x(p.games):.1f},{y(p.elo):.1f}" for p in points)
    parts.append(f'<polyline class="line" points="{line}"/>')
    for p in points:
        kind = "live rating" if p.kind == "live" else "batch fit"
        parts.append(f'<circle cx="{left + x(p.games):.1f}" cy="{y(p.elo):.1f}" r="2.5" '
                     f'class="elo {p.kind}"><title>{p.games} games: {p.elo:.0f} ({kind})'
                     '</title></circle>')
    for value in (axis[0], (axis[0] + axis[1]) / 2, axis[1]):
        parts.append(f'<text x="2" y="{y(value) + 4:.1f}" class="tick">{value:.0f}</text>')
    parts.append(f'<text x="{left}" y="{height - 6}" class="tick">0</text>'
                 f'<text x="{width - 4}" y="{height - 6}" class="tick" text-anchor="end">'
                 f'{max(p.games for p in points)} games</text></svg>')
    return Markup("".join(parts))


def colour(share: float) -> str:
    """Red (loses every comparison) through pale yellow to green (wins every one), light
    enough for dark text."""
    red = round(250 - 110 * max(0.0, share - 0.5) * 2)
    green = round(160 + 90 * min(1.0, share * 2))
    blue = round(150 - 40 * abs(share - 0.5) * 2)
    return f"rgb({red},{green},{blue})"


def matrix(names: Sequence[str], order: Sequence[int], entries: Sequence[HeadToHead]
           ) -> Markup:
    """Row bot against column bot, as an HTML table: each cell prints the row's share of the
    pairwise results (a tie is half) and its wins-ties-losses, on the share's colour; a dot
    where they never met.  Names are whole (the columns' written upwards, the rows' wrapped)."""
    share: dict[tuple[int, int], tuple[float, str]] = {}
    for e in entries:
        a, b = e.entrants
        total = e.wins + e.ties + e.losses
        if not total:
            continue
        share[a, b] = ((e.wins + e.ties / 2) / total, f"{e.wins}-{e.ties}-{e.losses}")
        share[b, a] = ((e.losses + e.ties / 2) / total, f"{e.losses}-{e.ties}-{e.wins}")
    parts = ['<table class="matrix"><thead><tr><th class="corner">row v column</th>']
    parts.extend(f'<th class="column" scope="col"><span>{escape(names[b])}</span></th>'
                 for b in order)
    parts.append("</tr></thead><tbody>")
    for a in order:
        parts.append(f'<tr><th class="row" scope="row">{escape(names[a])}</th>')
        for b in order:
            found = share.get((a, b))
            if a == b:
                parts.append('<td class="self">\u2014</td>')
            elif found is None:
                parts.append('<td class="unmet" title="never met">\u00b7</td>')
            else:
                parts.append(
                    f'<td class="score" style="background: {colour(found[0])}" title="'
                    f'{escape(names[a])} v {escape(names[b])}: {found[1]} (wins-ties-losses)">'
                    f'<b>{100 * found[0]:.0f}%</b><small>{found[1]}</small></td>')
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return Markup("".join(parts))
