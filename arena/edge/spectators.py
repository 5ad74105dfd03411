"""Spectators at the edge: who may watch, and what watching may cost the server.

A spectator costs the server at most what a player costs:

- the table list (the answer to ``watch`` without a table) is built at most once per
  :data:`LISTING_TICK` and the same encoded line is shared by every spectator who asks
  meanwhile (:class:`TableListing`);
- ``watch`` without a table is limited on its own: :data:`LISTS_PER_SECOND` on average,
  :data:`LIST_BURST` at once; more get ``too_fast`` and the connection is closed;
- the bytes of every reply to ``watch`` count against the connection's message budget: each
  :data:`REPLY_BYTES_PER_LINE` bytes count as one line it sent;
- spectator connections have their own cap (``SpectatorRules.max_spectators``); more get
  ``too_many_connections``;
- who may watch (``SpectatorRules.mode``): ``open`` (anyone), ``registered`` (a registered name
  with its token, as a player of ``arena serve --tokens``) or ``none`` (``no_spectators``).
"""

from __future__ import annotations

import hmac
import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import attrs

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import Error, Tables, Watch
from protocol.ratelimit import TokenBucket

#: Who may watch: anyone, registered players only (with their tokens), or no one.
SPECTATOR_MODES = ("open", "registered", "none")
#: Spectator connections at once, by default.
MAX_SPECTATORS = 64
#: Seconds a table list is shared before it is built again (when asked for).
LISTING_TICK = 0.25
#: Table lists (``watch`` without a table) one spectator may ask for a second on average...
LISTS_PER_SECOND = 1.0
#: ... and at once.
LIST_BURST = 3.0
#: Bytes of a reply to ``watch`` that count as one line against the message rate.
REPLY_BYTES_PER_LINE = 1024
#: Tables a ``tables`` answer lists at most (it must fit in one line).
MAX_TABLES_LISTED = 200


@attrs.frozen
class SpectatorRules:
    mode: str = "open"
    max_spectators: int = MAX_SPECTATORS
    #: Registered names (any case) and their tokens, for ``registered``.
    registry: Mapping[str, str] | None = attrs.field(default=None, eq=False)
    #: Instead of ``registry`` (``arena serve --db``): asked at each spectator's hello for
    #: (the registered name or None, whether the token is its own).
    checker: Callable[[str, str | None], tuple[str | None, bool]] | None = attrs.field(
        default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        if self.mode not in SPECTATOR_MODES:
            raise ValueError(f"spectators must be one of {', '.join(SPECTATOR_MODES)}")
        if self.mode == "registered" and self.registry is None and self.checker is None:
            raise ValueError("registered spectators need registered players (--tokens or "
                             "--db)")


def refusal_for(mode: str, registry: Mapping[str, str], name: str, token: str | None,
                checker: Callable[[str, str | None], tuple[str | None, bool]] | None = None,
                ) -> Error | None:
    """Why a spectator's hello is refused (None: admitted).  ``registry``: the registered
    names, folded with ``casefold``, and their tokens; ``checker`` (a registry database)
    answers instead when given.  Pure."""
    if mode == "none":
        return Error(code=ErrorCode.NO_SPECTATORS.value, fatal=True,
                     message="this server admits no spectators")
    if mode == "registered":
        if checker is not None:
            registered, matches = checker(name, token)
            known = registered is not None
        else:
            expected = registry.get(name.casefold())
            known = expected is not None
            matches = (expected is not None and token is not None
                       and hmac.compare_digest(token.encode("utf-8", "surrogatepass"),
                                               expected.encode()))
        if not known:
            return Error(code=ErrorCode.UNKNOWN_TOKEN.value, fatal=True, message=(
                "spectators here are registered players: hello with a registered name and "
                "its token"))
        if not matches:
            return Error(code=ErrorCode.BAD_TOKEN.value, fatal=True,
                         message="that name is registered here: send its token in hello")
    return None


class TableListing:
    """The ``tables`` line, built at most once per ``tick`` seconds and shared."""

    def __init__(self, tick: float = LISTING_TICK) -> None:
        self.tick = tick
        self.built_at = -math.inf
        self.message: Tables | None = None
        self.line = b""
        self.builds = 0

    def get(self, now: float, build: Callable[[], Tables]) -> tuple[Tables, bytes]:
        if self.message is None or now - self.built_at >= self.tick:
            self.message = build()
            self.line = encode(self.message)
            self.built_at = now
            self.builds += 1
        return self.message, self.line


def list_tables(tables: Iterable[Any]) -> Tables:
    """The running tables a spectator may watch (none of a duplicate set), by number."""
    watchable = sorted((t for t in tables if t.seated.seed is None), key=lambda t: t.number)
    return Tables(tables=[{"table": t.number, "game_id": t.driver.game_id,
                           "names": t.driver.players} for t in watchable[:MAX_TABLES_LISTED]],
                  more=len(watchable) > MAX_TABLES_LISTED)


class SpectatorDesk:
    """The server's spectators: admission, their cap, the shared list and their limits."""

    def __init__(self, rules: SpectatorRules) -> None:
        self.rules = rules
        self._registry = {name.casefold(): token
                          for name, token in (rules.registry or {}).items()}
        self.listing = TableListing()
        self._lists: dict[Hashable, TokenBucket] = {}  # admitted spectators' list limits

    @property
    def count(self) -> int:
        return len(self._lists)

    def admit(self, session: Hashable, name: str, token: str | None) -> Error | None:
        """A spectator's hello: None if admitted, else the (fatal) error to send."""
        refusal = refusal_for(self.rules.mode, self._registry, name, token, self.rules.checker)
        if refusal is not None:
            return refusal
        if self.count >= self.rules.max_spectators:
            return Error(code=ErrorCode.TOO_MANY_CONNECTIONS.value, fatal=True, message=(
                f"this server holds {self.rules.max_spectators} spectators at most; try later"))
        self._lists[session] = TokenBucket(LISTS_PER_SECOND, LIST_BURST)
        return None

    def gone(self, session: Hashable) -> None:
        self._lists.pop(session, None)

    def watch(self, session: Any, watch: Watch, tables: Iterable[Any], budget: TokenBucket,
              now: float) -> bool:
        """Answer a spectator's ``watch``; False when it is over its limits (it was sent a
        fatal ``too_fast``: close it)."""
        if watch.table is None:
            lists = self._lists.get(session)
            if lists is not None and not lists.allow(now):
                session.send(Error(code=ErrorCode.TOO_FAST.value, fatal=True, message=(
                    f"more than {LISTS_PER_SECOND:g} table list a second ({LIST_BURST:g} at "
                    "once)")))
                return False
            message, line = self.listing.get(now, lambda: list_tables(tables))
            if session.queue(message, line):
                session.link.push()
            budget.charge(now, len(line) / REPLY_BYTES_PER_LINE)
            return True
        table = next((t for t in tables if t.number == watch.table), None)
        if table is None or table.driver.finished:
            session.send(Error(code=ErrorCode.UNKNOWN_TABLE.value,
                               message=f"no table {watch.table} is running; send watch "
                                       "without a table for the list"))
            return True
        if table.seated.seed is not None:  # a seed the policy chose: shared by a duplicate set
            session.send(Error(code=ErrorCode.NOT_WATCHABLE.value,
                               message=f"table {watch.table} plays a deal other tables play too "
                                       "(a duplicate set): it cannot be watched"))
            return True
        if session.watching is not None:
            session.watching.unwatch(session)
        session.watching = table
        session.idle_since = None
        sent = table.watch(session)  # the game so far: counts as any reply does
        budget.charge(now, sent / REPLY_BYTES_PER_LINE)
        return True
