"""What an :class:`~arena.edge.server.ArenaServer` is told to do: its game, limits and folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import attrs

from arena.edge.session import SEND_QUEUE_BYTES
from arena.edge.spectators import SpectatorRules
from arena.games.base import GameSpec
from protocol.limits import MAX_LINE_BYTES, MAX_TRIES, PROTOCOL_VERSION
from protocol.messages import Welcome


class HelloPreparer(Protocol):
    """What must be done for a hello before its check, out of the event loop
    (:class:`~arena.events.registry.RegistryView`)."""

    def slow(self, name: str, token: str | None) -> bool:
        """Whether this hello needs :meth:`prepare` (quick: called on the event loop)."""

    def prepare(self, name: str, token: str | None) -> object:
        """The slow part (called in a worker thread)."""


@attrs.frozen
class ServerConfig:
    spec: GameSpec
    options: Any
    host: str = "127.0.0.1"
    port: int = 7777
    move_timeout: float = 5.0
    #: Seconds for a reaction-window decision (a special card or pass; ``is_reaction``).
    reaction_timeout: float = 1.0
    log_dir: Path = Path("arena-logs")
    compress_logs: bool = True  # .jsonl.gz; False: plain .jsonl
    seed: str | None = None
    #: Connections open at once; more are refused (``too_many_connections``).  None: the
    #: process's file limit less headroom for logs and listeners (:func:`connection_limit`).
    max_connections: int | None = None
    #: Connections open at once from one address (all of a laptop's bots share 127.0.0.1).
    max_connections_per_address: int = 256
    #: Seconds from ``welcome`` to a valid ``hello``; then ``hello_timeout`` and the end.
    hello_timeout: float = 10.0
    #: Bytes queued for a bot that does not read before it is dropped (``slow_reader``).
    max_queued_bytes: int = SEND_QUEUE_BYTES
    #: Lines a connection may send per second on average (twice as many in a burst); more
    #: get ``too_fast`` and the connection is closed.
    max_messages_per_second: float = 200.0
    #: Seconds an admitted connection may wait without a seat; then ``idle_timeout`` and the
    #: end (None: no limit).
    idle_timeout: float | None = 600.0
    #: Seconds a bot with a token whose connection was lost may take to come back (a new
    #: connection, the same token) to its seat; meanwhile its requests time out as usual.
    #: 0: no reconnection (its seat is played by the default policy at once).
    reconnect_grace: float = 30.0
    #: Seconds each seat may use beyond its decisions' limits over a game (0: no bank).
    time_bank: float = 0.0
    #: Finished games' records kept in memory, the newest (None: all, as a runner that reports
    #: every game needs; ``arena serve`` keeps a bounded number, as it may run for months).
    records_kept: int | None = None
    #: A folder for transcripts: every line each connection exchanged (None: none kept).
    transcript_dir: Path | None = None
    #: Who may watch, and how many at once (``arena.edge.spectators``).
    spectators: SpectatorRules = SpectatorRules()
    #: Connections (each says one hello) one address may open a second on average, twice as
    #: many at once; more wait for their turn before ``welcome`` (``arena.edge.admission``), or get
    #: ``too_many_hellos`` when it is too far off (None: no limit).
    max_hellos_per_second: float | None = None
    #: ``arena serve --db``: a hello it calls :meth:`~HelloPreparer.slow` (a registration
    #: still hashed with scrypt, from before issue 29) is :meth:`~HelloPreparer.prepare`-d in a
    #: worker thread before the seating admits it; every other hello is checked at once.
    prepare_hello: HelloPreparer | None = attrs.field(default=None, eq=False)

    def welcome(self) -> Welcome:
        """The ``welcome`` a server of this config sends (a hosted version's validation sends
        the same, :mod:`arena.kit.hosted`, so a bot cannot tell the two apart)."""
        return Welcome(
            protocol=PROTOCOL_VERSION, server="arena", game=self.spec.name,
            players=self.options.players,
            limits={"max_line_bytes": MAX_LINE_BYTES, "max_tries": MAX_TRIES,
                    "move_timeout_ms": round(self.move_timeout * 1000),
                    "reaction_timeout_ms": round(self.reaction_timeout * 1000),
                    "hello_timeout_ms": round(self.hello_timeout * 1000),
                    "max_messages_per_second": self.max_messages_per_second,
                    "idle_timeout_ms": (None if self.idle_timeout is None
                                        else round(self.idle_timeout * 1000)),
                    "max_queued_bytes": self.max_queued_bytes,
                    "reconnect_grace_ms": round(self.reconnect_grace * 1000),
                    "time_bank_ms": round(self.time_bank * 1000)})
