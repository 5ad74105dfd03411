"""The pages as an ASGI application (Starlette).  Read-only: every route is a GET, but the
play page's WebSocket (:mod:`arena.web.play`) and the author's page's forms
(:mod:`arena.web.author`), when the organiser opens them.

Pages are rendered in a worker thread and kept per standings (the same bytes until the games
count changes); replays are read and rebuilt in a worker thread and kept for the last few
games viewed."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.web import pages
from arena.web.author import AuthorSite, author_routes
from arena.web.author_jobs import AuthorSettings
from arena.web.data import EventData
from arena.web.frames import PUBLIC, FramesError, replay_frames
from arena.web.live import LiveTables
from arena.web.play import PlayTables, play_routes
from arena.web.play_table import PlaySettings

STATIC = Path(__file__).parent / "static"


class Site:
    """What the routes read: the event's standings, and the running tables when served
    beside a live server."""

    def __init__(self, data: EventData, live: LiveTables | None = None) -> None:
        self.data = data
        self.live = live
        self._pages: dict[tuple[Any, ...], str] = {}
        #: The standings the pages kept were built from (held: an id could be reused).
        self._built_from: Any = None

    async def text(self, key: tuple[Any, ...], build: Any, *, history: bool = False,
                   provisional: bool = False) -> str:
        """The text ``key`` of the current standings, built once per standings
        (``provisional``: the provisional ones rather than a wait for a long first fit)."""
        standings = await self.data.current(history=history, provisional=provisional)
        if self._built_from is not standings:
            self._pages = {}
            self._built_from = standings
        if key not in self._pages:
            self._pages[key] = await trio.to_thread.run_sync(build, standings)
        return self._pages[key]

    async def page(self, key: tuple[Any, ...], build: Any, *, history: bool = False,
                   provisional: bool = False) -> HTMLResponse:
        return HTMLResponse(await self.text(key, build, history=history,
                                            provisional=provisional))


def not_found(message: str) -> HTMLResponse:
    return HTMLResponse(pages.render("message.html", title="not found", message=message),
                        status_code=404)


def routes(site: Site) -> list[Any]:
    async def leaderboard(request: Request) -> Response:
        fragment = request.query_params.get("fragment") == "1"
        return await site.page(("leaderboard", fragment), functools.partial(
            pages.leaderboard_page, fragment=fragment, refresh=site.data.refresh_every),
            provisional=True)

    async def leaderboard_json(request: Request) -> Response:
        text = await site.text(("leaderboard.json",),
                               lambda s: json.dumps(pages.leaderboard_json(s)), provisional=True)
        return Response(text, media_type="application/json")

    async def bot(request: Request) -> Response:
        entrant = request.path_params["entrant"]
        standings = await site.data.current()
        if not 0 <= entrant < len(standings.names):
            return not_found(f"no bot {entrant}")
        return await site.page(("bot", entrant), lambda s: pages.bot_page(s, entrant),
                               history=True)  # the first history only: then the last one

    async def versus(request: Request) -> Response:
        return await site.page(("versus",), pages.versus_page)

    async def game(request: Request) -> Response:
        found = await _replay(request)
        if isinstance(found, Response):
            return found
        return HTMLResponse(pages.render("replay.html", title=f"game {found['planned']}",
                                         replay=found, live=False))

    async def game_json(request: Request) -> Response:
        found = await _replay(request)
        return found if isinstance(found, Response) else JSONResponse(found)

    async def _replay(request: Request) -> dict[str, Any] | Response:
        standings = await site.data.current()
        planned = request.path_params["planned"]
        view = request.query_params.get("view", PUBLIC)
        game = standings.game(planned)
        if game is None:
            return not_found(f"no stored game {planned}")
        path = site.data.log_path(game)
        if path is None or not path.is_file():
            return not_found(f"game {planned}: its log is not at {path} (arena web --logs DIR "
                             "names the folder of the logs)")
        if not pages.set_complete(standings, game):
            return not_found(f"game {planned} cannot be shown yet: the other games of its "
                             "duplicate set are not all over (they play the same cards)")
        try:
            built = await trio.to_thread.run_sync(replay_frames, str(path),
                                                  path.stat().st_mtime, view)
        except (FramesError, ValueError, OSError) as exc:
            return not_found(f"game {planned}: {exc}")
        return {**built, "planned": planned,
                "entrants": list(game.entrants)}

    async def live_index(request: Request) -> Response:
        tables = await site.live.listing() if site.live else []
        return HTMLResponse(pages.render(
            "live.html", title="live tables", tables=tables,
            registered=site.live is not None and site.live.registered_only,
            refused=site.live.refused if site.live else
            "no live server here (arena serve --web PORT shows its running tables)"))

    async def live_json(request: Request) -> Response:
        return JSONResponse({"tables": await site.live.listing() if site.live else []})

    async def live_table(request: Request) -> Response:
        watcher = await site.live.watcher(request.path_params["table"]) if site.live else None
        if watcher is None:
            return not_found(f"no running table {request.path_params['table']} to watch")
        return HTMLResponse(pages.render("replay.html", title=f"table {watcher.table}",
                                         live=True, table=watcher.table, replay=None))

    async def live_table_json(request: Request) -> Response:
        watcher = await site.live.watcher(request.path_params["table"]) if site.live else None
        if watcher is None:
            return JSONResponse({"error": "no such running table"}, status_code=404)
        return JSONResponse({"messages": watcher.messages, "over": watcher.over})

    async def live_stream(request: Request) -> Response:
        watcher = await site.live.watcher(request.path_params["table"]) if site.live else None
        if watcher is None:
            return JSONResponse({"error": "no such running table"}, status_code=404)

        live = site.live
        assert live is not None
        if live.full:
            return JSONResponse({"error": f"{live.max_followers} pages follow live tables "
                                 "already: try later"}, status_code=503)

        async def events() -> AsyncIterator[str]:
            with live.following():  # counted from the first byte to the last
                sent = 0
                while True:
                    if sent < len(watcher.events):  # what came meanwhile, in one write
                        yield "".join(watcher.events[sent:])
                        sent = len(watcher.events)
                    if watcher.over:
                        yield "event: end\ndata: {}\n\n"
                        return
                    await watcher.changed()

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    return [
        Route("/", leaderboard), Route("/leaderboard.json", leaderboard_json),
        Route("/bot/{entrant:int}", bot), Route("/versus", versus),
        Route("/game/{planned:int}", game), Route("/game/{planned:int}.json", game_json),
        Route("/live", live_index), Route("/live.json", live_json),
        Route("/live/{table:int}", live_table), Route("/live/{table:int}.json", live_table_json),
        Route("/live/{table:int}/stream", live_stream),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]


def make_app(data: EventData, live: LiveTables | None = None,
             play: PlaySettings | None = None,
             authors: AuthorSettings | None = None) -> Starlette:
    """The pages of ``data``'s event (and of ``live``'s running tables, when given; the play
    page's tables when ``play`` is given: :mod:`arena.web.play`; the author's page when
    ``authors`` is given: :mod:`arena.web.author`)."""
    site = Site(data, live)
    author = AuthorSite(authors, data) if authors is not None else None

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(data.keep_fresh)
            if live is not None:
                nursery.start_soon(live.run)
            if author is not None:
                nursery.start_soon(author.run)
            yield
            nursery.cancel_scope.cancel()

    tables = PlayTables(play) if play is not None else None
    app = Starlette(routes=[*play_routes(tables), *author_routes(author), *routes(site)],
                    lifespan=lifespan)
    app.state.author = author  # (tests read its uploads)
    return app
