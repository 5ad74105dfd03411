"""The play page: a person at a private table in the browser, against the bots the organiser
allows (``arena web --play``, ``arena serve --web PORT --play``).

``/play`` lists the games offered, each with a choice of opponents; ``/play/GAME?bots=A,B``
is the table; its script opens ``/play/GAME/socket?bots=A,B``, a WebSocket over which the
browser speaks the protocol's JSON lines to its own private table
(:func:`arena.web.play_table.private_table`): one message a line, each way.  The pages' process
relays them, adding drawings to what the seat is sent (:mod:`arena.web.play_view`).

Limits, each a constant or a setting of :class:`~arena.web.play_table.PlaySettings`:

- at most ``max_tables`` tables run at once: another visitor is told to try later;
- a table ends when its tab is closed (the WebSocket closes), when the browser sent nothing for
  ``idle_timeout`` seconds, and after ``table_timeout`` seconds whatever happens;
- a browser's message is at most :data:`protocol.limits.MAX_LINE_BYTES` bytes and one JSON
  object of a type a seat may send (``hello`` without a token or role, ``action``, ``bye``):
  anything else ends the table.  The seat is bound to its token by the table itself, so a
  browser can neither take another seat nor reach another table, nor watch one;
- a socket opened by another site's page (its ``Origin`` is not this site) is closed at once.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import trio
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.gameplay.gamelog import LogDirectoryError
from arena.web import pages
from arena.web.play_table import PlayGame, PlaySettings, private_table
from arena.web.play_view import SeatView
from protocol.limits import MAX_LINE_BYTES
from protocol.linebuffer import LineBuffer

#: Bytes read from the table at once.
READ_BYTES = 65536
#: What a browser may send, by type: the fields kept (a hello's token or role is dropped:
#: the table binds the seat).
SENDABLE = {"hello": ("type", "name", "protocol", "game", "events"),
            "action": ("type", "id", "action"), "bye": ("type",)}
#: The WebSocket close code for a socket opened from another site's page.
POLICY_VIOLATION = 1008
#: Opponents named in one request at most (a table's seats are fewer).
MAX_OPPONENTS = 16


def checked(text: Any) -> bytes | None:
    """A browser's message as the line sent to the table, or None: not one of
    :data:`SENDABLE`, or too long."""
    if not isinstance(text, str) or len(text.encode()) > MAX_LINE_BYTES:
        return None
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("type") not in SENDABLE:
        return None
    kept = {key: message[key] for key in SENDABLE[message["type"]] if key in message}
    return json.dumps(kept, separators=(",", ":")).encode() + b"\n"


class PlayTables:
    """The play page's tables: the settings, and how many run now."""

    def __init__(self, settings: PlaySettings) -> None:
        self.settings = settings
        self.running = 0

    def refusal(self, name: str, opponents: list[str]) -> str | None:
        """Why a table of ``name`` against ``opponents`` cannot be had (None: it can)."""
        game = self.settings.game(name)
        if game is None:
            return f"no game {name!r} is offered here"
        wanted = game.parsed().players - 1
        if len(opponents) != wanted:
            return f"a table of {name} needs {wanted} opponent(s), not {len(opponents)}"
        refused = sorted({bot for bot in opponents if bot not in game.bots})
        if refused:
            return f"not offered here: {', '.join(refused)} (offered: {', '.join(game.bots)})"
        return None

    @contextlib.contextmanager
    def seated(self) -> Iterator[bool]:
        """Counts a table while the block runs; yields False (and counts none) when
        ``max_tables`` run already."""
        if self.running >= self.settings.max_tables:
            yield False
            return
        self.running += 1
        try:
            yield True
        finally:
            self.running -= 1


def opponents_of(query: Any) -> list[str]:
    """The opponents asked for: ``bots=A,B`` (the page's socket), else ``bot=A&bot=B`` (the
    form on ``/play``)."""
    named = (str(query["bots"]).split(",") if "bots" in query
             else [str(bot) for bot in query.getlist("bot")])
    return [bot for bot in named if bot][:MAX_OPPONENTS]


def play_routes(tables: PlayTables | None) -> list[Any]:
    """The play page's routes (with ``tables`` None: a page saying play is not open here)."""

    def closed() -> HTMLResponse:
        return HTMLResponse(pages.render(
            "message.html", title="play", message="The organiser has not opened play here "
            "(arena web --play, arena serve --web PORT --play)."), status_code=404)

    async def index(request: Request) -> Response:
        if tables is None:
            return closed()
        games = [{"name": g.name, "title": g.spec.title, "bots": g.bots,
                  "opponents": g.parsed().players - 1,
                  "default": g.bots[1] if len(g.bots) > 1 else g.bots[0]}
                 for g in tables.settings.games]
        return HTMLResponse(pages.render("play_index.html", title="play", games=games))

    async def page(request: Request) -> Response:
        if tables is None:
            return closed()
        name, opponents = request.path_params["game"], opponents_of(request.query_params)
        refused = tables.refusal(name, opponents)
        if refused is not None:
            return HTMLResponse(pages.render("message.html", title="play", message=refused),
                                status_code=400)
        game = tables.settings.game(name)
        assert game is not None
        return HTMLResponse(pages.render("play.html", title=f"play {name}", game=game.name,
                                         title_of_game=game.spec.title, bots=opponents))

    async def socket(websocket: WebSocket) -> None:
        if not same_origin(websocket):
            await websocket.close(code=POLICY_VIOLATION)
            return
        await websocket.accept()
        name, opponents = websocket.path_params["game"], opponents_of(websocket.query_params)
        refused = "play is not open here" if tables is None else tables.refusal(name, opponents)
        if refused is not None or tables is None:
            await refuse(websocket, refused or "")
            return
        with tables.seated() as seated:
            if not seated:
                await refuse(websocket, f"{tables.settings.max_tables} tables are being played "
                             "here already: try again later")
                return
            game = tables.settings.game(name)
            assert game is not None
            await relay(websocket, tables.settings, game, opponents)

    return [Route("/play", index), Route("/play/{game}", page),
            WebSocketRoute("/play/{game}/socket", socket)]


def same_origin(websocket: WebSocket) -> bool:
    """Whether the socket was opened by a page of this site (a browser says which page's
    origin opened it; another site's page may not seat its visitors here)."""
    origin = websocket.headers.get("origin")
    if origin is None:  # not a browser: it could send any header anyway
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


async def refuse(websocket: WebSocket, why: str) -> None:
    await websocket.send_text(json.dumps({"type": "closed", "reason": why}))
    await websocket.close()


async def relay(websocket: WebSocket, settings: PlaySettings, game: PlayGame,
                opponents: list[str]) -> None:
    """Relay between the browser and a private table until either ends (see the module's
    docstring for the limits); the browser is told why the table closed."""
    view = SeatView(game.name)
    why = "the game is over"
    try:
        with trio.move_on_after(settings.table_timeout) as whole:
            async with private_table(settings, game, opponents) as seat, \
                    trio.open_nursery() as nursery:

                async def to_browser() -> None:
                    with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # it left
                        await send_all(websocket, seat.stream, view)
                    nursery.cancel_scope.cancel()  # the table said bye, or the browser left

                nursery.start_soon(to_browser)
                why = await from_browser(websocket, seat.stream, settings.idle_timeout)
                nursery.cancel_scope.cancel()
        if whole.cancelled_caught:
            why = f"the table ran for {settings.table_timeout:g} s, its longest"
    except LogDirectoryError as exc:
        why = f"the table could not start: {exc}"
    if why != "gone":
        with contextlib.suppress(Exception):  # the browser may have gone meanwhile
            await refuse(websocket, why)


async def send_all(websocket: WebSocket, table: trio.abc.Stream, view: SeatView) -> None:
    """Send the browser each line the table sends the seat, drawn (:class:`SeatView`), until
    the table says ``bye`` or closes."""
    lines = LineBuffer(max_line=MAX_LINE_BYTES)
    while data := await table.receive_some(READ_BYTES):
        lines.feed(bytes(data))
        while (line := lines.next_line()) is not None:
            if isinstance(line, bytes):
                message = view.annotate(json.loads(line))
                await websocket.send_text(json.dumps(message))
                if message.get("type") == "bye":
                    return


async def from_browser(websocket: WebSocket, table: trio.abc.Stream, idle: float) -> str:
    """Send the browser's messages to the table until the browser goes (``gone``), sends
    something it may not, or nothing for ``idle`` seconds; why it stopped."""
    while True:
        with trio.move_on_after(idle):
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return "gone"
            line = checked(message.get("text"))
            if line is None:
                return "the browser sent what a seat may not send"
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await table.send_all(line)
            continue
        return f"nothing came from the browser for {idle:g} s"
