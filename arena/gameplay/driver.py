"""Drive one game between seats: requests, answers, tries, timeouts, default actions, the log.

Pure and sans-I/O like the protocol: no sockets, no clock.  The edge calls ``start``,
``answer``, ``bad_input``, ``expire``, ``disconnect`` and ``abort`` with the current time in
seconds (any monotonic clock), and each returns the :class:`Outgoing` messages to send.  It
asks the edge to call ``expire`` at :meth:`MatchDriver.next_deadline`.

What happens at the edges:
- every seat the game says must act gets one request (at most one open per seat); a request
  whose seat no longer acts, or whose legal list changed, is cancelled (``superseded``);
- a request gets ``move_timeout`` seconds, or ``reaction_timeout`` when the game says the
  seat's decision is a reaction window (``GameState.is_reaction``), plus what is left of the
  seat's ``time_bank`` for the game: time used beyond the limit is taken from the bank, and a
  timeout names the limit that ran out;
- every request is logged as sent (legal list and a digest of the observation), so the log
  alone shows that every offered list was right (``arena replay`` checks it);
- a seat whose bot comes back (a reconnection, with its token) is sent the game again with its
  observation now and its open request (:meth:`MatchDriver.resync`);
- a wrong answer (malformed line, wrong id, illegal action, ...) costs one of ``max_tries``
  tries; after the last one, or at the deadline, the driver plays a default action (the game's
  ``default_action`` for that seat, or where it names none a uniform draw from the legal list
  with the ``default`` random stream), cancels the request saying what it played, and logs it;
- an answer to an earlier, closed request is ignored with a ``stale_request`` notice;
- a disconnected seat is played by the default policy to the end of the game; when every seat
  is gone the game ends unfinished (``all_seats_gone``) instead of being played out by
  defaults.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

import attrs

from arena.gameplay.gamelog import GameLog
from arena.games.base import GameSpec, GameState
from arena.games.chance import derive_seed
from protocol.codec import encode, encode_event, encode_request, to_json
from protocol.errors import ErrorCode, PeerError, quote
from protocol.limits import MAX_TRIES
from protocol.messages import Cancel, Error, Event, GameEnd, GameStart, Request
from protocol.requests import RequestCounter, notice_for_closed

#: The seat number of the public view: what a spectator is sent (``Outgoing.seat``).
PUBLIC = -1

#: Error lines logged per seat and game; past this only their number is logged (at the end),
#: so a bot that floods the server cannot flood its disk.
MAX_LOGGED_ERRORS = 100


@attrs.frozen
class Outgoing:
    """A message for a seat and ``line``, its bytes: every message is encoded once, here (an
    event or the end shared by every seat once for all; a request's observation once for the
    line and the log's digest).  None: it could not be encoded (a line over the protocol's
    limit: our bug; the edge skips it and says so)."""

    seat: int
    message: Any
    line: bytes | None = None


def _line(message: Any) -> bytes | None:
    try:
        return encode(message)
    except ValueError:  # a line over the limit: our bug, reported by the edge
        return None


def _out(seat: int, message: Any) -> Outgoing:
    return Outgoing(seat, message, _line(message))


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


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


class MatchDriver:
    def __init__(
        self,
        spec: GameSpec,
        options: Any,
        seed: str,
        players: Sequence[str],
        *,
        game_id: str,
        table: int,
        move_timeout: float,
        reaction_timeout: float | None = None,
        counters: Sequence[RequestCounter] | None = None,
        max_tries: int = MAX_TRIES,
        started_at: str = "",
        state: GameState | None = None,
        time_bank: float = 0.0,
    ) -> None:
        """``reaction_timeout``: the time limit of a reaction-window decision (``None``: the
        same as ``move_timeout``); ``counters``: each seat's connection's request counter
        (fresh ones by default); ``state``: a game already set up from (options, seed), e.g.
        with a chosen deal for a test; by default a new one; ``time_bank``: seconds each seat
        may use beyond its decisions' limits over the whole game."""
        if not spec.min_players <= len(players) <= spec.max_players:
            raise ValueError(f"{spec.name} is for {spec.min_players}-{spec.max_players} players")
        self.spec = spec
        self.options = options
        self.seed = seed
        self.players = list(players)
        self._seats = range(len(self.players))
        self.game_id = game_id
        self.table = table
        self.move_timeout = move_timeout
        self.reaction_timeout = reaction_timeout if reaction_timeout is not None else move_timeout
        self.max_tries = max_tries
        self.time_bank = time_bank
        self.bank = [time_bank] * len(players)  # seconds left in each seat's time bank
        self.counters = list(counters) if counters is not None else [
            RequestCounter() for _ in players]
        self.state: GameState = (state if state is not None
                                 else spec.new_state(options, seed, record_events=True))
        self._default_rng = random.Random(derive_seed(seed, "default"))
        self.open: dict[int, OpenRequest] = {}
        self.connected = [True] * len(players)
        self.stats = [SeatStats() for _ in players]
        self._errors_logged = [0] * len(players)
        self.finished = False
        self.aborted: str | None = None
        #: Someone watches: public events and the end also go to :data:`PUBLIC`.
        self.watched = False
        self.log = GameLog.begin(
            game=spec.name, game_id=game_id, table=table, seed=seed, names=self.players,
            options=spec.options_to_dict(options), move_timeout_ms=_ms(move_timeout),
            reaction_timeout_ms=_ms(self.reaction_timeout), time_bank_ms=_ms(time_bank),
            started_at=started_at,
        )

    # -- inputs from the edge --

    def start(self, now: float) -> list[Outgoing]:
        if self.finished:  # every seat was gone before the game could start
            return []
        out = [_out(seat, self.game_start(seat)) for seat in range(len(self.players))]
        self._advance(now, out)
        return out

    def game_start(self, seat: int | None, *, resumed: bool = False) -> GameStart:
        """The game as ``seat`` is told it (``None``: a spectator); ``resumed`` adds the seat's
        observation now."""
        observation = self.state.observe(seat) if resumed and seat is not None else None
        return GameStart(game_id=self.game_id, table=self.table, game=self.spec.name, seat=seat,
                         names=self.players, options=self.spec.options_to_dict(self.options),
                         info=dict(self.spec.info(self.options)), resumed=resumed or None,
                         observation=observation)

    def resync(self, seat: int, now: float) -> list[Outgoing]:
        """The seat's bot is back (a new connection): the game again, with the seat's
        observation now, and its open request with the time left."""
        if self.finished:
            return []
        self._note(seat, "reconnected")
        out = [_out(seat, self.game_start(seat, resumed=True))]
        request = self.open.get(seat)
        if request is not None:
            out.append(_out(seat, Request(
                id=request.id, legal=list(request.legal),
                time_left_ms=_ms(request.deadline - now), observation=self.state.observe(seat),
                time_bank_ms=_ms(self.bank[seat]) if self.time_bank else None)))
        return out

    def public_view(self) -> list[Any]:
        """What a spectator who starts watching now is sent: the game, then every public
        event so far."""
        return [self.game_start(None)] + [
            Event(kind=r["kind"], data=r["data"]) for r in self.log.records
            if r["type"] == "event" and r["to"] is None]

    def full_view(self) -> list[Any]:
        """After the game, what a spectator did not see: every private event, with the seats
        that saw it."""
        if not self.finished:
            return []
        return [Event(kind=r["kind"], data=r["data"], to=r["to"]) for r in self.log.records
                if r["type"] == "event" and r["to"] is not None]

    def connection_lost(self, seat: int) -> None:
        """The seat's connection ended, and its bot may come back: the game goes on (its
        requests time out as usual) until it does, or :meth:`disconnect` says it will not."""
        if not self.finished:
            self._note(seat, "connection lost")

    def answer(self, seat: int, request_id: int, action: str, now: float) -> list[Outgoing]:
        out: list[Outgoing] = []
        if self.finished:
            out.append(_out(seat, notice_for_closed(self.counters[seat], request_id)))
            return out
        request = self.open.get(seat)
        if request is None or request.id != request_id:
            if self.counters[seat].was_sent(request_id):
                out.append(_out(seat, notice_for_closed(self.counters[seat], request_id)))
                self._log_error(seat, ErrorCode.STALE_REQUEST, request_id, "late answer ignored")
                return out
            detail = (f"request {request_id} is not open for you"
                      + (f"; the open one is {request.id}" if request else "; none is open"))
            self._wrong(seat, ErrorCode.WRONG_REQUEST_ID, detail, now, out)
            return out
        if action not in request.legal:
            self._wrong(seat, ErrorCode.ILLEGAL_ACTION, f"{quote(action)} is not legal now", now,
                        out, legal=True)
            return out
        del self.open[seat]
        self._charge(seat, request, now)
        self.stats[seat].decisions += 1
        self.log.action(seat, action, request_id, _ms(now - request.issued_at), by="bot",
                        decision=request.decision, bank_ms=self._bank_ms(seat))
        self.state.apply(seat, action)
        self._advance(now, out)
        return out

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
            out.append(_out(seat, Error(code=error.code.value, message=error.detail)))
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

    def disconnect(self, seat: int, now: float) -> list[Outgoing]:
        """The seat's bot is gone: the default policy plays for it to the end of the game."""
        out: list[Outgoing] = []
        if self.finished or not self.connected[seat]:
            return out
        self.connected[seat] = False
        self.log.note(seat, "disconnected")
        if not any(self.connected):  # nobody left to play for: no game of defaults
            return self.abort(ErrorCode.ALL_SEATS_GONE.value, now)
        if seat in self.open:
            request = self.open.pop(seat)
            self._apply_default(seat, request, "disconnected", now)
            self._advance(now, out)
        return out

    def abort(self, reason: str, now: float) -> list[Outgoing]:
        """End the game unfinished (the server is stopping, say): cancel open requests, tell
        every seat, log it."""
        out: list[Outgoing] = []
        if self.finished:
            return out
        for seat, request in sorted(self.open.items()):
            out.append(_out(seat, Cancel(id=request.id, reason=reason)))
        self.open.clear()
        self.finished = True
        self.aborted = reason
        self._note_unlogged_errors()
        self.log.aborted(reason)
        end = GameEnd(game_id=self.game_id, scores=[], ranks=[], winners=[], reveal={},
                      aborted=reason)
        line = _line(end)  # once, for every seat
        out.extend(Outgoing(seat, end, line) for seat in self._everyone())
        return out

    def _everyone(self) -> range:
        """Every seat, and the public view when someone watches."""
        return range(PUBLIC if self.watched else 0, len(self.players))

    def limit_for(self, seat: int) -> tuple[float, str]:
        """Seconds ``seat`` gets for its current decision, and that limit's name: the reaction
        time limit in a reaction window, else the move time limit (the bank comes on top)."""
        if self.state.is_reaction(seat):
            return self.reaction_timeout, "reaction_timeout"
        return self.move_timeout, "move_timeout"

    def next_deadline(self) -> float | None:
        return min((r.deadline for r in self.open.values()), default=None)

    @property
    def result(self) -> Any:
        return self.state.result()

    # -- internals --

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
            out.append(_out(seat, Error(code=code.value, message=detail)))
            return
        request.tries_left -= 1
        out.append(_out(seat, Error(
            code=code.value, message=detail, id=request.id,
            legal=list(request.legal) if legal else None, tries_left=request.tries_left,
            time_left_ms=_ms(request.deadline - now))))
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
        out.append(_out(seat, Cancel(id=request.id, reason=reason.value, played=action,
                                         limit=limit)))

    def _charge(self, seat: int, request: OpenRequest, now: float) -> None:
        """Take the time used beyond the decision's limit from the seat's bank."""
        if self.time_bank:
            over = now - request.issued_at - request.limit
            if over > 0:
                self.bank[seat] = max(0.0, self.bank[seat] - over)

    def _bank_ms(self, seat: int) -> int | None:
        return _ms(self.bank[seat]) if self.time_bank else None

    def _apply_default(self, seat: int, request: OpenRequest | None, reason: str,
                       now: float, *, limit: str | None = None) -> str:
        legal = request.legal if request else tuple(self.state.legal_actions(seat))
        action = self.state.default_action(seat)
        if action is None:
            action = self._default_rng.choice(legal)
        self.stats[seat].count_default(reason)
        elapsed = _ms(now - request.issued_at) if request else 0
        decision = (request.decision if request
                    else getattr(self.state.observe(seat), "decision", None))
        self.log.action(seat, action, request.id if request else None, elapsed,
                        by="default", reason=reason, decision=decision, limit=limit,
                        bank_ms=self._bank_ms(seat) if request else None)
        self.state.apply(seat, action)
        return action

    def _advance(self, now: float, out: list[Outgoing]) -> None:
        """Send what happened, then bring the open requests in line with who must act."""
        state = self.state
        while True:
            self._flush_events(out)
            if state.is_over():
                self._finish(out)
                return
            acting = state.to_act()
            for seat, request in list(self.open.items()):
                if seat not in acting or tuple(state.legal_actions(seat)) != request.legal:
                    del self.open[seat]
                    self._charge(seat, request, now)  # time spent on it is time used
                    out.append(_out(seat, Cancel(id=request.id,
                                                     reason=ErrorCode.SUPERSEDED.value)))
            for seat in acting:
                if seat in self.open:
                    continue
                if not self.connected[seat]:
                    self._apply_default(seat, None, "disconnected", now)
                    break  # the state moved: look again
                self._issue(seat, now, out)
            else:
                return

    def _issue(self, seat: int, now: float, out: list[Outgoing]) -> None:
        request_id = self.counters[seat].next_id()
        legal = tuple(self.state.legal_actions(seat))
        timeout, limit_name = self.limit_for(seat)
        bank = self.bank[seat]
        observation = self.state.observe(seat)
        self.open[seat] = OpenRequest(
            request_id, legal, now, now + timeout + bank, self.max_tries,
            getattr(observation, "decision", None), timeout, limit_name)
        observation_json = to_json(observation)  # once: for the digest and the line
        legal_list = list(legal)
        legal_json = to_json(legal_list)  # once: for the log and the line
        self.log.request(seat, request_id, legal, text_digest(observation_json), legal_json)
        time_left_ms = _ms(timeout + bank)
        time_bank_ms = _ms(bank) if self.time_bank else None
        request = Request(id=request_id, legal=legal_list, time_left_ms=time_left_ms,
                          observation=observation, time_bank_ms=time_bank_ms)
        line = (encode_request(request_id, legal_json, time_left_ms, observation_json,
                               time_bank_ms) if observation is not None
                else encode(request))
        out.append(Outgoing(seat, request, line))

    def _flush_events(self, out: list[Outgoing]) -> None:
        seats = self._seats
        watched = self.watched
        for event in self.state.take_events():
            data = event.data
            data_json = to_json(data)  # once: for every seat that sees it and the log
            self.log.event(event, data_json)
            message = Event(kind=event.kind, data=data)
            line = (encode_event(event.kind, data_json) if data is not None
                    else encode(message))
            audience = event.audience
            if audience is None:
                out.extend([Outgoing(seat, message, line) for seat in seats])
                if watched:
                    out.append(Outgoing(PUBLIC, message, line))
            else:
                out.extend([Outgoing(seat, message, line) for seat in seats
                            if seat in audience])

    def _finish(self, out: list[Outgoing]) -> None:
        for seat, request in sorted(self.open.items()):
            out.append(_out(seat, Cancel(id=request.id, reason=ErrorCode.GAME_OVER.value)))
        self.open.clear()
        self.finished = True
        result = self.state.result()
        assert result is not None  # the game is over
        self._note_unlogged_errors()
        self.log.result(result)
        end = GameEnd(game_id=self.game_id, scores=list(result.scores), ranks=list(result.ranks),
                      winners=list(result.winners), reveal=dict(result.reveal))
        line = _line(end)  # once, for every seat
        out.extend(Outgoing(seat, end, line) for seat in self._everyone())
