"""The live view, with plain values for time."""

from __future__ import annotations

from arena.events.progress import LiveView
from arena.events.ratings import TableResult


def test_the_live_view_shows_progress_rate_eta_and_the_online_leaders():
    view = LiveView(["a", "b", "c"], total=12, done=2, started=100.0,
                    earlier=[TableResult((0, 1, 2), (3, 2, 1))])
    assert view.elo[2] > view.elo[0]
    for _ in range(4):
        view.game_over(TableResult((0, 1, 2), (1, 2, 3)))
    view.game_over(None)  # an aborted game counts as done but not in the ratings
    line = view.line(160.0)  # 5 games in a minute, 5 left
    assert line.startswith("[" + "#" * 14 + "-" * 10 + "] 7/12")
    assert "5.0 games/min" in line and "ETA 1.0 min" in line
    assert line.endswith("| a 1546, b 1500, c 1454")  # c won first, then lost four times


def test_no_game_yet_has_no_eta():
    assert "ETA ?" in LiveView(["a", "b"], total=4, done=0, started=0.0).line(5.0)
