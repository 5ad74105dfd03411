"""A finished (or aborted) game as runners, storage and ratings see it: a plain frozen value,
with no trio and no server behind it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
    tournament's schedule seated (None for the other policies): :attr:`planned`,
    :attr:`set_index` and :attr:`rotation` read it.  An event's storage keeps the games it
    seated and gives them back as records (``arena.events.storage`` says what it rebuilds)."""

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

    @property
    def table(self) -> PlannedTable:
        """The planned table of a game an event's schedule seated (its ``tag``); a ValueError
        for a game no schedule planned."""
        if self.tag is None:
            raise ValueError(f"game {self.game_id} was not planned by a schedule")
        return self.tag

    @property
    def planned(self) -> int:
        """The game's place in its event's schedule (the key it is stored under)."""
        return self.table.index

    @property
    def set_index(self) -> int:
        return self.table.set_index

    @property
    def rotation(self) -> int:
        return self.table.rotation

    def to_fields(self) -> dict[str, Any]:
        """The record as plain fields for JSON (the log's path as text)."""
        fields = attrs.asdict(self)
        fields["log_path"] = str(self.log_path) if self.log_path is not None else None
        return fields

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> GameRecord:
        """The record :meth:`to_fields` gave (after a trip through JSON)."""
        values: dict[str, Any] = {name: tuple(value) if isinstance(value, list) else value
                                  for name, value in fields.items()}
        if values["log_path"] is not None:
            values["log_path"] = Path(values["log_path"])
        if values["tag"] is not None:
            tag = values["tag"]
            values["tag"] = PlannedTable(**{**tag, "entrants": tuple(tag["entrants"])})
        return cls(**values)
