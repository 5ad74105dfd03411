"""``arena replay``: re-simulate a game from its log alone and check that it reproduces.

The game is rebuilt from the header's game, options and seed; every logged action is applied in
order; every event the game produces must equal the logged one (kind, data and audience); every
request as sent must offer exactly the legal list the game gives at that point, with the digest
of the observation the seat would see there (the audit trail); and the final result must equal
the logged result.  What the log claims beyond the game (names, who chose each action, how
long it took) is checked as far as the log binds it (``arena.gameplay.log_claims``).  Any difference
is
a :class:`ReplayError` naming the log line where it shows.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from os import PathLike
from typing import Any

from arena.gameplay.driver import observation_digest
from arena.gameplay.gamelog import LOG_FORMAT, READABLE_FORMATS, read_log
from arena.gameplay.log_claims import ClaimError, Claims
from arena.games import IllegalAction, OptionsError, get_game
from protocol.codec import to_json


class ReplayError(Exception):
    pass


def _plain(value: Any) -> Any:
    """A value as it reads back from JSON (tuples become lists, and so on)."""
    return json.loads(to_json(value))


def _describe(record: dict[str, Any], players: list[str]) -> str:
    if record["type"] == "event":
        fields = " ".join(f"{key}={value}" for key, value in record["data"].items())
        audience = "" if record["to"] is None else f"   [seen by seat {record['to']}]"
        return f"  {record['kind']:<12} {fields}{audience}"
    if record["type"] == "action":
        who = f"seat {record['seat']} ({players[record['seat']]})"
        how = "" if record["by"] == "bot" else f"   [played by the server: {record['reason']}]"
        return f"{who}: {record['action']}  ({record['ms']} ms){how}"
    if record["type"] == "request":
        return (f"seat {record['seat']} ({players[record['seat']]}) asked, request "
                f"{record['id']}: {len(record['legal'])} choice(s)")
    if record["type"] == "error":
        return f"seat {record['seat']}: error {record['code']}: {record['detail']}"
    if record["type"] == "note":
        return f"seat {record['seat']}: {record['what']}"
    return f"{record['type']}: " + " ".join(
        f"{k}={v}" for k, v in record.items() if k != "type")


def replay_log(path: str | PathLike[str], *, show: Callable[[str], Any] | None = None,
               seat: int | None = None) -> str:
    """Replay the log at ``path``; returns a one-line summary, raises ReplayError."""
    try:
        records = read_log(path)
        header = records[0]
        spec = get_game(header["game"])
        options = spec.parse_options(header["options"])
        state = spec.new_state(options, header["seed"], record_events=True)
        if header.get("format") not in READABLE_FORMATS:
            raise ValueError(f"log format {header.get('format')!r}; this arena reads "
                             f"{', '.join(map(str, READABLE_FORMATS))}")
    except (ValueError, KeyError, OptionsError) as exc:
        raise ReplayError(f"cannot start the game from the header: {exc}") from None
    audited = header.get("format") == LOG_FORMAT
    claims = Claims(header, options.players, records) if audited else None
    if claims is not None:
        try:
            claims.check_header()
        except ClaimError as exc:
            raise ReplayError(f"line 1: {exc}") from None
    players = header["names"]
    if show:
        show(f"{spec.title}: game {header['game_id']}, seed {header['seed']!r}, "
             f"options {header['options']}")
        show("seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(players)))
    produced = deque(state.take_events())
    try:
        ending = _replay_records(records, state, players, produced, claims, show, seat)
    except (KeyError, TypeError) as exc:
        raise ReplayError(f"a log line lacks a field or has a wrong one: {exc!r}") from None
    if produced:
        raise ReplayError(f"the game produced {produced[0].kind!r} after the log ends")
    if ending is None:
        raise ReplayError("the log ends without a result")
    return ending


def _replay_records(records: list[dict[str, Any]], state: Any, players: list[str],
                    produced: deque[Any], claims: Claims | None,
                    show: Callable[[str], Any] | None, seat: int | None) -> str | None:
    """Apply and check every record after the header; the ending it reached, if any.
    With ``claims`` (format 3), every answered request must be logged as sent and open, and
    the log's claims are checked."""
    audited = claims is not None
    ending = None
    offered: dict[int, int] = {}  # seat -> id of the request logged as open for it
    for number, record in enumerate(records[1:], start=2):
        kind = record.get("type")
        if kind == "event":
            if not produced:
                raise ReplayError(f"line {number}: the log has event {record.get('kind')!r} "
                                  "that the game did not produce")
            event = produced.popleft()
            audience = None if event.audience is None else sorted(event.audience)
            mine = {"kind": event.kind, "data": _plain(event.data), "to": audience}
            theirs = {key: record.get(key) for key in ("kind", "data", "to")}
            if mine != theirs:
                raise ReplayError(f"line {number}: the game produced {mine}, the log has {theirs}")
        elif kind == "request":
            _check_request(state, record, number)
            offered[record["seat"]] = record["id"]
        elif kind == "action":
            if audited and record["id"] is not None and (
                    offered.pop(record["seat"], None) != record["id"]):
                raise ReplayError(f"line {number}: seat {record['seat']} answered request "
                                  f"{record['id']}, which the log does not show as sent "
                                  "and open")
            if produced:
                raise ReplayError(f"line {number}: the game produced {produced[0].kind!r} "
                                  "which the log does not have")
            if claims is not None:
                try:
                    claims.check_action(record, state)
                except ClaimError as exc:
                    raise ReplayError(f"line {number}: {exc}") from None
            try:
                state.apply(record["seat"], record["action"])
            except IllegalAction as exc:
                raise ReplayError(f"line {number}: {record['action']!r} for seat "
                                  f"{record['seat']} is illegal here: {exc}") from None
            produced.extend(state.take_events())
        elif kind == "result":
            result = state.result()
            if result is None:
                raise ReplayError(f"line {number}: the log has a result, but the game is not over")
            mine = {"scores": _plain(result.scores), "ranks": _plain(result.ranks),
                    "winners": _plain(result.winners), "reveal": _plain(result.reveal),
                    "rounds": result.rounds}
            theirs = {key: record.get(key) for key in mine}
            if mine != theirs:
                raise ReplayError(f"line {number}: the result is {mine}, the log has {theirs}")
            ending = f"scores {list(result.scores)}, winners {list(result.winners)}"
        elif kind in ("error", "note") and claims is not None:
            claims.seen(record)
        elif kind == "aborted":
            ending = f"aborted ({record.get('reason')}) after a consistent prefix"
        if show and _shown(record, seat):
            show(_describe(record, players))
    return ending


def _check_request(state: Any, record: dict[str, Any], number: int) -> None:
    seat = record.get("seat")
    if not isinstance(seat, int) or seat not in state.to_act():
        raise ReplayError(f"line {number}: a request to seat {seat}, who is not to act here")
    legal = list(state.legal_actions(seat))
    if record.get("legal") != legal:
        raise ReplayError(f"line {number}: seat {seat} was offered {record.get('legal')}, "
                          f"the legal list here is {legal}")
    digest = observation_digest(state.observe(seat))
    if record.get("observation") != digest:
        raise ReplayError(f"line {number}: seat {seat} was sent an observation with digest "
                          f"{record.get('observation')}, the game gives {digest} here")


def _shown(record: dict[str, Any], seat: int | None) -> bool:
    if seat is None:
        return True
    if record["type"] == "event":
        return record["to"] is None or seat in record["to"]
    if record["type"] in ("action", "error", "note", "request"):
        return record["seat"] == seat
    return True
