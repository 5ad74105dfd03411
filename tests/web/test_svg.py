"""The pictures as a reader sees them: every number printed, not only in a hover title."""

from __future__ import annotations

import re

from arena.events.headtohead import HeadToHead
from arena.web import svg
from arena.web.history import Point
from tests.web.events import HOSTILE

NAMES = ["alpha", "a-bot-with-a-very-long-name-indeed", HOSTILE]


def visible(markup: str) -> str:
    """The text a reader sees: the markup without its tags and hover titles."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<title>.*?</title>", "", markup))


def test_the_head_to_head_prints_each_score_in_its_coloured_cell_and_whole_names():
    entries = [HeadToHead("alpha", NAMES[1], 6, 1, 2, 9, (0, 1)),
               HeadToHead("alpha", HOSTILE, 0, 0, 4, 4, (0, 2))]
    table = str(svg.matrix(NAMES, [0, 1, 2], entries))
    seen = visible(table)
    # alpha against the long name: 6 wins, 1 tie, 2 losses: 72 %; the other side 28 %
    assert "72%" in seen and "6-1-2" in seen and "28%" in seen and "2-1-6" in seen
    assert "0%" in seen and "100%" in seen and "4-0-0" in seen
    assert NAMES[1] in seen  # the whole name, not cut
    assert HOSTILE not in table and "&lt;script&gt;" in table
    cells = re.findall(r'<td class="score"[^>]*style="background:\s*([^;"]+)', table)
    assert len(cells) == 4 and cells[0] != cells[1]  # coloured by the score
    assert seen.count("·") == 2  # beta and the hostile one never met


def test_the_rating_plot_has_a_point_per_snapshot_gridlines_axes_and_its_values_printed():
    points = [Point(10 * k, 1500.0 + (k - 12) ** 2, 1480.0, 1560.0 + k) for k in range(1, 25)]
    plot = str(svg.history_plot(points))
    assert plot.count('class="elo') == len(points)
    assert plot.count('class="grid"') >= 6
    seen = visible(plot)
    assert "games" in seen and "Elo" in seen
    last, top, bottom = points[-1], max(points, key=lambda p: p.elo), min(points,
                                                                           key=lambda p: p.elo)
    for p in (last, top, bottom):
        assert f"{p.elo:.0f}" in seen
    width = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', plot).group(1))
    assert width >= 720
