"""A finished game's log as the steps of one view, for the replay page.

- ``public``: what a spectator is sent: the game (names, options, the game's public ``info``),
  every public event, and the scores at the end (without the ``reveal``);
- ``seat<N>``: exactly what seat N was sent: the public and its own private events, each
  request to it with its legal list and its observation (rebuilt by replaying the game, and
  checked against the digest the log keeps of what was sent), its own actions, errors and
  notes, and the result;
- ``full``: every line of the log, every seat's observation at each request.

A view holds nothing its audience was not sent: the page of a view is built from its steps
alone (the tests compare every public step with the log's public events).  The seed is in no
view: it tells the deal of the other tables of the game's duplicate set.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from arena.gameplay.driver import observation_digest
from arena.gameplay.gamelog import read_log
from arena.games import IllegalAction, OptionsError, get_game
from arena.web.boards import Drawing
from protocol.codec import to_json

PUBLIC = "public"
FULL = "full"
#: Replays kept built (game, view).
REPLAYS_KEPT = 64


class FramesError(Exception):
    """The log cannot be shown (not a log, an unknown game)."""


def views(players: int) -> list[str]:
    return [PUBLIC] + [f"seat{seat}" for seat in range(players)] + [FULL]


def seat_of(view: str) -> int | None:
    """The seat of a ``seat<N>`` view (None for public and full)."""
    if view.startswith("seat") and view[4:].isdigit():
        return int(view[4:])
    return None


def _plain(value: Any) -> Any:
    return json.loads(to_json(value))


def frames(records: Sequence[dict[str, Any]], view: str) -> dict[str, Any]:
    """``{"header": ..., "views": [...], "steps": [...]}`` of ``view`` (see the module)."""
    if not records or records[0].get("type") != "header":
        raise FramesError("not a game log (no header line)")
    header = records[0]
    try:
        spec = get_game(header["game"])
        options = spec.parse_options(header["options"])
        state: Any = spec.new_state(options, header["seed"])
    except (KeyError, ValueError, OptionsError) as exc:
        raise FramesError(f"cannot start the game from the header: {exc}") from None
    players = options.players
    if view not in views(players):
        raise FramesError(f"no view {view!r}; the views: {', '.join(views(players))}")
    seat = seat_of(view)
    info = _plain(spec.info(options))
    drawing = Drawing(header["game"], list(header.get("names", [])), info)
    steps: list[dict[str, Any]] = []
    for line, record in enumerate(records[1:], start=2):
        step = _step(record, view, seat, state)
        if step is not None:
            if "observation" in step:  # the cards it observed, drawn as the board draws them
                step["cards"] = drawing.board.observed(step["observation"])
            steps.append({**step, **drawing.step(step), "line": line})  # the log's line: the
            # same moment in any view
        if record.get("type") == "action" and state is not None:
            try:
                state.apply(record["seat"], record["action"])
            except (IllegalAction, KeyError, TypeError):
                state = None  # the log goes its own way: no observations from here on
    return {"header": {"game": header["game"], "game_id": header.get("game_id"),
                       "names": list(header.get("names", [])),
                       "options": header.get("options"),
                       "info": info},
            "view": view, "views": views(players), "steps": steps}


@functools.lru_cache(maxsize=REPLAYS_KEPT)
def replay_frames(path: str, mtime: float, view: str) -> dict[str, Any]:
    """:func:`frames` of the log at ``path`` (blocking), kept for the last few (game, view)
    asked (``mtime``: the log's, so a log written again is read again)."""
    return frames(read_log(path), view)


def _step(record: dict[str, Any], view: str, seat: int | None,
          state: Any) -> dict[str, Any] | None:
    kind = record.get("type")
    if kind == "event":
        to = record.get("to")
        if view == FULL:
            return {"type": "event", "kind": record["kind"], "data": record["data"], "to": to}
        if to is None or (seat is not None and seat in to):
            return {"type": "event", "kind": record["kind"], "data": record["data"]}
        return None
    if kind == "result":
        shown = {key: record.get(key) for key in ("scores", "ranks", "winners", "rounds")}
        if view != PUBLIC:
            shown["reveal"] = record.get("reveal")
        return {"type": "result", **shown}
    if kind == "aborted":
        return {"type": "aborted", "reason": record.get("reason")}
    if view == PUBLIC or kind not in ("request", "action", "error", "note"):
        return None
    if view != FULL and record.get("seat") != seat:
        return None
    if kind == "request":
        step = {"type": "request", "seat": record["seat"], "id": record.get("id"),
                "legal": record.get("legal")}
        if state is not None:
            observation = state.observe(record["seat"])
            step["observation"] = _plain(observation)
            step["checked"] = observation_digest(observation) == record.get("observation")
        return step
    return {key: value for key, value in record.items()}
