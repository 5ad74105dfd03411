"""Drive one game between seats: requests, answers, tries, timeouts, default actions, the log.

Pure and sans-I/O like the protocol: no sockets, no clock.  The edge calls ``start``,
``answer``, ``bad_input``, ``expire``, ``disconnect`` and ``abort`` with the current time in
seconds (any monotonic clock), and each returns the :class:`Outgoing` messages to send.  It
asks the edge to call ``expire`` at :meth:`MatchDriver.next_deadline`.  The bookkeeping of the
requests (deadlines, tries, defaults, time banks, errors logged) is its base class,
:class:`~arena.gameplay.decisions.SeatDecisions`; this module steps the game.

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

import random
from collections.abc import Sequence
from typing import Any

from arena.gameplay.decisions import (
    MAX_LOGGED_ERRORS,
    PUBLIC,
    OpenRequest,
    Outgoing,
    SeatDecisions,
    SeatStats,
    line_of,
    made,
    observation_digest,
    outgoing,
    text_digest,
    to_ms,
)
from arena.gameplay.gamelog import GameLog
from arena.games.base import GameSpec, GameState
from arena.games.chance import derive_seed
from protocol.codec import encode, encode_event, to_json
from protocol.errors import ErrorCode, quote
from protocol.limits import MAX_TRIES
from protocol.messages import Cancel, Event, GameEnd, GameStart, Request
from protocol.requests import RequestCounter, notice_for_closed

__all__ = ["MAX_LOGGED_ERRORS", "PUBLIC", "MatchDriver", "OpenRequest", "Outgoing", "SeatStats",
           "observation_digest", "text_digest"]


class MatchDriver(SeatDecisions):
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
            options=spec.options_to_dict(options), move_timeout_ms=to_ms(move_timeout),
            reaction_timeout_ms=to_ms(self.reaction_timeout), time_bank_ms=to_ms(time_bank),
            started_at=started_at,
        )

    # -- inputs from the edge --

    def start(self, now: float) -> list[Outgoing]:
        if self.finished:  # every seat was gone before the game could start
            return []
        out = [outgoing(seat, self.game_start(seat)) for seat in range(len(self.players))]
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
        out = [outgoing(seat, self.game_start(seat, resumed=True))]
        request = self.open.get(seat)
        if request is not None:
            out.append(outgoing(seat, Request(
                id=request.id, legal=list(request.legal),
                time_left_ms=to_ms(request.deadline - now), observation=self.state.observe(seat),
                time_bank_ms=to_ms(self.bank[seat]) if self.time_bank else None)))
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
            out.append(outgoing(seat, notice_for_closed(self.counters[seat], request_id)))
            return out
        request = self.open.get(seat)
        if request is None or request.id != request_id:
            if self.counters[seat].was_sent(request_id):
                out.append(outgoing(seat, notice_for_closed(self.counters[seat], request_id)))
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
        if self.time_bank:
            self._charge(seat, request, now)
        self.stats[seat].decisions += 1
        ms = round((now - request.issued_at) * 1000)  # to_ms, inline: at every decision
        self.log.bot_action(seat, action, request_id, ms if ms > 0 else 0, request.decision,
                            self._bank_ms(seat) if self.time_bank else None)
        self.state.apply(seat, action)
        self._advance(now, out)
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
            out.append(outgoing(seat, Cancel(id=request.id, reason=reason)))
        self.open.clear()
        self.finished = True
        self.aborted = reason
        self._note_unlogged_errors()
        self.log.aborted(reason)
        end = GameEnd(game_id=self.game_id, scores=[], ranks=[], winners=[], reveal={},
                      aborted=reason)
        line = line_of(end)  # once, for every seat
        out.extend([made(Outgoing, (seat, end, line)) for seat in self._everyone()])
        return out

    def _everyone(self) -> range:
        """Every seat, and the public view when someone watches."""
        return range(PUBLIC if self.watched else 0, len(self.players))

    @property
    def result(self) -> Any:
        return self.state.result()

    # -- internals --

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
                    out.append(outgoing(seat, Cancel(id=request.id,
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

    def _flush_events(self, out: list[Outgoing]) -> None:
        seats = self._seats
        watched = self.watched
        log = self.log
        for event in self.state.take_events():
            kind = event.kind
            data = event.data
            data_json = to_json(data)  # once: for every seat that sees it and the log
            log.event(event, data_json)
            message = Event(kind, data)
            line = encode_event(kind, data_json) if data is not None else encode(message)
            audience = event.audience
            if audience is None:
                out.extend([made(Outgoing, (seat, message, line)) for seat in seats])
                if watched:
                    out.append(made(Outgoing, (PUBLIC, message, line)))
            else:
                out.extend([made(Outgoing, (seat, message, line)) for seat in seats
                            if seat in audience])

    def _finish(self, out: list[Outgoing]) -> None:
        for seat, request in sorted(self.open.items()):
            out.append(outgoing(seat, Cancel(id=request.id, reason=ErrorCode.GAME_OVER.value)))
        self.open.clear()
        self.finished = True
        result = self.state.result()
        assert result is not None  # the game is over
        self._note_unlogged_errors()
        self.log.result(result)
        end = GameEnd(game_id=self.game_id, scores=list(result.scores), ranks=list(result.ranks),
                      winners=list(result.winners), reveal=dict(result.reveal))
        line = line_of(end)  # once, for every seat
        out.extend([made(Outgoing, (seat, end, line)) for seat in self._everyone()])
