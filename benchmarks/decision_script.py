"""What arena sent to one table's bots, step by step: the script the fan-out echo replays.

A script is recorded by ``decision_record.py`` from a real ``arena serve`` and read by
``echo_servers.py``; it is a JSON file (the lines are UTF-8 JSON text, kept as strings):

    {"welcome": "<the welcome line>", "players": 3,
     "games": [[{"seat": null, "out": ["<lines for seat 0>", "<seat 1>", "<seat 2>"]},
                {"seat": 0, "out": [...]}, ...], ...]}

Each game is a list of steps.  The first step (``seat`` null) is what the start of the game
sent; every other step is what one answer sent, ``seat`` being the seat whose answer it was.
``out`` holds, per seat, the lines that seat received in that step, newlines included, joined
(an empty string: nothing).  The steps a seat triggers are in the order of its answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

REQUEST_PREFIX = b'{"type":"request"'


@dataclass(frozen=True)
class Step:
    """What one answer (or the game's start: ``seat`` None) made the server send."""

    seat: int | None
    out: tuple[bytes, ...]  # per seat: its lines of this step, joined


@dataclass(frozen=True)
class Script:
    welcome: bytes
    players: int
    games: tuple[tuple[Step, ...], ...]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({
            "welcome": self.welcome.decode(),
            "players": self.players,
            "games": [[{"seat": step.seat, "out": [part.decode() for part in step.out]}
                       for step in game] for game in self.games],
        }))

    @classmethod
    def load(cls, path: Path) -> Script:
        data = json.loads(path.read_text())
        return cls(
            welcome=data["welcome"].encode(), players=data["players"],
            games=tuple(tuple(Step(step["seat"], tuple(part.encode() for part in step["out"]))
                              for step in game) for game in data["games"]))

    def requests(self) -> list[bytes]:
        """Every request line of the script, in order (the plain echo's replies)."""
        return [line + b"\n" for game in self.games for step in game for part in step.out
                for line in part.split(b"\n") if line.startswith(REQUEST_PREFIX)]

    def pattern(self) -> dict[str, float]:
        """Per decision (answer): lines, bytes and non-empty per-seat writes sent to the bots,
        and games' lengths in decisions."""
        decisions = sum(1 for game in self.games for step in game if step.seat is not None)
        parts = [part for game in self.games for step in game for part in step.out]
        return {
            "games": len(self.games),
            "decisions": decisions,
            "lines_per_decision": sum(part.count(b"\n") for part in parts) / decisions,
            "bytes_per_decision": sum(len(part) for part in parts) / decisions,
            "writes_per_decision": sum(1 for part in parts if part) / decisions,
            "requests": len(self.requests()),
        }
