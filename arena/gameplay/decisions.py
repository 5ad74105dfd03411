"""A game's decisions as the driver keeps them: the request open per seat, its deadline (the
decision's limit plus the seat's time bank), its tries, the default played when they run out
or the deadline passes, the errors and notes logged (at most :data:`MAX_LOGGED_ERRORS` per
seat), and the messages going out (:class:`Outgoing`, each encoded once).

:class:`SeatDecisions` is the part of :class:`~arena.gameplay.driver.MatchDriver` that does
this bookkeeping; the driver itself steps the game (``_advance``) and says what happened.  Pure
and sans-I/O like the driver.
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import Any, NamedTuple

import attrs

from arena.gameplay.gamelog import GameLog
from arena.games.base import GameState
from protocol.codec import encode, encode_request, to_json
from protocol.errors import ErrorCode, PeerError
from protocol.messages import Cancel, Error, Request
from protocol.requests import RequestCounter

#: The seat number of the public view: what a spectator is sent (``Outgoing.seat``).
PUBLIC = -1

#: Error lines logged per seat and game; past this only their number is logged (at the end),
#: so a bot that floods the server cannot flood its disk.
MAX_LOGGED_ERRORS = 100


class Outgoing(NamedTuple):
    """A message for a seat and ``line``, its bytes: every message is encoded once, here (an
    event or the end shared by every seat once for all; a request's observation once for the
    line and the log's digest).  None: it could not be encoded (a line over the protocol's
    limit: our bug; the edge skips it and says so).  A named tuple (immutable): several go
    out at every decision, and one is made without a Python call (:func:`made`)."""

    seat: int
    message: Any
    line: bytes | None = None


#: ``made(Outgoing, (seat, message, line))``: an :class:`Outgoing` at the cost of a tuple.
made = tuple.__new__


def line_of(message: Any) -> bytes | None:
    try:
        return encode(message)
    except ValueError:  # a line over the limit: our bug, reported by the edge
        return None


def outgoing(seat: int, message: Any) -> Outgoing:
    return Outgoing(seat, message, line_of(message))


@attrs.define
class OpenRequest:
    id: int
    legal: tuple[str, ...]
    issued_at: float
    deadline: float  # the limit plus the bank left when it was sent
    tries_left: int
    decision: str | None = None  # the observation's ``decision``, where the game has one
    limit: float = 0.0  # seconds of the decision's own limit (move or reaction)
    limit_name: str = "move_timeout"


def observation_digest(observation: Any) -> str:
    """What the log keeps of an observation sent: the SHA-256 of its JSON text (16 hex
    digits), which a replay recomputes."""
    return text_digest(to_json(observation))


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@attrs.define
class SeatStats:
    """Per seat: actions the server played for it (by reason), errors it made, and its
    decisions (actions played for the seat, by its bot or by default)."""

    defaults: dict[str, int] = attrs.field(factory=dict)
    errors: int = 0
    decisions: int = 0

    def count_default(self, reason: str) -> None:
        self.defaults[reason] = self.defaults.get(reason, 0) + 1
        self.decisions += 1


def to_ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


class SeatDecisions:
    """The requests, tries, timeouts, defaults and time banks of a game's seats.  The driver
    (a subclass) sets the attributes below and steps the game in :meth:`_advance`."""

    players: list[str]
    state: GameState
    log: GameLog
    counters: list[RequestCounter]
    open: dict[int, OpenRequest]
    stats: list[SeatStats]
    bank: list[float]
    time_bank: float
    move_timeout: float
    reaction_timeout: float
    max_tries: int
    finished: bool
    _default_rng: random.Random
    _errors_logged: list[int]

    def _advance(self, now: float, out: list[Outgoing]) -> None:
        """Send what happened, then bring the open requests in line with who must act (the
        driver's)."""
        raise NotImplementedError

    def bad_input(self, seat: int, error: PeerError, now: float,
                  newest_sent: int | None = None) -> list[Outgoing]:
        """A line from the seat that was not a usable message.  Costs a try if a request is
        open, and, when ``newest_sent`` (the newest request id sent to the seat when the line
        was read) is given, only if that request was already sent then: a bad line never
        burns a request the bot had not seen yet.  Otherwise it is only reported."""
        out: list[Outgoing] = []
        request = self.open.get(seat)
        if self.finished or (request is not None and newest_sent is not None
                             and request.id > newest_sent):
            self.stats[seat].errors += not self.finished
            out.append(outgoing(seat, Error(code=error.code.value, message=error.detail)))
        else:
            self._wrong(seat, error.code, error.detail, now, out)
        return out

    def expire(self, now: float) -> list[Outgoing]:
        """Play a default action for every request whose deadline has passed."""
        out: list[Outgoing] = []
        while not self.finished:
            due = [(r.deadline, seat) for seat, r in self.open.items() if r.deadline <= now]
            if not due:
                break
            self._play_default(min(due)[1], ErrorCode.TIMEOUT, now, out, timed_out=True)
            self._advance(now, out)  # one at a time: a default may change the others' choices
        return out

    def limit_for(self, seat: int) -> tuple[float, str]:
        """Seconds ``seat`` gets for its current decision, and that limit's name: the reaction
        time limit in a reaction window, else the move time limit (the bank comes on top)."""
        if self.state.is_reaction(seat):
            return self.reaction_timeout, "reaction_timeout"
        return self.move_timeout, "move_timeout"

    def next_deadline(self) -> float | None:
        requests = self.open
        if len(requests) == 1:  # most games, most of the time: one seat decides
            for request in requests.values():
                return request.deadline
        return min((r.deadline for r in requests.values()), default=None)

    def hold(self, seat: int, request_id: int) -> None:
        """The edge holds request ``request_id`` back (fair time: no core is free for a hosted
        bot): its clock stands still, with no deadline, until :meth:`sent`."""
        request = self.open.get(seat)
        if request is not None and request.id == request_id:
            request.deadline = math.inf

    def sent(self, seat: int, request_id: int, now: float) -> None:
        """The request held back went out at ``now``: its clock starts then (its limit and
        the seat's bank from ``now``)."""
        request = self.open.get(seat)
        if request is not None and request.id == request_id:
            request.issued_at = now
            request.deadline = now + request.limit + self.bank[seat]

    def is_open(self, seat: int, request_id: int) -> bool:
        """Whether request ``request_id`` of ``seat`` still waits for its answer."""
        request = self.open.get(seat)
        return request is not None and request.id == request_id

    def _note_unlogged_errors(self) -> None:
        for seat, count in enumerate(self._errors_logged):
            if count > MAX_LOGGED_ERRORS:
                self.log.note(seat, f"{count - MAX_LOGGED_ERRORS} more errors, not logged")

    def _note(self, seat: int, what: str) -> None:
        """A note, counted with the seat's errors: a bot that drops and comes back in a loop
        cannot flood the log either."""
        self._errors_logged[seat] += 1
        if self._errors_logged[seat] <= MAX_LOGGED_ERRORS:
            self.log.note(seat, what)

    def _log_error(self, seat: int, code: ErrorCode, request_id: int | None,
                   detail: str) -> None:
        self._errors_logged[seat] += 1
        if self._errors_logged[seat] <= MAX_LOGGED_ERRORS:
            self.log.error(seat, code, request_id, detail)

    def _wrong(self, seat: int, code: ErrorCode, detail: str, now: float, out: list[Outgoing],
               *, legal: bool = False) -> None:
        self.stats[seat].errors += 1
        request = self.open.get(seat)
        self._log_error(seat, code, request.id if request else None, detail)
        if request is None:
            out.append(outgoing(seat, Error(code=code.value, message=detail)))
            return
        request.tries_left -= 1
        out.append(outgoing(seat, Error(
            code=code.value, message=detail, id=request.id,
            legal=list(request.legal) if legal else None, tries_left=request.tries_left,
            time_left_ms=to_ms(request.deadline - now))))
        if request.tries_left <= 0:
            self._play_default(seat, ErrorCode.TOO_MANY_TRIES, now, out)
            self._advance(now, out)

    def _play_default(self, seat: int, reason: ErrorCode, now: float, out: list[Outgoing], *,
                      timed_out: bool = False) -> None:
        request = self.open.pop(seat)
        limit = None
        if timed_out:
            limit = "time_bank" if self.bank[seat] > 0 else request.limit_name
        self._charge(seat, request, now)
        action = self._apply_default(seat, request, reason.value, now, limit=limit)
        out.append(outgoing(seat, Cancel(id=request.id, reason=reason.value, played=action,
                                         limit=limit)))

    def _charge(self, seat: int, request: OpenRequest, now: float) -> None:
        """Take the time used beyond the decision's limit from the seat's bank."""
        if self.time_bank:
            over = now - request.issued_at - request.limit
            if over > 0:
                self.bank[seat] = max(0.0, self.bank[seat] - over)

    def _bank_ms(self, seat: int) -> int | None:
        return to_ms(self.bank[seat]) if self.time_bank else None

    def _apply_default(self, seat: int, request: OpenRequest | None, reason: str,
                       now: float, *, limit: str | None = None) -> str:
        legal = request.legal if request else tuple(self.state.legal_actions(seat))
        action = self.state.default_action(seat)
        if action is None:
            action = self._default_rng.choice(legal)
        self.stats[seat].count_default(reason)
        elapsed = to_ms(now - request.issued_at) if request else 0
        decision = (request.decision if request
                    else getattr(self.state.observe(seat), "decision", None))
        self.log.action(seat, action, request.id if request else None, elapsed,
                        by="default", reason=reason, decision=decision, limit=limit,
                        bank_ms=self._bank_ms(seat) if request else None)
        self.state.apply(seat, action)
        return action

    def _issue(self, seat: int, now: float, out: list[Outgoing]) -> None:
        request_id = self.counters[seat].next_id()
        state = self.state
        legal_list = list(state.legal_actions(seat))  # the request's own (the game's may be shared)
        legal = tuple(legal_list)
        if state.is_reaction(seat):  # limit_for, inline: at every decision
            timeout, limit_name = self.reaction_timeout, "reaction_timeout"
        else:
            timeout, limit_name = self.move_timeout, "move_timeout"
        bank = self.bank[seat]
        observation = state.observe(seat)
        self.open[seat] = OpenRequest(
            request_id, legal, now, now + timeout + bank, self.max_tries,
            getattr(observation, "decision", None), timeout, limit_name)
        observation_json = to_json(observation)  # once: for the digest and the line
        legal_json = to_json(legal_list)  # once: for the log and the line
        self.log.request(seat, request_id, legal, text_digest(observation_json), legal_json)
        time_left_ms = round((timeout + bank) * 1000)  # to_ms, inline (never below 0 here)
        time_bank_ms = to_ms(bank) if self.time_bank else None
        request = Request(request_id, legal_list, time_left_ms, observation, time_bank_ms)
        line = (encode_request(request_id, legal_json, time_left_ms, observation_json,
                               time_bank_ms) if observation is not None
                else encode(request))
        out.append(made(Outgoing, (seat, request, line)))
