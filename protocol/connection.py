"""The server side of one connection, as a state machine (sans-I/O).

States and what moves between them (mirrored in SPEC.md, "Connection states")::

    START ──welcome──▶ AWAIT_HELLO ──hello──▶ READY ──bye (either side)──▶ CLOSED
                            │                    │
                            └──bye / fatal error─┴───────────▶ CLOSED

The bot may send ``hello`` only in AWAIT_HELLO, ``action`` and ``watch`` only in READY, ``bye``
any time.  The server may send ``welcome`` only in START; ``game_start``, ``request``,
``cancel``, ``event``, ``game_end``, ``tables`` and ``info`` only in READY; ``error`` and
``bye`` any time (in CLOSED only as last words, before the edge closes the socket).

Peer mistakes come out of :meth:`ServerConnection.next_event` as :class:`PeerError` values, not
exceptions; non-fatal ones leave the state as it was.  A fatal one (wrong protocol version,
wrong game, too many bad lines in a row) moves to CLOSED, and a closed connection stays closed.
Sending a message the state does not allow is *our* bug and raises :class:`LocalProtocolError`.

The connection also keeps the protocol's request bookkeeping (as h11's ``Connection`` keeps
its request/response cycle): it numbers the requests sent over it
(:class:`~protocol.requests.RequestCounter`), says what an answer to a closed request gets
(:meth:`ServerConnection.notice_for_closed`), and tells the first answer to the newest request
from the other lines (:meth:`ServerConnection.first_answer`; the rate limit spares it).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Final, TypeAlias

from protocol import codec
from protocol.errors import ErrorCode, PeerError, quote
from protocol.limits import (
    MAX_CONSECUTIVE_ERRORS,
    MAX_LINE_BYTES,
    MAX_NAME_CHARS,
    MAX_TOKEN_CHARS,
    PROTOCOL_VERSION,
)
from protocol.linebuffer import LineBuffer
from protocol.messages import Action, Bye, Error, Hello, Watch
from protocol.requests import RequestCounter, notice_for_closed


class State(enum.Enum):
    START = "start"
    AWAIT_HELLO = "await_hello"
    READY = "ready"
    CLOSED = "closed"

    #: Hashed by identity (each member is one object): ``Enum.__hash__`` is a Python call,
    #: and every line in or out looks its state up in a table (``SERVER_ALLOWED``, ...).
    __hash__ = object.__hash__


class LocalProtocolError(RuntimeError):
    """We tried to send something the protocol does not allow now."""


class _Ended:
    def __repr__(self) -> str:
        return "ENDED"


class _NeedData:
    def __repr__(self) -> str:
        return "NEED_DATA"


#: From :meth:`ServerConnection.next_event`: the peer closed its side, or we closed.
ENDED: Final = _Ended()
#: From :meth:`ServerConnection.next_event`: no whole line yet; feed more bytes.
NEED_DATA: Final = _NeedData()

#: What :meth:`ServerConnection.next_event` returns.
ServerEvent: TypeAlias = Hello | Action | Watch | Bye | PeerError | _NeedData | _Ended

#: (state, message type the bot sent) -> next state.  Pairs not listed: ``unexpected_message``.
CLIENT_TRANSITIONS: dict[tuple[State, str], State] = {
    (State.AWAIT_HELLO, "hello"): State.READY,
    (State.AWAIT_HELLO, "bye"): State.CLOSED,
    (State.READY, "action"): State.READY,
    (State.READY, "watch"): State.READY,
    (State.READY, "bye"): State.CLOSED,
}

#: What the server may send in each state; ``bye`` also moves to CLOSED.
SERVER_ALLOWED: dict[State, frozenset[str]] = {
    State.START: frozenset({"welcome"}),
    State.AWAIT_HELLO: frozenset({"error", "bye"}),
    State.READY: frozenset(
        {"game_start", "request", "cancel", "event", "game_end", "error", "tables", "info",
         "bye"}),
    State.CLOSED: frozenset({"error", "bye"}),  # last words before the socket closes
}

#: What a game sends (``arena.gameplay``'s messages): allowed in READY, none moving the state.
GAME_MESSAGES: frozenset[str] = frozenset(
    {"game_start", "request", "cancel", "event", "game_end", "error"})


class ServerConnection:
    """Bytes from a bot in, messages out; messages to the bot in, bytes out."""

    def __init__(self, *, game: str | None = None, games: Sequence[str] = (),
                 max_line: int = MAX_LINE_BYTES) -> None:
        """``game``: the server's one game; ``games``: the games a server that hosts several
        lists (its front door's connections): a hello must name one of them."""
        self.games: tuple[str, ...] = tuple(games) if game is None else (game,)
        if not self.games:
            raise ValueError("a connection is for one game or several, never none")
        self.game = self.games[0] if len(self.games) == 1 else None
        #: Numbers the requests sent over this connection (a bot that reconnects keeps its
        #: numbering: :meth:`resume`).
        self.requests = RequestCounter()
        self._answered_id = 0  # the newest request id the bot answered
        self.state = State.START
        self._lines = LineBuffer(max_line)
        self._eof = False
        self._errors_in_a_row = 0
        #: The line the last event came from (None: it was over the size limit).
        self.last_line: bytes | None = None

    # -- input --

    def receive_data(self, data: bytes) -> None:
        """Bytes from the peer; ``b""`` means the peer closed its side."""
        if data:
            self._lines.feed(data)
        else:
            self._eof = True

    def next_event(self) -> ServerEvent:
        """A message (Hello, Action, Watch, Bye), a PeerError, :data:`NEED_DATA` or
        :data:`ENDED`."""
        if self.state is State.CLOSED:
            return ENDED
        line = self._lines.next_line()
        self.last_line = line if isinstance(line, bytes) else None
        if line is None:
            if self._eof:
                self.state = State.CLOSED
                return ENDED
            return NEED_DATA
        if not isinstance(line, bytes):  # TOO_LONG
            return self._error(PeerError(
                ErrorCode.LINE_TOO_LONG,
                f"a line may hold at most {self._lines.max_line} bytes; this one was dropped"))
        message = codec.decode_client(line)
        if type(message) is Action and self.state is State.READY:  # the common case
            self._errors_in_a_row = 0
            return message
        if isinstance(message, PeerError):
            return self._error(message)
        next_state = CLIENT_TRANSITIONS.get((self.state, message.TYPE))
        if next_state is None:
            return self._error(PeerError(
                ErrorCode.UNEXPECTED_MESSAGE, self._unexpected_detail(message.TYPE)))
        if isinstance(message, Hello):
            problem = self._check_hello(message)
            if problem is not None:
                return self._error(problem)
        self._errors_in_a_row = 0
        self.state = next_state
        return message  # type: ignore[no-any-return]

    def _unexpected_detail(self, kind: str) -> str:
        if self.state is State.AWAIT_HELLO:
            return f"say hello first (got {kind!r})"
        if kind == "hello":
            return "you already said hello"
        return f"{kind!r} is not allowed now"

    def _check_hello(self, hello: Hello) -> PeerError | None:
        if hello.protocol is not None and hello.protocol != PROTOCOL_VERSION:
            return PeerError(ErrorCode.VERSION_MISMATCH,
                             f"this server speaks protocol {PROTOCOL_VERSION}, "
                             f"not {hello.protocol}", fatal=True)
        if hello.game is None and self.game is None:
            return PeerError(ErrorCode.GAME_REQUIRED,
                             f"this server hosts several games: name yours in hello (game: "
                             f"one of {self._listed()})", fatal=True)
        if hello.game is not None and hello.game not in self.games:
            return PeerError(ErrorCode.WRONG_GAME,
                             f"this server hosts {self._listed()}, not {quote(hello.game)}",
                             fatal=True)
        name = hello.name.strip()
        if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
            return PeerError(ErrorCode.BAD_HELLO,
                             f"a name is 1 to {MAX_NAME_CHARS} printable characters")
        if hello.token is not None and not 0 < len(hello.token) <= MAX_TOKEN_CHARS:
            return PeerError(ErrorCode.BAD_HELLO, f"a token is 1 to {MAX_TOKEN_CHARS} characters")
        if hello.role not in (None, "player", "spectator"):
            return PeerError(ErrorCode.BAD_HELLO, "role is \"player\" or \"spectator\"")
        if hello.events not in (None, "live", "with_requests"):
            return PeerError(ErrorCode.BAD_HELLO, "events is \"live\" or \"with_requests\"")
        return None

    def _listed(self) -> str:
        return ", ".join(repr(game) for game in self.games)

    def _error(self, error: PeerError) -> PeerError:
        self._errors_in_a_row += 1
        if not error.fatal and self._errors_in_a_row >= MAX_CONSECUTIVE_ERRORS:
            error = PeerError(ErrorCode.TOO_MANY_ERRORS,
                              f"{self._errors_in_a_row} bad lines in a row: {error.detail}",
                              fatal=True)
        if error.fatal:
            self.state = State.CLOSED
        return error

    # -- a server of several games: its front door greets, the game's server goes on --

    def greeted(self) -> None:
        """The welcome went out on the front door's connection (a server of several games):
        this one, the game's, awaits the hello without sending one."""
        if self.state is not State.START:
            raise LocalProtocolError(f"greeted in state {self.state.name}")
        self.state = State.AWAIT_HELLO

    def hand_over(self) -> bytes:
        """The front door's part: the hello's line just read and every byte after it, for the
        game's connection to read (:meth:`greeted`); this connection is closed."""
        line = self.last_line
        if self.state is not State.READY or line is None:
            raise LocalProtocolError("hand over right after a valid hello only")
        self.state = State.CLOSED
        return line + b"\n" + self._lines.take_rest()

    # -- requests --

    def resume(self, old: ServerConnection) -> None:
        """The bot came back on this connection after ``old`` was lost: the request numbering
        goes on where it was."""
        self.requests = old.requests
        self._answered_id = old._answered_id

    def first_answer(self, action: Action) -> bool:
        """``action`` is the first answer to the newest request sent here."""
        if action.id != self.requests.newest or self._answered_id == action.id:
            return False
        self._answered_id = action.id
        return True

    def notice_for_closed(self, request_id: int) -> Error:
        """What an answer to ``request_id`` gets when no request of that id is open:
        ``stale_request`` if it was sent here, else ``wrong_request_id``."""
        return notice_for_closed(self.requests, request_id)

    # -- output --

    def takes_game_messages(self) -> bool:
        """Whether every message a game sends (:data:`GAME_MESSAGES`) may go now, none of
        them changing the state (one check for a step's lines instead of one per line)."""
        return self.state is State.READY

    def may_send(self, kind: str) -> bool:
        """Whether the state allows sending a message of type ``kind`` now."""
        return kind in SERVER_ALLOWED[self.state]

    def send(self, message: Any, line: bytes | None = None) -> bytes:
        """The message's bytes, once the state allows it (``bye`` closes the connection).
        ``line``: the message already encoded (one event for several seats): used as is."""
        if message.TYPE not in SERVER_ALLOWED[self.state]:
            raise LocalProtocolError(f"cannot send {message.TYPE!r} in state {self.state.name}")
        data = codec.encode(message) if line is None else line
        if message.TYPE == "welcome":
            self.state = State.AWAIT_HELLO
        elif message.TYPE == "bye":
            self.state = State.CLOSED
        return data

    def offer(self, message: Any, line: bytes | None = None) -> bytes | None:
        """As :meth:`send`, but None (nothing sent) when the state does not allow the message
        now (a closing connection's last words only) instead of raising."""
        kind = message.TYPE
        if kind not in SERVER_ALLOWED[self.state]:
            return None
        data = codec.encode(message) if line is None else line
        if kind == "welcome":
            self.state = State.AWAIT_HELLO
        elif kind == "bye":
            self.state = State.CLOSED
        return data

    def close(self) -> None:
        self.state = State.CLOSED
