"""A finished (or aborted) game as runners, storage and ratings see it: a plain frozen value,
with no trio and no server behind it."""

from __future__ import annotations

from pathlib import Path

import attrs


def timed_out_note(timeouts: int, decisions: int) -> str | None:
    """``timed out 77/77`` when most of a bot's decisions were played by default because its
    time ran out (a stuck or stopped bot, or one too slow for the limit); else None."""
    if timeouts and 2 * timeouts > decisions:
        return f"timed out {timeouts}/{decisions}"
    return None


@attrs.frozen
class PlannedTable:
    """Table ``index`` of an event's schedule (unique: storage and resume key on it): duplicate
    set ``set_index``, seating ``rotation`` within it, ``entrants[seat]`` at each seat, and the
    game's seed (shared by the whole set).  ``arena.events.schedule`` plans them; the key is
    defined here, below the seating (which seats them) and the events (which store them)."""

    index: int
    set_index: int
    rotation: int
    entrants: tuple[int, ...]
    seed: str


@attrs.frozen
class GameRecord:
    """One game.  ``number`` is the seating policy's game number; ``entrants[seat]`` is who sat
    there in the policy's own list (``None`` without one); ``tag`` is the planned table a
    tournament's schedule seated (None for the other policies)."""

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
    tag: PlannedTable | None = None
    #: Per seat: actions played by default because its time ran out, and its decisions (by
    #: its bot or by default): a seat whose decisions mostly timed out had a stuck bot.
    timeouts: tuple[int, ...] = ()
    decisions: tuple[int, ...] = ()

    @property
    def bots(self) -> tuple[int | None, ...]:
        """The roster index per seat (``arena match``): the entrants."""
        return self.entrants
