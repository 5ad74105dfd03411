"""The head-to-head table, counted on a hand-made set of games."""

from __future__ import annotations

from arena.events.headtohead import HeadToHead, format_head_to_head, head_to_head
from tests.events.test_storage import game


def test_head_to_head_counts_wins_ties_losses_and_games_at_shared_tables():
    games = [
        game(0, (0, 1, 2), (1, 2, 3)),  # a > b > c
        game(1, (1, 2, 0), (1, 1, 3)),  # b = c > a
        game(2, (2, 0), (1, 2)),  # c > a
        game(3, (0, 1), (1, 2), aborted="internal_error"),  # not counted
    ]
    assert head_to_head(["a", "b", "c"], games) == [
        HeadToHead("a", "b", wins=1, ties=0, losses=1, games=2, entrants=(0, 1)),
        HeadToHead("a", "c", wins=1, ties=0, losses=2, games=3, entrants=(0, 2)),
        HeadToHead("b", "c", wins=1, ties=1, losses=0, games=2, entrants=(1, 2)),
    ]


def test_bots_that_never_met_have_no_entry_and_the_table_has_a_line_a_pair():
    entries = head_to_head(["a", "b", "c", "d"], [game(0, (0, 1), (2, 1)), game(1, (2, 3), (1, 1))])
    assert [(e.bot, e.opponent, e.wins, e.ties, e.losses) for e in entries] == [
        ("a", "b", 0, 0, 1), ("c", "d", 0, 1, 0)]
    lines = format_head_to_head(entries).splitlines()
    assert lines[1].split() == ["bot", "opponent", "wins", "ties", "losses", "games"]
    assert lines[2].split() == ["a", "b", "0", "0", "1", "1"]
    assert len(lines) == 4
