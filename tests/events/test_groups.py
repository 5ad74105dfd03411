"""Connected groups: bots that met, directly or through others."""

from __future__ import annotations

from arena.events.groups import connected_groups, group_heading


def test_two_trios_that_never_met_are_two_groups():
    assert connected_groups(6, [(0, 1, 2), (4, 3, 5), (2, 0, 1)]) == [[0, 1, 2], [3, 4, 5]]


def test_meeting_through_others_joins_groups_and_a_bot_that_never_played_is_alone():
    tables = [(0, 1), (2, 3), (1, 2), (5, 6)]
    assert connected_groups(7, tables) == [[0, 1, 2, 3], [5, 6], [4]]


def test_headings_say_why_the_ratings_are_not_comparable():
    assert group_heading(1, 2, 3, played=True) == (
        "group 1 of 2: these bots never met the others; their ratings are not comparable")
    assert group_heading(3, 3, 1, played=False) == "group 3 of 3: this bot has not played yet"
