"""One frozen class per protocol message.  SPEC.md lists each with an example line.

On the wire every message is a JSON object with a ``"type"`` field (the class's ``TYPE``) and
the class's fields; a field whose value is null may be left out.  Observations, options, info,
event data and reveals are JSON values whose shape each game defines (SPEC.md per game).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

#: The range of request ids an ``action`` may carry (SPEC.md "Limits"); any id in it is a
#: well-formed answer (one never sent is ``wrong_request_id``), beyond it the line is malformed.
MAX_REQUEST_ID = 2**53 - 1


def _request_id(_instance: object, attribute: attrs.Attribute, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"field {attribute.name!r} must be an integer")
    if not -MAX_REQUEST_ID <= value <= MAX_REQUEST_ID:
        raise ValueError(f"field {attribute.name!r} is out of range (at most 2**53 - 1)")


def _text(_instance: object, attribute: attrs.Attribute, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"field {attribute.name!r} must be a string")


def _optional_text(instance: object, attribute: attrs.Attribute, value: object) -> None:
    if value is not None:
        _text(instance, attribute, value)


def _optional_id(instance: object, attribute: attrs.Attribute, value: object) -> None:
    """An optional integer in the range of request ids (never a huge number to quote back)."""
    if value is not None:
        _request_id(instance, attribute, value)



# --- bot -> server -------------------------------------------------------------------------------


@attrs.frozen
class Hello:
    """The bot's answer to ``welcome``: its name, and its token when it has one.  ``role``
    ``spectator`` asks to watch tables instead of playing (see :class:`Watch`); ``events``
    says when it wants its events."""

    TYPE: ClassVar[str] = "hello"
    name: str = attrs.field(validator=_text)
    token: str | None = attrs.field(default=None, validator=_optional_text)
    protocol: int | None = attrs.field(default=None, validator=_optional_id)
    game: str | None = attrs.field(default=None, validator=_optional_text)
    role: str | None = attrs.field(default=None, validator=_optional_text)
    #: ``live`` (the default): every event as it happens; ``with_requests``: a seat's events
    #: wait for its next request (or any other message), so the bot wakes once per decision.
    events: str | None = attrs.field(default=None, validator=_optional_text)


@attrs.frozen
class Action:
    """The answer to request ``id``: one token from its legal list."""

    TYPE: ClassVar[str] = "action"
    id: int = attrs.field(validator=_request_id)
    action: str = attrs.field(validator=_text)


@attrs.frozen
class Watch:
    """A spectator: watch ``table`` (its public view, live; the full view once it ends), or,
    without one, ask which tables are running (the answer is :class:`Tables`)."""

    TYPE: ClassVar[str] = "watch"
    table: int | None = attrs.field(default=None, validator=_optional_id)


@attrs.frozen
class Bye:
    """Either side: the connection is ending (``reason`` is an error code or free text).
    ``retry_ms``: the server is coming back (``server_restart``): try to connect again after
    this many milliseconds, and keep trying."""

    TYPE: ClassVar[str] = "bye"
    reason: str | None = attrs.field(default=None, validator=_optional_text)
    message: str | None = attrs.field(default=None, validator=_optional_text)
    retry_ms: int | None = attrs.field(default=None, validator=_optional_id)


# --- server -> bot -------------------------------------------------------------------------------


@attrs.frozen
class Welcome:
    """``players`` is the number of seats at every table of this server.  A server that hosts
    several games (an addition to protocol 1, issue 31) lists them in ``games`` instead, and
    sends neither ``game`` nor ``players`` (each game has its own; ``game_start`` says them):
    its bots name their game in ``hello``."""

    TYPE: ClassVar[str] = "welcome"
    protocol: int
    server: str
    game: str | None = attrs.field(default=None, kw_only=True)
    players: int | None = attrs.field(default=None, kw_only=True)
    limits: dict[str, Any] = attrs.field(kw_only=True)
    games: list[str] | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class GameStart:
    """``names`` are the players' names by seat (their count is ``options.players``).  After a
    reconnection the game is sent again with ``resumed`` true and the seat's ``observation``
    now; a spectator's has ``seat`` null and the public ``observation``."""

    TYPE: ClassVar[str] = "game_start"
    game_id: str
    table: int
    game: str
    seat: int | None
    names: list[str]
    options: dict[str, Any]
    info: dict[str, Any]
    resumed: bool | None = None
    observation: Any = None


@attrs.frozen
class Request:
    """A decision for the seat.  ``observation`` is the game's observation value;
    ``time_left_ms`` counts the seat's time bank in, ``time_bank_ms`` is the bank alone (when
    the server gives one)."""

    TYPE: ClassVar[str] = "request"
    id: int
    legal: list[str]
    time_left_ms: int
    observation: Any
    time_bank_ms: int | None = None


@attrs.frozen
class Cancel:
    """Request ``id`` can no longer be answered.  ``played`` is the action the server played for
    the seat, if it played one; after a ``timeout``, ``limit`` names the limit that ran out
    (``move_timeout``, ``reaction_timeout`` or ``time_bank``)."""

    TYPE: ClassVar[str] = "cancel"
    id: int
    reason: str
    played: str | None = None
    limit: str | None = None


@attrs.frozen
class Event:
    """Something happened.  ``to`` is set only in a spectator's full view after the game: the
    seats that saw a private event."""

    TYPE: ClassVar[str] = "event"
    kind: str
    data: Any
    to: list[int] | None = None


@attrs.frozen
class Tables:
    """The answer to a spectator's ``watch`` without a table: the tables running now."""

    TYPE: ClassVar[str] = "tables"
    tables: list[dict[str, Any]]
    more: bool | None = None  # more tables run than one answer lists


@attrs.frozen
class GameEnd:
    TYPE: ClassVar[str] = "game_end"
    game_id: str
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    reveal: dict[str, Any]
    aborted: str | None = None


@attrs.frozen
class Error:
    """Something the bot sent was wrong.  ``id`` and ``legal`` refer to the request concerned;
    ``tries_left`` is how many more answers it may send before the server plays for it."""

    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    fatal: bool = False
    id: int | None = None
    legal: list[str] | None = None
    tries_left: int | None = None
    time_left_ms: int | None = None


@attrs.frozen
class Info:
    """Something the bot may want to know; it needs no answer.  ``reason`` is a code of
    SPEC.md §4 (``renamed``: the bot plays under ``name``, not the name it said)."""

    TYPE: ClassVar[str] = "info"
    reason: str
    message: str
    name: str | None = None


CLIENT_MESSAGES: dict[str, type] = {cls.TYPE: cls for cls in (Hello, Action, Watch, Bye)}
SERVER_MESSAGES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (Welcome, GameStart, Request, Cancel, Event, GameEnd, Error, Tables, Info, Bye)
}

ClientMessage = Hello | Action | Watch | Bye
ServerMessage = (Welcome | GameStart | Request | Cancel | Event | GameEnd | Error | Tables | Info
                 | Bye)
