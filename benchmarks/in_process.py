"""One game played in process, without sockets: the pure driver's messages go to each seat's
policy (the client library's ``choose``/``on_message`` interface), its answers go back.  For
benchmarks that need many games fast (``duplicate_variance.py``, ``boss_strength.py
--in-process``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from arena.gameplay.driver import MatchDriver
from arena.games import get_game


def play_game(game: str, seed: str, policies: Sequence[Any], names: Sequence[str]) -> Any:
    """The finished game's result (scores, ranks) at a table of ``len(policies)`` seats, with
    the game's tournament options."""
    spec = get_game(game)
    players = len(policies)
    options = spec.parse_options({"players": players, **spec.tournament_options(players)})
    driver = MatchDriver(spec, options, seed, list(names), game_id="g", table=0,
                         move_timeout=1e9)
    out = driver.start(0.0)
    while out:
        after = []
        for message in out:
            if message.seat < 0 or message.line is None:
                continue
            decoded = json.loads(message.line)
            policy = policies[message.seat]
            if decoded["type"] == "request":
                after += driver.answer(message.seat, decoded["id"], policy.choose(decoded), 0.0)
            else:
                policy.on_message(decoded)
        out = after
    assert driver.result is not None, "the game did not finish"
    return driver.result
