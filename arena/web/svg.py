"""The pictures, drawn on the server: a rating's interval as an error bar and a bot's rating
history with its band (SVG), the head-to-head matrix as a table in colours.  Every number is
printed (a hover title only repeats it); every name is escaped."""

from __future__ import annotations

import math
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


def ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round values from ``lo`` to ``hi``, about ``count`` of them (steps of 1, 2 or 5 times a
    power of ten)."""
    span = (hi - lo) or 1.0
    step = 10 ** math.floor(math.log10(span / count))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= count:
            step *= factor
            break
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


#: The rating plot's size and margins (SVG units; it scales to the page's width).
PLOT_WIDTH, PLOT_HEIGHT = 760, 340
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 58, 64, 18, 46


def history_plot(points: Sequence[Point], width: int = PLOT_WIDTH,
                 height: int = PLOT_HEIGHT) -> Markup:
    """Elo against games stored: a dot per point (a snapshot, or a computed moment), the band
    shaded where it is known, gridlines at round values, the axes labelled, and the last,
    highest and lowest Elo printed beside their dots."""
    if not points:
        return Markup('<p class="note">No rating history yet.</p>')
    axis = axis_of([(p.elo, p.low, p.high) for p in points])
    most = max(p.games for p in points)
    inner_w = width - PLOT_LEFT - PLOT_RIGHT
    inner_h = height - PLOT_TOP - PLOT_BOTTOM
    x = scale(0, most, inner_w, pad=0)
    y = scale(axis[1], axis[0], inner_h, pad=0)

    def px(games: float) -> float:
        return PLOT_LEFT + x(games)

    def py(elo: float) -> float:
        return PLOT_TOP + y(elo)

    parts = [f'<svg class="history" viewBox="0 0 {width} {height}" role="img" '
             'aria-label="rating history" preserveAspectRatio="xMinYMin meet">',
             f'<rect x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{inner_w}" height="{inner_h}" '
             'class="frame"/>']
    for value in ticks(axis[0], axis[1]):
        parts.append(f'<line x1="{PLOT_LEFT}" x2="{PLOT_LEFT + inner_w}" y1="{py(value):.1f}" '
                     f'y2="{py(value):.1f}" class="grid"/><text x="{PLOT_LEFT - 6}" '
                     f'y="{py(value) + 4:.1f}" class="tick" text-anchor="end">{value:.0f}</text>')
    for value in ticks(0, most):
        parts.append(f'<line x1="{px(value):.1f}" x2="{px(value):.1f}" y1="{PLOT_TOP}" '
                     f'y2="{PLOT_TOP + inner_h}" class="grid"/><text x="{px(value):.1f}" '
                     f'y="{PLOT_TOP + inner_h + 16}" class="tick" text-anchor="middle">'
                     f'{value:.0f}</text>')
    parts.append(f'<text x="{PLOT_LEFT + inner_w / 2:.0f}" y="{height - 6}" class="label" '
                 'text-anchor="middle">games</text>'
                 f'<text transform="translate(14,{PLOT_TOP + inner_h / 2:.0f}) rotate(-90)" '
                 'class="label" text-anchor="middle">Elo</text>')
    banded = [p for p in points if p.low is not None and p.high is not None]
    if banded:
        upper = " ".join(f"{px(p.games):.1f},{py(p.high):.1f}" for p in banded)  # type: ignore[arg-type]
        lower = " ".join(f"{px(p.games):.1f},{py(p.low):.1f}"  # type: ignore[arg-type]
                         for p in reversed(banded))
        parts.append(f'<polygon class="band" points="{upper} {lower}"/>')
    line = " ".join(f"{px(p.games):.1f},{py(p.elo):.1f}" for p in points)
    parts.append(f'<polyline class="line" points="{line}"/>')
    for p in points:
        kind = "live rating" if p.kind == "live" else "batch fit"
        parts.append(f'<circle cx="{px(p.games):.1f}" cy="{py(p.elo):.1f}" r="3.5" '
                     f'class="elo {p.kind}"><title>{p.games} games: {p.elo:.0f} ({kind})'
                     '</title></circle>')
    last = points[-1]
    top = max(points, key=lambda p: p.elo)
    bottom = min(points, key=lambda p: p.elo)
    labelled = [(last, 8, 4, "start", "last")]
    labelled += [(p, 0, dy, "middle", kind) for p, dy, kind in ((top, -8, "high"),
                                                               (bottom, 16, "low"))
                 if p is not last]
    for p, dx, dy, anchor, kind in labelled:
        parts.append(f'<text x="{px(p.games) + dx:.1f}" y="{py(p.elo) + dy:.1f}" '
                     f'class="value {kind}" text-anchor="{anchor}">{p.elo:.0f}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def colour(share: float) -> str:
    """Red (loses every comparison) through pale yellow to green (wins every one), light
    enough for dark text."""
    red = round(250 - 110 * max(0.0, share - 0.5) * 2)
    green = round(120 + 130 * min(1.0, share * 2))
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
