"""A server of several games on one port (``arena serve --game A --game B``): a front door
before one :class:`~arena.edge.server.ArenaServer` per game.

The door does what comes before a hello: the connection limits (all games' connections count
against one limit, and one address's against one per-address limit), the hellos an address
may say a second, the welcome (it lists the games: ``welcome.games``), and reading the hello,
checked by the protocol's own state machine (``game_required`` without a game,
``wrong_game`` with one not hosted here, ``bad_hello`` and the rest as at any server).  A
valid hello hands the connection to its game's server, with the hello's line and whatever
came after it (:meth:`ArenaServer.handle_stream`'s ``greeted``): from then on the connection
belongs to that game alone.  Each game's server keeps its own tables, seating, spectators,
reconnections and (under ``--db``) ladder, so nothing a bot of one game does reaches another
game's tables: it is never seated there, a spectator sees only its own game's tables, and a
token coming back finds its seat only in the game it named.

Before its hello a connection costs the door one task, for ``hello_timeout`` seconds at most;
every line before the hello that is not one is an error, and a few in a row close it
(``too_many_errors``), as at any server.  The hellos whose check is slow (``--db``: a
registration still hashed with scrypt) wait in one queue for one worker thread whichever
game they name, as at a server of one game.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from typing import Any

import attrs
import trio

from arena.edge.admission import HelloLimiter
from arena.edge.connections import close_gently, connection_limit, let_in, peer_address, refuse
from arena.edge.server import ArenaServer, Greeted
from arena.gameplay.gamelog import ensure_writable
from protocol import codec
from protocol.connection import NEED_DATA, ServerConnection
from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_LINE_BYTES
from protocol.messages import Error, Hello, Welcome

#: Bytes read from a connection at a time before its hello.
RECEIVE_CHUNK = 65536


class AllGamesDone:
    """Set when every game's server is done (each under its own ``--games`` limit)."""

    def __init__(self, servers: Sequence[ArenaServer]) -> None:
        self.servers = servers

    async def wait(self) -> None:
        for server in self.servers:
            await server.all_games_done.wait()


class GameHouse:
    def __init__(self, servers: Sequence[ArenaServer]) -> None:
        """``servers``: one per game, each of another game; their configs' door limits
        (address, port, connection limits, hellos a second, hello timeout) are the first's."""
        if len({server.spec.name for server in servers}) != len(servers) or not servers:
            raise ValueError("a house hosts one server per game, of games all different")
        self.servers = tuple(servers)
        first = servers[0].loops
        for server in servers[1:]:  # slow hello checks: one thread and one queue for all
            server.loops.preparing = first.preparing
            server.loops.checking = first.checking
        self._by_game = {server.spec.name: server for server in servers}
        self.config = servers[0].config
        self.port: int | None = None
        self.max_connections = (self.config.max_connections
                                if self.config.max_connections is not None
                                else connection_limit())
        self.open_streams = 0
        self.per_address: dict[str, int] = {}
        self.hellos = HelloLimiter(self.config.max_hellos_per_second)
        self.shutting_down = False
        self._nursery: trio.Nursery | None = None
        self.all_games_done = AllGamesDone(self.servers)

    @property
    def games(self) -> list[str]:
        return [server.spec.name for server in self.servers]

    def welcome(self) -> Welcome:
        """The first server's welcome (the limits all games share), listing every game."""
        return attrs.evolve(self.servers[0].welcome(), game=None, players=None,
                            games=self.games)

    # -- running --

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Start every game's server, then listen; reports the port bound.  Runs until
        cancelled or :meth:`shutdown`."""
        for server in self.servers:
            ensure_writable(server.config.log_dir)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for server in self.servers:
                await nursery.start(functools.partial(server.serve, listen=False))
            listeners = await nursery.start(functools.partial(
                trio.serve_tcp, self.handle_stream, self.config.port, host=self.config.host,
                handler_nursery=nursery))
            self.port = listeners[0].socket.getsockname()[1]
            task_status.started(self.port)
            await trio.sleep_forever()

    async def shutdown(self, reason: ErrorCode = ErrorCode.SERVER_SHUTDOWN) -> None:
        """Every game's server stops (:meth:`ArenaServer.shutdown`), all at once; then the
        door closes."""
        if self.shutting_down:
            return
        self.shutting_down = True
        async with trio.open_nursery() as stopping:
            for server in self.servers:
                stopping.start_soon(server.shutdown, reason)
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()

    def hurry(self) -> None:
        for server in self.servers:
            server.hurry()

    # -- connections --

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one connection to its end (at its game's server); never raises for anything
        the peer does."""
        self.open_streams += 1
        try:
            await self._handle(stream)
        finally:
            self.open_streams -= 1

    async def _handle(self, stream: trio.abc.Stream) -> None:
        address = peer_address(stream)
        if not await let_in(stream, open_streams=self.open_streams, limit=self.max_connections,
                            from_address=self.per_address.get(address, 0),
                            address_limit=self.config.max_connections_per_address,
                            closing=self.shutting_down):
            return
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            if not await self._through_the_door(stream, address):
                return
            greeted = await self._greet(stream)
            if greeted is None:
                await close_gently(stream)
                return
            server, door = greeted
            await server.handle_stream(stream, greeted=door)
        finally:
            left = self.per_address.get(address, 1) - 1
            if left > 0:
                self.per_address[address] = left
            else:
                self.per_address.pop(address, None)

    async def _through_the_door(self, stream: trio.abc.Stream, address: str) -> bool:
        """As :meth:`ArenaServer._through_the_door`: an address saying hello too often waits
        for its turn, or is refused (``too_many_hellos``)."""
        wait = self.hellos.admit(address, trio.current_time())
        if wait is None:
            await refuse(stream, ErrorCode.TOO_MANY_HELLOS, (
                f"more than {self.config.max_hellos_per_second:g} hellos a second from your "
                "address: wait a moment, then connect again"))
            return False
        if wait > 0:
            await trio.sleep(wait)
            if self.shutting_down:
                await close_gently(stream, linger=0.2)
                return False
        return True

    async def _greet(self, stream: trio.abc.Stream) -> tuple[ArenaServer, Greeted] | None:
        """The welcome, then the connection's lines up to a valid hello: its game's server
        and the bytes to hand it (None: the connection ended, or was told why it ends)."""
        conn = ServerConnection(games=self.games, max_line=MAX_LINE_BYTES)
        limit = self.config.hello_timeout
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            welcome = conn.send(self.welcome())
            await stream.send_all(welcome)
            with trio.move_on_after(limit):
                while True:
                    event = conn.next_event()
                    if event is NEED_DATA:
                        conn.receive_data(bytes(await stream.receive_some(RECEIVE_CHUNK)))
                    elif isinstance(event, Hello):
                        game = event.game if event.game is not None else self.games[0]
                        return self._by_game[game], Greeted(welcome, conn.hand_over())
                    elif isinstance(event, PeerError):
                        await stream.send_all(codec.encode(Error(
                            code=event.code.value, message=event.detail, fatal=event.fatal)))
                        if event.fatal:
                            return None
                    else:  # ENDED, or bye before its hello
                        return None
            await stream.send_all(codec.encode(Error(
                code=ErrorCode.HELLO_TIMEOUT.value, fatal=True,
                message=f"no valid hello within {limit:g} s")))
        return None
