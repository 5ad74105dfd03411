"""Admission and reconnection: hellos (admitted, refused, or a bot coming back with its
token), sessions that wait too long for a seat, and sessions whose connection ended.

A session whose connection was lost keeps its seat for ``reconnect_grace`` seconds: a new
connection with the same token gets it back (:meth:`Reception.come_back`); after that its seat
goes to the default policy.
"""

from __future__ import annotations

import logging
from collections import Counter

import trio

from arena.edge.peer_process import ProcessBinding
from arena.edge.session import Link, Session
from arena.edge.spectators import SpectatorDesk
from arena.edge.stage import Stage
from arena.edge.table import Away, Gone, Rejoin
from arena.edge.tables import TableHall
from arena.seating.names import renamed
from arena.seating.policies import Admission
from protocol.errors import ErrorCode
from protocol.messages import Bye, Error, Hello

log = logging.getLogger("arena.server")

#: What ``bye`` says, by reason.
BYE_MESSAGES = {ErrorCode.SERVER_SHUTDOWN: "the server is stopping",
                ErrorCode.SERVER_RESTART: "the server is restarting: come back with your "
                                          "token (keep trying)",
                ErrorCode.SERIES_OVER: "the series is over: thank you for playing",
                ErrorCode.EVENT_OVER: "the tournament is over: thank you for playing"}
#: What the refusals of a seating policy say.
REFUSALS = {ErrorCode.UNKNOWN_TOKEN: "this server seats bots by token; send the token you were "
                                     "given (ARENA_TOKEN) in hello",
            ErrorCode.TOKEN_IN_USE: "that player is connected already (another connection "
                                    "holds this token and keeps its seat)",
            ErrorCode.BAD_TOKEN: "that name is registered here: send its token in hello",
            ErrorCode.TOKEN_NOT_YOURS: "that token was given to another process"}
#: What ``token_in_use`` says when the player is played by a process the server runs for it.
HOSTED_IN_USE = ("that player is played here by a process this server runs for it (its "
                 "hosted version): to connect it yourself, retire that version first (the "
                 "author's page, or arena bots retire)")


class Reception:
    def __init__(self, stage: Stage, hall: TableHall, spectators: SpectatorDesk,
                 binding: ProcessBinding | None) -> None:
        self.stage = stage
        self.hall = hall
        self.spectators = spectators
        self.binding = binding
        self.sessions: set[Session] = set()
        #: Refused hellos, by reason code (a runner fails its run on any).
        self.refusals: Counter[str] = Counter()
        #: Sessions whose connection was lost, by token, until they come back or their grace
        #: ends (``reconnect_grace``).
        self.away: dict[str, Session] = {}

    def hello(self, session: Session, hello: Hello) -> Session:
        """Admit (or refuse) a connection; returns the session it speaks for from now on: a
        bot coming back with its token gets its own session back."""
        if self.stage.shutting_down:
            session.finish(Bye(reason=ErrorCode.SERVER_SHUTDOWN.value,
                               message=BYE_MESSAGES[ErrorCode.SERVER_SHUTDOWN]))
            return session
        if hello.role == "spectator":
            turned_away = self.spectators.admit(session, hello.name.strip(), hello.token)
            if turned_away is not None:
                self._refuse(session, turned_away)
                return session
            session.name = hello.name.strip()
            session.admitted = session.spectator = True  # admitted to watch, never seated
            session.idle_since = trio.current_time()  # the idle limit holds while not watching
            return session
        token = session.bound_token or hello.token
        returning = self.away.get(token) if token is not None else None
        if token is not None and not self._process_may_use(session, token):
            admission = Admission(refusal=ErrorCode.TOKEN_NOT_YOURS)
        elif returning is not None and not self._still_registered(returning, hello,
                                                                   token or ""):
            self._end_absence(returning)  # removed from the registry while it was away
            admission = Admission(refusal=ErrorCode.UNKNOWN_TOKEN)
        elif returning is not None:
            return self._come_back(session, returning)
        else:
            admission = self.hall.seating.admit(session, hello.name.strip(), token)
        refusal = admission.refusal
        if refusal is not None:
            said = REFUSALS.get(refusal, "refused")
            if refusal is ErrorCode.TOKEN_IN_USE and self._hosted(hello.name.strip()):
                said = HOSTED_IN_USE
            self._refuse(session, Error(code=refusal.value, fatal=True, message=said),
                         said=hello.name.strip())
            return session
        session.name = admission.name or hello.name.strip()
        session.token = token if admission.token_checked else None
        session.events_with_requests = hello.events == "with_requests"
        session.admitted = True
        log.info("%s connected (%s)", session.name, session.address)
        if self.stage.notes is not None:
            self.stage.notes.connected(session.number, session.name)
        if session.name != hello.name.strip():
            session.send(renamed(hello.name.strip(), session.name))
        session.idle_since = trio.current_time()
        self.hall.seat(self.hall.seating.ready(session, trio.current_time()))
        return session

    def _hosted(self, name: str) -> bool:
        """Whether ``name`` is played by a connection the server made itself (a hosted
        version's pipes: ``bound_token``)."""
        folded = name.casefold()
        return any(other.admitted and other.bound_token is not None
                   and (other.name or "").casefold() == folded for other in self.sessions)

    def _refuse(self, session: Session, error: Error, said: str | None = None) -> None:
        """Refuse a hello (``said``: the name it said): the error, then the connection is
        closed."""
        self.refusals[error.code] += 1
        log.warning("refused %r (%s): %s", session.name if said is None else said,
                    session.address, error.code)
        session.send(error)
        session.conn.close()
        session.finish()

    def _process_may_use(self, session: Session, token: str) -> bool:
        if self.binding is None or session.bound_token is not None:
            return True
        peer, local = session.sockets if session.sockets is not None else (None, None)
        return self.binding.allows(token, peer, local)

    async def idle_sweeper(self, limit: float) -> None:
        """Close connections that have waited longer than ``limit`` without a seat."""
        while True:
            await trio.sleep(min(limit / 4, 5.0))
            now = trio.current_time()
            for session in list(self.sessions):
                since = session.idle_since
                hosted = self.stage.cores is not None and self.stage.cores.hosts(session)
                if since is not None and session.idle and now - since > limit and not hosted:
                    session.send(Error(code=ErrorCode.IDLE_TIMEOUT.value, fatal=True,
                                       message=f"no seat for you within {limit:g} s"))
                    session.conn.close()
                    session.finish()

    # -- a connection ends; a session whose connection was lost waits for its bot --

    def connection_ended(self, session: Session, link: Link) -> None:
        owner = link.owner if link.owner is not None else session
        self.sessions.discard(session)
        self.stage.poke()
        if owner.link is link:  # this connection still speaks for its bot
            self.sessions.discard(owner)
            if self._may_come_back(owner):
                self._await_return(owner)
            else:
                self._session_gone(owner)

    def withdraw(self, token: str) -> None:
        """The bot with this token will not come (its process ended): stop waiting for it."""
        session = self.away.get(token)
        if session is not None:
            self._end_absence(session)
        self.hall.seat(self.hall.seating.withdraw(token, trio.current_time()))

    def _may_come_back(self, session: Session) -> bool:
        return (session.link.lost and session.admitted and session.token is not None
                and self.stage.config.reconnect_grace > 0 and not self.stage.shutting_down)

    def _await_return(self, session: Session) -> None:
        assert session.token is not None
        session.away_until = trio.current_time() + self.stage.config.reconnect_grace
        self.away[session.token] = session
        if session.seat is not None:
            self.hall.put(session.seat.table, Away(session))
        self.stage.start_soon(self._grace_ends, session, session.link)

    async def _grace_ends(self, session: Session, link: Link) -> None:
        if session.away_until is None:  # its absence ended already (withdrawn)
            return
        await trio.sleep_until(session.away_until)
        if session.link is link and session.away_until is not None:  # not back in time
            self._end_absence(session)

    def _end_absence(self, session: Session) -> None:
        """The bot will not come back: its seat goes to the default policy."""
        if session.token is not None:
            self.away.pop(session.token, None)
        session.away_until = None
        self._session_gone(session)

    def _still_registered(self, returning: Session, hello: Hello, token: str) -> bool:
        """Whether a bot coming back with its token is registered still (``arena serve
        --db``: the registry is read at each hello; a bot removed while it was away does not
        get its seat back).  Without a registry the token alone says who it is."""
        checker = self.spectators.rules.checker
        if checker is None:
            return True
        names = dict.fromkeys([returning.name, hello.name.strip()])
        return any(checker(name, token)[1] for name in names if name)

    def _come_back(self, session: Session, returning: Session) -> Session:
        """``session``'s hello carried the token of ``returning``, which is away: the bot is
        back.  Its session (seat, request counter) now speaks through the new connection."""
        assert returning.token is not None
        del self.away[returning.token]
        self.sessions.discard(session)
        returning.rebind(session.link)
        self.sessions.add(returning)
        log.info("%s is back (%s)", returning.name, returning.address)
        if returning.seat is not None:
            self.hall.put(returning.seat.table, Rejoin(returning))
        else:
            returning.idle_since = trio.current_time()
            self.hall.seat(self.hall.seating.ready(returning, trio.current_time()))
        return returning

    def _session_gone(self, session: Session) -> None:
        if session.watching is not None:
            session.watching.unwatch(session)
            session.watching = None
        if session.spectator:
            self.spectators.gone(session)
            return
        if session.seat is not None:
            self.hall.put(session.seat.table, Gone(session))
        if session.admitted:
            log.info("%s left (%s)", session.name, session.address)
            if self.stage.notes is not None:
                self.stage.notes.left(session.number, session.name)
            self.hall.seat(self.hall.seating.gone(session, trio.current_time()))
