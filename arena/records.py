"""A finished (or aborted) game as runners, storage and ratings see it: a plain frozen value,
with no trio and no server behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs


@attrs.frozen
class GameRecord:
    """One game.  ``number`` is the seating policy's game number; ``entrants[seat]`` is who sat
    there in the policy's own list (``None`` without one); ``tag`` is the policy's note on the
    table (a tournament's planned table)."""

    number: int
    game_id: str
    entrants: tuple[int | None, ...]
    names: tuple[str, ...]
    seed: str
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    aborted: str | None
    defaults: tuple[int, ...]
    errors: tuple[int, ...]
    rounds: int | None
    log_path: Path | None
    seconds: float
    tag: Any = None

    @property
    def bots(self) -> tuple[int | None, ...]:
        """The roster index per seat (``arena match``): the entrants."""
        return self.entrants
